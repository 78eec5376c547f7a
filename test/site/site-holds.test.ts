import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/auth/api-keys.js';
import { createBox } from '../../src/box.js';
import { createFixedClock } from '../../src/clock.js';
import { migrateToLatest, openDatabase } from '../../src/db/open.js';
import { createOperator } from '../../src/operators/operators.repo.js';
import { pedidoSchema } from '../../src/orders/order.schemas.js';
import { upsertOrder } from '../../src/orders/orders.repo.js';
import type { SyncSpec } from '../../src/sync/sync.start.js';
import { ensureTenant } from '../../src/tenants/tenants.repo.js';
import { createTestBox, TZ, type TestBox } from '../support/box.js';
import {
  launchBrowser,
  openConsole,
  signIn,
  startConsoleBox,
  SUPERVISOR,
  type ConsoleBox,
} from '../support/console-browser.js';
import { startFakeCloud, type FakeCloud } from '../support/fake-cloud.js';
import { makeOrder } from '../support/fixtures.js';
import { checkin, reverse } from '../support/http.js';
import { publishUnrecordedClaim, siteLinkOf, startHub, type TestHub } from '../support/site-hub.js';
import { eventually } from '../support/sync-gate.js';
import { tempDir } from '../support/temp.js';

// A box holds a ticket's push for the cloud while an earlier movement of that ticket, made at another box, is not
// settled there (docs/site.md, "The cloud"). A hold must end: a claim its box never recorded (undone on the hub after
// a crash) and its compensation are pushed by nobody, so they hold nothing; any other hold shows, in the sync status
// and on the console, how many wait and until when at the latest.

const BOXES = ['norte', 'sul'];
const NOW = '2026-11-21T13:00:00.000Z';
const DAY = 24 * 3600_000;
const ORDER = makeOrder({ numero: '20261121-0001', prefix: 'S', people: 3 });

