import path from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM_ARGS } from '../support/console-browser.js';
import { HANDHELDS } from '../support/handheld.js';
import { homeWithNss } from '../support/nss.js';
import { siteCaDir, siteTlsBox } from '../tls/support.js';

// The handheld app as a park runs it (docs/handheld.md, "Contexto seguro na rede local"): the box serves HTTPS with
// the site CA's certificate, the device trusts the CA (here: Chromium's NSS database, as `certutil` fills it) and
// reaches the box by its name. `http://127.0.0.1` would be a secure context by itself, so the name is what is tested.

let dir: string;
let box: Awaited<ReturnType<typeof siteTlsBox>>;
let browser: Browser;
beforeAll(async () => {
  dir = await siteCaDir();
  box = await siteTlsBox(dir, { handheld: HANDHELDS });
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    headless: true,
    args: [...CHROMIUM_ARGS, '--host-resolver-rules=MAP box.lan 127.0.0.1'],
    env: { ...process.env, HOME: homeWithNss(path.join(dir, 'ca.pem')) },
  });
});
afterAll(async () => {
  await browser?.close();
  await box?.close();
});

describe('the app over HTTPS at the box’s name', () => {
  it('registers its service worker at https://box.lan/m/ and opens again with the box stopped', async () => {
    const origin = `https://box.lan:${box.port}`;
    const page = await browser.newPage();
    await page.goto(`${origin}/m/`);
    await page.getByRole('heading', { name: 'Parear aparelho' }).waitFor();
    expect(await page.evaluate('window.isSecureContext')).toBe(true);
    const scope = await page.evaluate(async () => (await (globalThis as any).navigator.serviceWorker.ready).scope);
    expect(scope).toBe(`${origin}/m/`);
    await page.waitForFunction(() => (globalThis as any).navigator.serviceWorker.controller !== null);

    await box.close();
    await page.reload();
    await page.getByRole('heading', { name: 'Parear aparelho' }).waitFor();
  });
});
