import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { makeOrder } from '../../support/fixtures.js';
import {
  ATTENDANT,
  docImage,
  launchBrowser,
  openConsole,
  screenshots,
  screenProblems,
  signIn,
  startConsoleBox,
  type ConsoleBox,
} from '../../support/console-browser.js';

// The scan station: one focused input (a desk scanner types the code and Enter), the answer filling
// the screen with its own sound, and a repeated read of the same code within 2 s ignored.

let browser: Browser;
let cb: ConsoleBox;
let context: BrowserContext;
let page: Page;

beforeAll(async () => {
  browser = await launchBrowser();
  cb = await startConsoleBox();
  cb.box.importOrders([
    makeOrder({ prefix: 'OK', people: 4 }),
    makeOrder({ prefix: 'USED' }),
    makeOrder({ prefix: 'OLD', dataUso: '2026-11-20' }),
    makeOrder({ prefix: 'SOON', dataUso: '2026-11-22' }),
    makeOrder({ prefix: 'GONE', status: 'cancelado' }),
  ]);
  // USED-1 went in at 09:30 (São Paulo) through a turnstile of the HTTP API.
  cb.box.clock.set('2026-11-21T12:30:00.000Z');
  const res = await cb.box.app.inject({
    method: 'POST',
    url: '/api/v1/api-qrcode-checkin',
    headers: { 'x-api-key': cb.box.keys.checkin },
    payload: { qr_code: 'USED-1', terminal: 'catraca-2' },
  });
  expect(res.statusCode).toBe(200);
  cb.box.clock.set('2026-11-21T13:00:00.000Z');
});
afterAll(async () => {
  await browser?.close();
  await cb?.close();
});

/** Records every tone the page plays (Web Audio oscillators), to tell the sounds apart. */
function recordTones() {
  const g = globalThis as any;
  g.__tones = [];
  const start = g.OscillatorNode.prototype.start;
  g.OscillatorNode.prototype.start = function (this: any, ...args: unknown[]) {
    g.__tones.push(`${this.type}:${this.frequency.value}`);
    return start.apply(this, args);
  };
}

beforeEach(async () => {
  ({ context, page } = await openConsole(browser, cb, { hash: '#/leitura', initScript: recordTones }));
  await signIn(page, ATTENDANT, 'portaria-1');
  await page.waitForFunction(() => (globalThis as any).document.activeElement?.id === 'scan-input');
});
afterEach(async () => {
  await context?.close();
});

const input = () => page.getByLabel('Código do ingresso');
const result = () => page.locator('.scan-stage .scan-result');
const inputIsFocused = () => page.evaluate(() => (globalThis as any).document.activeElement?.id === 'scan-input');

/** Types the code and Enter as a keyboard-wedge scanner does; returns the tune played for the answer. */
async function scan(code: string, expected: { state: 'granted' | 'refused'; text: string }): Promise<string> {
  await page.evaluate(() => ((globalThis as any).__tones = []));
  await page.keyboard.type(`${code}\n`);
  await page
    .locator(`.scan-stage .scan-result.${expected.state}`, { hasText: code })
    .filter({ hasText: expected.text })
    .waitFor();
  return page.evaluate(() => (globalThis as any).__tones.join(' '));
}

describe('scan view', () => {
  it('a valid scan fills the screen with LIBERADO, the name, ticket and lot, and the input is ready for the next scan at once', async () => {
    await input().waitFor();
    expect(await inputIsFocused()).toBe(true);
    expect(await result().textContent()).toContain('Pronto para ler');

    const tune = await scan('OK-1', { state: 'granted', text: 'LIBERADO' });
    const text = await result().textContent();
    expect(text).toContain('Pessoa 1');
    expect(text).toContain('Passaporte Dia');
    expect(text).toContain('Adulto');
    expect(tune).not.toBe('');
    expect(await input().inputValue()).toBe('');
    expect(await inputIsFocused()).toBe(true);

    expect(await screenProblems(page)).toEqual([]);
    await screenshots(page, 'leitura-liberado');
    await docImage(page, 'leitura-liberado');
  });

  it("refusals show the box's title and plain-Portuguese reason, each kind with a sound of its own", async () => {
    const granted = await scan('OK-2', { state: 'granted', text: 'LIBERADO' });
    const used = await scan('USED-1', { state: 'refused', text: 'JÁ UTILIZADO' });
    expect(await result().textContent()).toContain('09:30');
    expect(await screenProblems(page)).toEqual([]);
    await screenshots(page, 'leitura-ja-utilizado');
    await docImage(page, 'leitura-recusado');

    const past = await scan('OLD-1', { state: 'refused', text: 'FORA DA DATA' });
    expect(await result().textContent()).toContain('20/11');
    const future = await scan('SOON-1', { state: 'refused', text: 'FORA DA DATA' });
    expect(await result().textContent()).toContain('22/11');
    const cancelled = await scan('GONE-1', { state: 'refused', text: 'CANCELADO' });
    const unknown = await scan('NINGUEM-9', { state: 'refused', text: 'NÃO ENCONTRADO' });
    await screenshots(page, 'leitura-nao-encontrado');

    expect(new Set([granted, used, past, cancelled, unknown]).size).toBe(5);
    expect(future).toBe(past);
    expect(await inputIsFocused()).toBe(true);
    // The station's history lists them, newest first.
    const history = await page.locator('.scan-history li').allTextContents();
    expect(history[0]).toContain('NINGUEM-9');
    expect(history[5]).toContain('OK-2');
  });

  it('a second read of the same code within 2 s is ignored; a read after that is a new one', async () => {
    // A scanner that fires twice: both reads arrive within a few milliseconds.
    await page.keyboard.type('OK-3\nOK-3\n');
    await page.locator('.scan-stage .scan-result.granted', { hasText: 'OK-3' }).waitFor();
    await page.getByText('Leitura repetida de OK-3 ignorada.').waitFor();
    expect(await result().textContent()).toContain('LIBERADO');
    const events = () =>
      cb.box.db.sqlite.prepare("select count(*) as n from events where code = 'OK-3'").get() as { n: number };
    expect(events().n).toBe(1);

    // The rule is about time: once 2 s have passed, the same code is read again (and is now used).
    await page.waitForTimeout(2100);
    await scan('OK-3', { state: 'refused', text: 'JÁ UTILIZADO' });
    expect(events().n).toBe(2);
  });

  it('when the box does not answer, the screen says the scan was not registered', async () => {
    await cb.goAway();
    try {
      await page.keyboard.type('OK-4\n');
      await page
        .locator('.scan-stage .scan-result.refused', { hasText: 'Não foi possível registrar a leitura de OK-4' })
        .waitFor();
      await page.getByRole('alert').filter({ hasText: 'Sem conexão com a caixa' }).waitFor();
    } finally {
      await cb.comeBack();
    }
    await page.locator('.banner-offline').waitFor({ state: 'detached', timeout: 15_000 });
    await page.keyboard.type('OK-4\n');
    await page.locator('.scan-stage .scan-result.granted', { hasText: 'OK-4' }).waitFor();
  });
});
