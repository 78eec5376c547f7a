import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { expect } from 'vitest';
import { CHROMIUM_ARGS } from './console-browser.js';
import { tempDir } from './temp.js';

// The handheld app (src/handheld/web) in Debian's Chromium, the way a device keeps it: one profile folder (its
// IndexedDB and service worker survive the browser being killed), the page's clock at the box's instant.

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** A Chromium of its own process on a profile folder, reached over CDP: `kill()` is a SIGKILL, as a dead battery. */
export async function startDeviceBrowser(profile: string): Promise<{ browser: Browser; kill(): Promise<void> }> {
  const port = await new Promise<number>((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const p = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(p));
    });
  });
  const child: ChildProcess = spawn(
    CHROMIUM,
    [
      ...CHROMIUM_ARGS,
      '--headless=new',
      `--user-data-dir=${profile}`,
      `--remote-debugging-port=${port}`,
      'about:blank',
    ],
    { stdio: 'ignore' },
  );
  const gone = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let browser: Browser | undefined;
  for (let i = 0; i < 100 && !browser; i++) {
    browser = await chromium.connectOverCDP(`http://127.0.0.1:${port}`).catch(() => undefined);
    if (!browser) await new Promise((r) => setTimeout(r, 100));
  }
  if (!browser) throw new Error('chromium did not start');
  return {
    browser,
    async kill() {
      child.kill('SIGKILL');
      await gone;
    },
  };
}

/** The device's page on the app, its clock at `now` (the box's fixed clock). */
export async function appPage(context: BrowserContext, origin: string, now: Date, hash = ''): Promise<Page> {
  const page = context.pages()[0] ?? (await context.newPage());
  await page.clock.setFixedTime(now);
  await page.goto(`${origin}/m/${hash}`);
  return page;
}

/** Pairs through the app's own screens with a token from the console, then starts the shift. */
export async function pairInApp(page: Page, name: string, operator = 'Rita'): Promise<void> {
  await page.getByLabel('Nome do aparelho').fill(name);
  await page.getByRole('button', { name: 'Parear' }).click();
  await page.getByLabel('Operador').fill(operator);
  await page.getByRole('button', { name: 'Começar' }).click();
  await page.getByText('Conectado ao box').waitFor();
  await page.waitForFunction(() => ((globalThis as any).document.documentElement.dataset.dados ?? '') !== '');
}

/** A keyboard-wedge read (the code, then Enter) and the result it put on screen. */
export async function wedge(page: Page, code: string): Promise<{ resultado: string; noAparelho: boolean }> {
  await page.keyboard.type(code);
  await page.keyboard.press('Enter');
  const result = page.getByTestId('resultado');
  await expect.poll(() => result.locator('.code').textContent(), { timeout: 10_000 }).toBe(code);
  return {
    resultado: (await result.getAttribute('data-resultado')) ?? '',
    noAparelho: (await result.getByText('decidido no aparelho').count()) > 0,
  };
}

export const profileDir = () => {
  const dir = path.join(tempDir('gate-handheld-'), 'perfil');
  fs.mkdirSync(dir, { recursive: true });
  return dir;
};

/** A small PNG of the app's screen for docs/handheld.md, only when asked (HANDHELD_DOC_IMAGES=1). */
export async function appImage(page: Page, name: string): Promise<void> {
  if (process.env.HANDHELD_DOC_IMAGES !== '1') return;
  const dir = path.resolve(import.meta.dirname, '../../docs/img');
  fs.mkdirSync(dir, { recursive: true });
  await page.screenshot({ path: path.join(dir, `handheld-${name}.png`) });
}
