import fs from 'node:fs';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { makeOrder } from '../../support/fixtures.js';
import {
  docImage,
  launchBrowser,
  openConsole,
  screenshots,
  screenProblems,
  signIn,
  startConsoleBox,
  SUPERVISOR,
  trySignIn,
  type ConsoleBox,
} from '../../support/console-browser.js';

// The supervisor's back office: the sync panel (conflicts and their CSV), operator accounts (the
// one-time PIN) and the day's report (entries per hour per lane, refusals by reason, CSV).

let browser: Browser;
let cb: ConsoleBox;
let context: BrowserContext;
let page: Page;

/** Check-ins through the HTTP API at a given São Paulo time of 2026-11-21, from a given terminal. */
async function checkInAt(localTime: string, qr: string, terminal: string): Promise<number> {
  cb.box.clock.set(`2026-11-21T${localTime}:00.000-03:00`);
  const res = await cb.box.app.inject({
    method: 'POST',
    url: '/api/v1/api-qrcode-checkin',
    headers: { 'x-api-key': cb.box.keys.checkin },
    payload: { qr_code: qr, terminal },
  });
  return res.statusCode;
}

/** What the cloud answered for an event the box pushed (as the sync worker records it). */
function cloudSaid(qr: string, resultado: string, mensagem: string): void {
  const ev = cb.box.db.sqlite
    .prepare("select id, tenant_id, action from events where qr_code = ? and result = 'ok' order by id desc")
    .get(qr) as { id: number; tenant_id: number; action: string };
  cb.box.db.sqlite
    .prepare(
      `insert into sync_push (event_id, tenant_id, chave, action, status, attempts, first_sent_at, last_sent_at, resultado, cloud_code, cloud_message, settled_at)
       values (?, ?, 'nuvem', ?, 'concluido', 1, ?, ?, ?, 'X', ?, ?)`,
    )
    .run(
      ev.id,
      ev.tenant_id,
      ev.action,
      '2026-11-21T14:00:00.000Z',
      '2026-11-21T14:00:00.000Z',
      resultado,
      mensagem,
      '2026-11-21T14:00:00.000Z',
    );
}

beforeAll(async () => {
  browser = await launchBrowser();
  cb = await startConsoleBox();
  cb.box.importOrders([makeOrder({ prefix: 'DAY', people: 8 }), makeOrder({ prefix: 'OLDR', dataUso: '2026-11-20' })]);
  // The day: entries at 09h, 10h and 14h through two turnstiles, and some refusals.
  const grants = [
    ['09:05', 'DAY-1', 'catraca-1'],
    ['09:40', 'DAY-2', 'catraca-2'],
    ['10:10', 'DAY-3', 'catraca-1'],
    ['10:20', 'DAY-4', 'catraca-1'],
    ['10:30', 'DAY-5', 'catraca-2'],
    ['14:00', 'DAY-6', 'catraca-2'],
  ] as const;
  for (const [t, qr, terminal] of grants) expect(await checkInAt(t, qr, terminal)).toBe(200);
  expect(await checkInAt('11:00', 'DAY-1', 'catraca-1')).toBe(409);
  expect(await checkInAt('11:05', 'NINGUEM', 'catraca-1')).toBe(404);
  expect(await checkInAt('11:10', 'OLDR-1', 'catraca-2')).toBe(410);
  cb.box.clock.set('2026-11-21T18:00:00.000Z');
  cloudSaid('DAY-1', 'ja_utilizado_na_nuvem', 'Ingresso já utilizado em outra unidade');
  cloudSaid('DAY-2', 'ja_utilizado_na_nuvem', 'Ingresso já utilizado em outra unidade');
  cloudSaid('DAY-6', 'fora_do_prazo', 'Check-in fora do prazo');
});
afterAll(async () => {
  await browser?.close();
  await cb?.close();
});
afterEach(async () => {
  await context?.close();
});

async function start(hash: string) {
  ({ context, page } = await openConsole(browser, cb, { hash }));
  await signIn(page, SUPERVISOR, 'supervisao');
}

