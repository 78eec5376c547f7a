import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { createOperator } from '../../src/operators/operators.repo.js';
import { createTestBox, type TestBox, type TestBoxOptions } from './box.js';

// The staff console in a real browser (Debian's Chromium, driven by playwright-core) against a real
// box: a real SQLite file and a real listener serving dist/console (run `npm run build` first).

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const RESULTS_DIR = path.join(ROOT, 'test-results', 'console');
export const DOCS_IMG_DIR = path.join(ROOT, 'docs', 'img');

export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

export function launchBrowser(): Promise<Browser> {
  if (!fs.existsSync(path.join(ROOT, 'dist', 'console', 'app.js')))
    throw new Error('dist/console/app.js is missing: run `npm run build` first');
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    headless: true,
    args: CHROMIUM_ARGS,
  });
}

/** Operators every console box has: name and secret (what they type at the sign-in screen). */
export const SUPERVISOR = { nome: 'Ana Supervisora', segredo: '482915' } as const;
export const ATTENDANT = { nome: 'Beto Atendente', segredo: '731604' } as const;

export interface ConsoleBox {
  box: TestBox;
  /** http://127.0.0.1:<port> */
  origin: string;
  port: number;
  /** Stops answering: the listener and every open connection (the event stream too) are closed. */
  goAway(): Promise<void>;
  /** Listens again on the same port. */
  comeBack(): Promise<void>;
  addOperator(nome: string, segredo: string, papel: 'atendente' | 'supervisor'): Promise<void>;
  close(): Promise<void>;
}

export async function startConsoleBox(opts: TestBoxOptions = {}): Promise<ConsoleBox> {
  const box = await createTestBox(opts);
  await box.app.listen({ host: '127.0.0.1', port: 0 });
  const server = box.app.server;
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('no port');
  const port = address.port;
  const addOperator = async (nome: string, segredo: string, papel: 'atendente' | 'supervisor') => {
    await createOperator(box.db, { tenantId: box.tenantId, nome, papel, segredo, nowIso: box.clock.nowIso() });
  };
  await addOperator(SUPERVISOR.nome, SUPERVISOR.segredo, 'supervisor');
  await addOperator(ATTENDANT.nome, ATTENDANT.segredo, 'atendente');
  let away = false;
  const goAway = async () => {
    away = true;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeAllConnections();
    await closed;
  };
  const comeBack = async () => {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        server.off('error', reject);
        resolve();
      });
    });
    away = false;
  };
  return {
    box,
    origin: `http://127.0.0.1:${port}`,
    port,
    goAway,
    comeBack,
    addOperator,
    async close() {
      if (away) await comeBack();
      server.closeAllConnections();
      await box.close();
    },
  };
}

export const LANDSCAPE = { width: 1280, height: 800 };
export const PORTRAIT = { width: 800, height: 1280 };

/**
 * A fresh context (no cookies, no storage) at the park's time zone, on the console's page;
 * `initScript` runs in the page before the console's own code.
 */
export async function openConsole(
  browser: Browser,
  cb: ConsoleBox,
  opts: { hash?: string; initScript?: () => void } = {},
): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({
    viewport: LANDSCAPE,
    locale: 'pt-BR',
    timezoneId: 'America/Sao_Paulo',
    acceptDownloads: true,
  });
  context.setDefaultTimeout(10_000);
  if (opts.initScript) await context.addInitScript(opts.initScript);
  const page = await context.newPage();
  await page.goto(`${cb.origin}/console/${opts.hash ?? ''}`);
  return { context, page };
}

/** The box's answer to the last POST /api/console/entrar the sign-in screen sent. */
export interface SignInAnswer {
  status: number;
  body: { success: boolean; data?: any; error?: { code: string; message: string; details?: any } };
}

/**
 * Fills and sends the sign-in form; when the box answers that it needs the park (a box with more
 * than one tenant), fills the park field that appears and sends again.
 */
export async function trySignIn(
  page: Page,
  who: { nome: string; segredo: string },
  estacao = 'balcao-1',
): Promise<SignInAnswer> {
  const send = async (): Promise<SignInAnswer> => {
    const answer = page.waitForResponse((r) => r.url().endsWith('/api/console/entrar'));
    await page.getByRole('button', { name: 'Entrar' }).click();
    const res = await answer;
    return { status: res.status(), body: await res.json() };
  };
  await page.getByLabel('Operador').fill(who.nome);
  await page.getByLabel('PIN ou senha').fill(who.segredo);
  await page.getByLabel('Estação').fill(estacao);
  const tenant = page.getByLabel('Parque');
  if (await tenant.isVisible()) await tenant.fill('parque');
  let answer = await send();
  if (answer.body.error?.code === 'VALIDATION_ERROR') {
    await tenant.waitFor();
    await tenant.fill('parque');
    await page.getByLabel('PIN ou senha').fill(who.segredo);
    answer = await send();
  }
  return answer;
}

