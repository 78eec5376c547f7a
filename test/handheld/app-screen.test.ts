import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PedidoInput } from '../../src/orders/order.schemas.js';
import { screenProblems, startConsoleBox, type ConsoleBox } from '../support/console-browser.js';
import { makeOrder } from '../support/fixtures.js';
import { HANDHELDS, pairingToken, signInSupervisor } from '../support/handheld.js';
import { appPage, pairInApp, profileDir, startDeviceBrowser, wedge } from '../support/handheld-browser.js';

// What the attendant reads on the handheld's result screen (docs/handheld.md, "What the result screen shows"), in
// Chromium against a real box, names off: the people THIS scan let in, the ticket's kind and day, and every refusal
// in the box's words, online and offline alike.

const BOX_NOW = new Date('2026-11-21T13:00:00.000Z');
const TODAY = '2026-11-21';

const lot = (prefix: string, nome_lote: string, data_uso: string, people: number): PedidoInput['lotes'][number] => ({
  ...makeOrder({ prefix, dataUso: data_uso, people }).lotes[0]!,
  categoria: nome_lote === 'Criança' ? 'infantil' : 'adulto',
  nome_lote,
});
const order = (numero: string, lotes: PedidoInput['lotes']): PedidoInput => ({ ...makeOrder({ numero }), lotes });

let cb: ConsoleBox;
let device: { browser: Browser; kill(): Promise<void> };
let page: Page;

beforeAll(async () => {
  cb = await startConsoleBox({ handheld: HANDHELDS });
  cb.box.importOrders([
    // A family of four on one order: two adults, two children.
    order('20261121-0001', [lot('A', 'Adulto', TODAY, 2), lot('K', 'Criança', TODAY, 2)]),
    order('20261121-0002', [lot('B', 'Adulto', TODAY, 2), lot('C', 'Criança', TODAY, 2)]),
    // Nothing for today: not in the device's day data.
    order('20261120-0003', [lot('Y', 'Adulto', '2026-11-20', 3)]),
    order('20261119-0005', [lot('Z', 'Adulto', '2026-11-19', 1)]),
    // Today and tomorrow on one order: tomorrow's tickets are in the day data.
    order('20261121-0004', [lot('H', 'Adulto', TODAY, 1), lot('T', 'Adulto', '2026-11-22', 3)]),
  ]);
  const token = await pairingToken(await signInSupervisor(cb.box));
  device = await startDeviceBrowser(profileDir());
  page = await appPage(device.browser.contexts()[0]!, cb.origin, BOX_NOW, `#parear=${token}`);
  await pairInApp(page, 'coletor-01');
});
afterAll(async () => {
  await device?.browser.close().catch(() => undefined);
  await device?.kill();
  await cb?.close();
});

/** A wedge read and what the screen paints: the headline, the ticket lines, and whether the device decided. */
async function read(code: string) {
  const r = await wedge(page, code);
  const screen = page.getByTestId('resultado');
  return {
    ...r,
    headline: (await screen.locator('.big').textContent())?.trim(),
    tickets: (await screen.locator('.ticket').allTextContents()).map((t) => t.trim()),
  };
}

describe('the result screen, names off', () => {
  it('online: the people this scan let in and their ticket, not the order; refusals in the box words', async () => {
    expect(await read('K-1')).toEqual({
      resultado: 'ok',
      noAparelho: false,
      headline: 'Liberado: 1 pessoa',
      tickets: ['Passaporte Dia · Criança · 21/11/2026'],
    });
    // The group QR lets in the three still outside, by kind.
    expect(await read('20261121-0001')).toEqual({
      resultado: 'ok',
      noAparelho: false,
      headline: 'Liberado: 3 pessoas',
      tickets: ['2 × Passaporte Dia · Adulto · 21/11/2026', '1 × Passaporte Dia · Criança · 21/11/2026'],
    });
    expect(await read('K-2')).toEqual({
      resultado: 'TICKET_ALREADY_USED',
      noAparelho: false,
      headline: 'Ingresso já utilizado.',
      tickets: ['Passaporte Dia · Criança · 21/11/2026'],
    });
    expect(await read('T-1')).toEqual({
      resultado: 'TICKET_NOT_VALID_YET',
      noAparelho: false,
      headline: 'Ingresso ainda não é válido: válido para uma data futura.',
      tickets: ['Passaporte Dia · Adulto · 22/11/2026'],
    });
    expect(await read('Y-1')).toEqual({
      resultado: 'TICKET_EXPIRED',
      noAparelho: false,
      headline: 'Ingresso expirado: válido para uma data passada.',
      tickets: ['Passaporte Dia · Adulto · 20/11/2026'],
    });
    expect(await page.getByText('Pessoa 1').count()).toBe(0);
  });

  it('offline: the same counts and tickets', async () => {
    await cb.goAway();
    expect(await read('C-1')).toEqual({
      resultado: 'ok',
      noAparelho: true,
      headline: 'Liberado: 1 pessoa',
      tickets: ['Passaporte Dia · Criança · 21/11/2026'],
    });
    await page.getByText('OFFLINE').waitFor();
    expect(await read('20261121-0002')).toEqual({
      resultado: 'ok',
      noAparelho: true,
      headline: 'Liberado: 3 pessoas',
      tickets: ['2 × Passaporte Dia · Adulto · 21/11/2026', '1 × Passaporte Dia · Criança · 21/11/2026'],
    });
    expect(await read('C-2')).toEqual({
      resultado: 'TICKET_ALREADY_USED',
      noAparelho: true,
      headline: 'Ingresso já utilizado.',
      tickets: ['Passaporte Dia · Criança · 21/11/2026'],
    });
    expect(await page.getByText('Pessoa 1').count()).toBe(0);
    expect(await screenProblems(page)).toEqual([]);
  });

  it("offline: every refusal in the box's words; a ticket not in the day data says so", async () => {
    // Tomorrow's ticket of an order of today: the box's own refusal, in its words.
    expect(await read('T-2')).toEqual({
      resultado: 'TICKET_NOT_VALID_YET',
      noAparelho: true,
      headline: 'Ingresso ainda não é válido: válido para uma data futura.',
      tickets: ['Passaporte Dia · Adulto · 22/11/2026'],
    });
    // An order of another day the box answered online for (Y-1): the device kept its rows and its status.
    expect(await read('Y-2')).toEqual({
      resultado: 'TICKET_EXPIRED',
      noAparelho: true,
      headline: 'Ingresso expirado: válido para uma data passada.',
      tickets: ['Passaporte Dia · Adulto · 20/11/2026'],
    });
    // An order with nothing for today never reached the device: it cannot tell why, and says what it knows.
    expect(await read('Z-1')).toEqual({
      resultado: 'TICKET_NOT_FOUND',
      noAparelho: true,
      headline: 'Ingresso não está nos dados de hoje.',
      tickets: [],
    });
    expect(await page.getByText('Pessoa 1').count()).toBe(0);
    expect(await screenProblems(page)).toEqual([]);
  });
});