describe('supervisor screens', () => {
  it('sync panel: the cloud state, the conflicts with a filter, and their CSV download', async () => {
    await start('#/sync');
    await page.getByRole('heading', { name: 'Sincronização com a nuvem' }).waitFor();
    await page.locator('.sync-state', { hasText: /Nuvem não configurada|OFFLINE|ONLINE/ }).waitFor();
    await page.locator('.stats div', { hasText: 'Conflitos' }).filter({ hasText: '3' }).waitFor();
    const rows = page.locator('table tbody tr');
    await rows.nth(2).waitFor();
    expect(await rows.count()).toBe(3);

    await page.getByLabel('Tipo').selectOption('fora_do_prazo');
    await page.waitForFunction(() => (globalThis as any).document.querySelectorAll('table tbody tr').length === 1);
    expect(await rows.first().textContent()).toContain('DAY-6');
    expect(await rows.first().textContent()).toContain('Fora do prazo');
    expect(await screenProblems(page)).toEqual([]);
    await screenshots(page, 'sync');

    const download = page.waitForEvent('download');
    await page.getByRole('link', { name: 'Baixar CSV' }).click();
    const file = await (await download).path();
    const csv = fs.readFileSync(file, 'utf8');
    const lines = csv.trim().split(/\r?\n/);
    expect(lines[0]).toContain('evento_id');
    expect(lines).toHaveLength(2);
    expect(lines[1]).toContain('DAY-6');

    await page.getByLabel('Tipo').selectOption('');
    await rows.nth(2).waitFor();
    const all = page.waitForEvent('download');
    await page.getByRole('link', { name: 'Baixar CSV' }).click();
    const allCsv = fs.readFileSync(await (await all).path(), 'utf8');
    expect(allCsv.trim().split(/\r?\n/)).toHaveLength(4);
  });

  it('operators: a new one gets a one-time PIN that signs in; once disabled it no longer does', async () => {
    await start('#/operadores');
    await page.getByLabel('Nome').fill('Carla Nova');
    await page.getByLabel('Papel').selectOption('atendente');
    await page.getByRole('button', { name: 'Criar operador' }).click();
    const pin = (await page.locator('.pin-box .pin').textContent())!.trim();
    expect(pin).toMatch(/^\S{4,}$/);
    await page.locator('li.operator[data-operador="Carla Nova"]', { hasText: 'ativo' }).waitFor();
    expect(await screenProblems(page)).toEqual([]);
    await screenshots(page, 'operadores');

    const other = await openConsole(browser, cb);
    try {
      await signIn(other.page, { nome: 'Carla Nova', segredo: pin }, 'balcao-2');
      await other.page.getByText('Carla Nova (atendente) · balcao-2').waitFor();
      await other.page.getByRole('button', { name: 'Sair' }).click();

      await page.getByRole('button', { name: 'Desativar Carla Nova' }).click();
      await page
        .getByRole('group', { name: 'Confirmar desativação de Carla Nova' })
        .getByRole('button', { name: 'Confirmar' })
        .click();
      await page.locator('li.operator[data-operador="Carla Nova"]', { hasText: 'desativado' }).waitFor();

      const again = await trySignIn(other.page, { nome: 'Carla Nova', segredo: pin }, 'balcao-2');
      expect(again.body.error?.code).toBe('CREDENCIAIS_INVALIDAS');
      await other.page.locator('#login-error').filter({ hasText: again.body.error!.message }).waitFor();
    } finally {
      await other.context.close();
    }
  });

  it("the day's report: entries per hour per lane drawn as a chart, refusals by reason, and its CSV", async () => {
    await start('#/relatorio');
    await page.getByRole('heading', { name: 'Relatório do dia 21/11/2026' }).waitFor();
    expect(await page.getByLabel('Data').inputValue()).toBe('2026-11-21');
    await page.locator('.big-number', { hasText: 'entradas' }).filter({ hasText: '6' }).waitFor();
    expect(await page.locator('.big-number', { hasText: 'recusas' }).textContent()).toContain('3');

    const bars = await page
      .locator('.chart rect[data-hora]')
      .evaluateAll((rects) => rects.map((r) => `${r.getAttribute('data-hora')} ${r.getAttribute('data-pista')}`));
    expect(bars.map((b) => b.split(' ')[0]).sort()).toEqual(expect.arrayContaining(['9', '10', '14']));
    expect(new Set(bars.map((b) => b.split(' ')[1])).size).toBeGreaterThanOrEqual(2);
    expect(await page.locator('.legend li').count()).toBe(new Set(bars.map((b) => b.split(' ')[1])).size);
    const refusals = await page.locator('section[aria-labelledby="refusals-title"] tbody tr').allTextContents();
    expect(refusals).toHaveLength(3);
    expect(await screenProblems(page)).toEqual([]);
    await screenshots(page, 'relatorio');
    await docImage(page, 'relatorio', { fullPage: true });

    const download = page.waitForEvent('download');
    await page.getByRole('link', { name: 'Baixar CSV' }).click();
    const csv = fs.readFileSync(await (await download).path(), 'utf8');
    expect(csv.trim().split(/\r?\n/).length).toBeGreaterThan(1);

    // Another day has nothing.
    await page.getByLabel('Data').fill('2026-11-20');
    await page.getByRole('button', { name: 'Ver' }).click();
    await page.getByRole('heading', { name: 'Relatório do dia 20/11/2026' }).waitFor();
    await page.getByText('Nenhuma recusa no dia.').waitFor();
  });
});