let hub: TestHub;
let cloud: FakeCloud;
const open: { close(): Promise<void> }[] = [];
const dirs: string[] = [];
beforeEach(async () => {
  hub = await startHub({ boxes: BOXES });
  cloud = await startFakeCloud({ clock: createFixedClock(TZ, NOW) });
  cloud.addOrders([ORDER]);
});
afterEach(async () => {
  for (const o of open.splice(0).reverse()) await o.close();
  await hub.close();
  await cloud.close();
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

/** sul, with its own key on the cloud; its worker runs only when the test pushes. */
async function sulBox(): Promise<ConsoleBox> {
  const spec: SyncSpec = {
    url: cloud.url,
    apiKey: createApiKey(cloud.db, {
      tenantId: cloud.tenantId,
      name: 'gate-sul',
      permissions: ['vouchers:read', 'vouchers:checkin', 'clientes:read'],
      nowIso: NOW,
    }).key,
    integrationKey: cloud.keys.integration,
    tenant: 'parque',
    timeoutMs: 5000,
    pullSeconds: 60,
    pushSeconds: 60,
    refreshCron: '0 0 1 1 *',
    fullRefreshCron: '0 0 1 1 *',
    daysAhead: 1,
  };
  // Listening, with its console's operators: the Sincronização screen is read in a browser.
  const cb = await startConsoleBox({ siteLink: siteLinkOf(hub, 'sul', BOXES), cloud: spec });
  open.push(cb);
  cb.box.importOrders([ORDER]);
  await eventually('sul on the site', () => cb.box.status.site()?.modo === 'site');
  return cb;
}

/** norte on a database of its own that outlives a run (a crash and a restart), without a cloud. */
async function norteDir(): Promise<string> {
  const dir = tempDir('gate-site-');
  dirs.push(dir);
  const db = openDatabase(path.join(dir, 'gate.db'));
  await migrateToLatest(db);
  upsertOrder(db, ensureTenant(db, 'parque', NOW, 'Parque'), pedidoSchema.parse(ORDER), NOW);
  db.close();
  return dir;
}
async function bootNorte(dir: string) {
  const box = createBox({
    database: path.join(dir, 'gate.db'),
    clock: createFixedClock(TZ, NOW),
    logger: false,
    tenant: 'parque',
    siteLink: siteLinkOf(hub, 'norte', BOXES),
  });
  const started = await box.start();
  const handle = { ...started, close: () => box.close() };
  open.push(handle);
  await eventually('norte on the site', () => started.status.site()?.modo === 'site');
  return handle;
}

/**
 * norte claims a movement of `qr` on the hub and dies before committing it: the claim of one of its database's runs,
 * unrecorded.
 */
async function crashAfterClaim(dir: string, action: 'checkin' | 'estorno' = 'checkin', qr = 'S-1') {
  const first = await bootNorte(dir);
  const runs = JSON.parse((first.db.sqlite.prepare('select runs from site_state').get() as { runs: string }).runs);
  await first.close();
  open.splice(open.indexOf(first), 1);
  const run = (runs as string[]).at(-1)!;
  await publishUnrecordedClaim(hub, { box: 'norte', run, id: `norte.orfa${action}0001`, action, qr, at: NOW });
}

const usedAt = (b: TestBox, qr: string) =>
  (b.db.sqlite.prepare('select checkin_em from people where qr_code = ?').get(qr) as { checkin_em: string | null })
    .checkin_em;

async function fila(b: TestBox) {
  const res = await b.app.inject({ method: 'GET', url: '/api/local/sync', headers: { 'x-api-key': b.keys.all } });
  return res.json().data.fila;
}

/** The supervisor's sync panel, as the console's Sincronização screen reads it (signed in each time: a session lasts
 * less than the day a test may skip). */
async function consolePanel(b: TestBox) {
  await createOperator(b.db, {
    tenantId: b.tenantId,
    nome: 'Sofia',
    papel: 'supervisor',
    segredo: '4321',
    nowIso: NOW,
  });
  return async () => {
    const signIn = await b.app.inject({
      method: 'POST',
      url: '/api/console/entrar',
      payload: { nome: 'Sofia', segredo: '4321', tenant: 'parque' },
    });
    const cookie = String(signIn.headers['set-cookie']).split(';')[0]!;
    return (await b.app.inject({ method: 'GET', url: '/api/console/sync', headers: { cookie } })).json().data;
  };
}

describe('holds for another box’s movement', () => {
  it('a ticket freed by the compensation of a crashed box’s claim, let in at sul, reaches the cloud', async () => {
    const sul = (await sulBox()).box;
    const dir = await norteDir();
    await crashAfterClaim(dir);
    await eventually('the orphan claim applied at sul', () => usedAt(sul, 'S-1') !== null);
    // norte is back: it undoes the claim nobody went through; the ticket is free at sul.
    await bootNorte(dir);
    await eventually('undone at sul', () => usedAt(sul, 'S-1') === null);

    expect((await checkin(sul, { qr_code: 'S-1', terminal: 'sul-1' })).status).toBe(200);
    // Neither norte's claim nor its compensation will ever be pushed or settled by anyone: they hold nothing.
    expect(await sul.sync!.pushNow()).toMatchObject({ settled: 1, pending: 0, held: { count: 0 } });
    expect(cloud.applied().map((r) => [r.action, r.qr_code, r.terminal, r.key_name])).toEqual([
      ['checkin', 'S-1', 'sul-1', 'gate-sul'],
    ]);
    expect(await fila(sul)).toEqual({
      pendentes: 0,
      em_nova_tentativa: 0,
      evento_mais_antigo_em: null,
      proxima_tentativa_em: null,
      aguardando_outra_caixa: 0,
      aguardando_outra_caixa_ate: null,
    });
  });

  it('a ticket let in again at sul after a crashed box’s unrecorded reversal claim reaches the cloud', async () => {
    const sul = (await sulBox()).box;
    expect((await checkin(sul, { qr_code: 'S-2', terminal: 'sul-1' })).status).toBe(200);
    expect(await sul.sync!.pushNow()).toMatchObject({ settled: 1, pending: 0 });
    const dir = await norteDir();
    await crashAfterClaim(dir, 'estorno', 'S-2');
    await eventually('the orphan reversal applied at sul', () => usedAt(sul, 'S-2') === null);
    expect((await checkin(sul, { qr_code: 'S-2', terminal: 'sul-2' })).status).toBe(200);
    // norte is back: nobody will push its reversal, and it tells the site so; sul's check-in is no longer held.
    await bootNorte(dir);
    await eventually('sul’s second check-in settled', async () => (await sul.sync!.pushNow()).pending === 0);
    // The cloud never saw a reversal: the second entry is its double, classified.
    expect(cloud.applied().map((r) => [r.action, r.qr_code, r.terminal])).toEqual([['checkin', 'S-2', 'sul-1']]);
    expect(sul.db.sqlite.prepare('select resultado from sync_push order by event_id').pluck().all()).toEqual([
      'aceito',
      'ja_utilizado_na_nuvem',
    ]);
    expect(await fila(sul)).toMatchObject({ pendentes: 0, aguardando_outra_caixa: 0, proxima_tentativa_em: null });
  });

  it('a reversal held for norte’s unsettled check-in shows how many wait and until when, and goes when the hold ends', async () => {
    const norte = await createTestBox({ siteLink: siteLinkOf(hub, 'norte', BOXES) });
    open.push(norte);
    norte.importOrders([ORDER]);
    await eventually('norte on the site', () => norte.status.site()?.modo === 'site');
    const cb = await sulBox();
    const sul = cb.box;
    const panel = await consolePanel(sul);
    // norte has no cloud: its check-in is never settled, and never told.
    expect((await checkin(norte, { qr_code: 'S-2', terminal: 'norte-1' })).status).toBe(200);
    await eventually('S-2 at sul', () => usedAt(sul, 'S-2') !== null);
    expect((await reverse(sul, { qr_code: 'S-2', terminal: 'sul-1' })).status).toBe(200);
    expect((await checkin(sul, { qr_code: 'S-3', terminal: 'sul-1' })).status).toBe(200);

    const end = new Date(Date.parse(NOW) + DAY).toISOString();
    expect(await sul.sync!.pushNow()).toMatchObject({
      settled: 1,
      pending: 1,
      held: { count: 1, next: end, last: end },
    });
    expect(await fila(sul)).toEqual({
      pendentes: 1,
      em_nova_tentativa: 0,
      evento_mais_antigo_em: NOW,
      proxima_tentativa_em: end,
      aguardando_outra_caixa: 1,
      aguardando_outra_caixa_ate: end,
    });
    expect(await panel()).toMatchObject({ eventos_pendentes: 1, aguardando_outra_caixa: { eventos: 1, ate: end } });
    // What the supervisor sees: the held reversal and when it goes at the latest (10:00 in São Paulo).
    const browser = await launchBrowser();
    open.push(browser);
    const { page } = await openConsole(browser, cb, { hash: '#/sync' });
    await signIn(page, SUPERVISOR, 'supervisao');
    await page.locator('.stats div', { hasText: 'Eventos aguardando envio' }).filter({ hasText: '1' }).waitFor();
    const held = page.locator('.stats div', { hasText: 'Retidos por outra caixa' });
    expect(await held.locator('dd').textContent()).toBe('1, enviados até 22/11 10:00');
    await page.getByText('esperam a nuvem confirmar um movimento anterior do mesmo ingresso').waitFor();

    // A day after norte's check-in, sul no longer waits for it.
    sul.clock.advance(DAY + 1000);
    expect(await sul.sync!.pushNow()).toMatchObject({ settled: 1, pending: 0, held: { count: 0 } });
    expect(cloud.applied().map((r) => [r.action, r.qr_code])).toEqual([['checkin', 'S-3']]);
    expect(await fila(sul)).toMatchObject({
      pendentes: 0,
      aguardando_outra_caixa: 0,
      aguardando_outra_caixa_ate: null,
    });
    expect(await panel()).toMatchObject({ eventos_pendentes: 0, aguardando_outra_caixa: { eventos: 0, ate: null } });
  });
});