export async function signIn(page: Page, who: { nome: string; segredo: string }, estacao = 'balcao-1'): Promise<void> {
  const answer = await trySignIn(page, who, estacao);
  if (!answer.body.success) throw new Error(`sign-in refused: ${JSON.stringify(answer.body)}`);
  await page.getByRole('navigation', { name: 'Telas' }).waitFor();
}

/** The console's own session, as its code sees it: for calling the API from the page like it does. */
export async function apiFromPage(
  page: Page,
  method: 'GET' | 'POST',
  url: string,
  body?: unknown,
): Promise<{ status: number; json: any }> {
  return page.evaluate(
    async ({ method, url, body }) => {
      const session = (await fetch('/api/console/sessao').then((r) => r.json())) as { data?: { csrf?: string } };
      const res = await fetch(url, {
        method,
        headers:
          method === 'POST' ? { 'content-type': 'application/json', 'x-csrf-token': session.data?.csrf ?? '' } : {},
        body: method === 'POST' ? JSON.stringify(body ?? {}) : null,
      });
      return { status: res.status, json: await res.json().catch(() => null) };
    },
    { method, url, body },
  );
}

const AXE_SOURCE = fs.readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/**
 * axe-core's serious and critical violations on the page as it is now (ids and offending nodes).
 * axe is evaluated through the DevTools protocol rather than added as a <script>: the box's
 * Content-Security-Policy (script-src 'self') refuses inline scripts, and the tests keep it on.
 */
export async function seriousA11yViolations(page: Page): Promise<string[]> {
  if (!(await page.evaluate(() => 'axe' in globalThis))) await page.evaluate(AXE_SOURCE);
  const violations: { id: string; impact: string | null; nodes: { target: unknown[] }[] }[] = await page.evaluate(
    async () => {
      const axe = (globalThis as any).axe;
      const r = await axe.run((globalThis as any).document, { resultTypes: ['violations'] });
      return r.violations.map((v: any) => ({
        id: v.id,
        impact: v.impact,
        nodes: v.nodes.map((n: any) => ({ target: n.target })),
      }));
    },
  );
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id}: ${v.nodes.map((n) => JSON.stringify(n.target)).join(', ')}`);
}

/** Visible controls smaller than a 44×44 px touch target, as "tag \"label\" width×height". */
export async function smallTouchTargets(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const doc = (globalThis as any).document;
    const small: string[] = [];
    for (const el of doc.querySelectorAll('a[href], button, input, select, textarea, summary')) {
      const r = el.getBoundingClientRect();
      // Not rendered, or moved off screen until focused (the skip link).
      if ((r.width === 0 && r.height === 0) || r.right <= 0) continue;
      if (r.width < 44 || r.height < 44) {
        const label = (el.getAttribute('aria-label') || el.textContent || el.id || '').trim().slice(0, 40);
        small.push(`${el.tagName.toLowerCase()} "${label}" ${Math.round(r.width)}×${Math.round(r.height)}`);
      }
    }
    return small;
  });
}

/** What a screen must not have: axe's serious or critical violations, and touch targets under 44 px. */
export async function screenProblems(page: Page): Promise<string[]> {
  return [...(await seriousA11yViolations(page)), ...(await smallTouchTargets(page))];
}

/** Screenshots at 1280×800 and 800×1280 under test-results/console; the page returns to landscape. */
export async function screenshots(page: Page, name: string): Promise<void> {
  fs.mkdirSync(RESULTS_DIR, { recursive: true });
  for (const size of [LANDSCAPE, PORTRAIT]) {
    await page.setViewportSize(size);
    await page.screenshot({
      path: path.join(RESULTS_DIR, `${name}-${size.width}x${size.height}.png`),
      fullPage: false,
    });
  }
  await page.setViewportSize(LANDSCAPE);
}

/**
 * A small image for docs/img (1024 px wide; the viewport's 640 px of height, or the whole page with
 * `fullPage`), kept for the lead to commit.
 */
export async function docImage(page: Page, name: string, opts: { fullPage?: boolean } = {}): Promise<void> {
  // Only when asked (CONSOLE_DOC_IMAGES=1 npx vitest run test/console/e2e): a test run leaves the committed images
  // alone.
  if (process.env.CONSOLE_DOC_IMAGES !== '1') return;
  fs.mkdirSync(DOCS_IMG_DIR, { recursive: true });
  await page.setViewportSize({ width: 1024, height: 640 });
  await page.screenshot({ path: path.join(DOCS_IMG_DIR, `console-${name}.png`), fullPage: opts.fullPage ?? false });
  await page.setViewportSize(LANDSCAPE);
}
