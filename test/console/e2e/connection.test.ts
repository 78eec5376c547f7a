import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { makeOrder } from '../../support/fixtures.js';
import {
  ATTENDANT,
  launchBrowser,
  openConsole,
  screenshots,
  signIn,
  startConsoleBox,
  type ConsoleBox,
} from '../../support/console-browser.js';

// The box goes away (its listener and every connection closed, the live event stream included) and
// comes back on the same address: the console says so at once and recovers by itself.

let browser: Browser;
let cb: ConsoleBox;
let context: BrowserContext;
let page: Page;

beforeAll(async () => {
  browser = await launchBrowser();
  cb = await startConsoleBox();
  cb.box.importOrders([makeOrder({ numero: '20261121-0201', prefix: 'RET' })]);
});
afterAll(async () => {
  await browser?.close();
  await cb?.close();
});
afterEach(async () => {
  await context?.close();
});

describe('connection to the box', () => {
  it('shows "Sem conexão com a caixa" as soon as the box goes away, then reconnects by itself and refetches the open screen', async () => {
    ({ context, page } = await openConsole(browser, cb, { hash: '#/pedido/20261121-0201' }));
    await signIn(page, ATTENDANT);
    await page.getByRole('heading', { name: 'Entradas: 0 de 2' }).waitFor();
    expect(await page.locator('.banner-offline').count()).toBe(0);

    await cb.goAway();
    const banner = page.getByRole('alert').filter({ hasText: 'Sem conexão com a caixa' });
    await banner.waitFor({ timeout: 3000 });
    await screenshots(page, 'sem-conexao');

    // While the console is cut off, a turnstile checks one of the order's people in.
    const res = await cb.box.app.inject({
      method: 'POST',
      url: '/api/v1/api-qrcode-checkin',
      headers: { 'x-api-key': cb.box.keys.checkin },
      payload: { qr_code: 'RET-1', terminal: 'catraca-9' },
    });
    expect(res.statusCode).toBe(200);
    await cb.comeBack();
    await page.locator('.banner-offline').waitFor({ state: 'detached', timeout: 15_000 });
    await page.getByRole('heading', { name: 'Entradas: 1 de 2' }).waitFor();
    expect(await page.locator('li.person[data-qr="RET-1"]').textContent()).toContain('catraca-9');

    // And it keeps working: a second outage is noticed and recovered from too.
    await cb.goAway();
    await banner.waitFor({ timeout: 3000 });
    await cb.comeBack();
    await page.locator('.banner-offline').waitFor({ state: 'detached', timeout: 15_000 });
  }, 45_000);
});
