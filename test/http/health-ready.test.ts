import { afterEach, expect, it } from 'vitest';
import { offlineLane } from '../support/lanes.js';
import { bootBox, bootWithIdleSync, createTestBox, type TestBox } from '../support/box.js';
import { makeOrder } from '../support/fixtures.js';
import { checkin } from '../support/http.js';

// /health/live and /health/ready (issue 13): ready names every failing part and why; /health stays as it was.

let box: TestBox;
afterEach(async () => box?.close());

const get = async (url: string) => {
  const res = await box.app.inject({ method: 'GET', url });
  return { status: res.statusCode, body: res.json() };
};

it('live answers while the process does; ready checks the database and the migrations, naming what fails', async () => {
  box = await createTestBox();
  expect(await get('/health/live')).toMatchObject({ status: 200, body: { data: { status: 'ok' } } });
  expect(await get('/health/ready')).toMatchObject({
    status: 200,
    body: { data: { status: 'ok', partes: { banco: { ok: true }, migracoes: { ok: true } } } },
  });

  box.db.sqlite.prepare("DELETE FROM kysely_migration WHERE name = '0008_search'").run();
  box.importOrders([makeOrder({ prefix: 'RD' })]);
  box.db.sqlite.pragma('query_only = ON');
  // A check-in finds out the disk cannot be written (503), as on a full disk.
  expect((await checkin(box, { qr_code: 'RD-1' })).status).toBe(503);
  const notReady = await get('/health/ready');
  expect(notReady.status).toBe(503);
  expect(notReady.body.error.code).toBe('SERVICE_UNAVAILABLE');
  expect(notReady.body.error.details.partes).toMatchObject({
    banco: { ok: false },
    migracoes: { ok: false, motivo: 'migrações pendentes: 0008_search (gate migrate)' },
  });
  expect(notReady.body.error.message).toMatch(
    /^Caixa não está pronta: banco: .*; migracoes: migrações pendentes: 0008_search/,
  );
  // Live is about the process, not its parts.
  expect((await get('/health/live')).status).toBe(200);
  box.db.sqlite.pragma('query_only = OFF');
});

it('ready fails while a lane’s relay or scanner is offline, naming the lane and the port', async () => {
  box = await createTestBox({
    lanes: offlineLane('ready', { capacity: 500 }),
  });
  const res = await get('/health/ready');
  expect(res.status).toBe(503);
  expect(res.body.error.details.partes.pistas).toEqual({
    ok: false,
    motivo:
      'entrada-1: relé /tmp/nowhere-ready-relay offline; entrada-1: leitor /tmp/nowhere-ready-scanner desconectado',
  });
});

it('the sync is stuck only when events wait over an hour while the cloud answers; offline is not a failure', async () => {
  box = await createTestBox();
  // The box with a sync worker (never started): the test sets its state by hand.
  await box.app.close();
  const synced = await bootWithIdleSync(box);
  const { app } = synced;
  const { state } = synced.sync!;
  const ask = async () => {
    const r = await app.inject({ method: 'GET', url: '/health/ready' });
    return { status: r.statusCode, body: r.json() };
  };
  const s = box.db.sqlite;
  const eventId = Number(
    s
      .prepare(
        "INSERT INTO events (tenant_id, occurred_at, action, mode, code, qr_code, result, source) VALUES (?, ?, 'checkin', 'qr', 'Q-1', 'Q-1', 'ok', 'api')",
      )
      .run(box.tenantId, box.clock.nowIso()).lastInsertRowid,
  );
  s.prepare("INSERT INTO sync_push (event_id, tenant_id, chave, action) VALUES (?, ?, 'Q-1', 'checkin')").run(
    eventId,
    box.tenantId,
  );
  state.failed(
    new (await import('../../src/sync/cloud-envelopes.js')).CloudUnavailableError('refused', 'ECONNREFUSED'),
  );
  box.clock.advance(2 * 3600_000);
  const offline = await ask();
  expect(offline.status).toBe(200);
  expect(offline.body.data.partes.sincronizacao).toEqual({
    ok: true,
    motivo: 'nuvem inacessível: a caixa segue registrando e envia depois',
  });
  state.succeeded('pull');
  const stuck = await ask();
  expect(stuck.status).toBe(503);
  expect(stuck.body.error.details.partes.sincronizacao.motivo).toMatch(
    /^eventos aguardando envio desde .* com a nuvem respondendo$/,
  );
  await synced.close();
});

it('a clock behind the newest event is reported under relogio without making the box unready; it is never named as the reason for a 503', async () => {
  box = await createTestBox();
  const s = box.db.sqlite;
  s.prepare(
    "INSERT INTO events (tenant_id, occurred_at, action, mode, code, qr_code, result, source) VALUES (?, '2026-11-22T08:00:00.000Z', 'checkin', 'qr', 'Q-1', 'Q-1', 'ok', 'api')",
  ).run(box.tenantId);
  await box.app.close();
  const { app, close: closeBox } = await bootBox({ db: box.db, clock: box.clock, logger: false });
  const ask = async () => {
    const r = await app.inject({ method: 'GET', url: '/health/ready' });
    return { status: r.statusCode, body: r.json() };
  };
  const suspect = await ask();
  expect(suspect.status).toBe(200);
  expect(suspect.body.data.partes.relogio).toMatchObject({
    ok: false,
    motivo: 'atrasado_em_relacao_ao_ultimo_evento',
    agora: '2026-11-21T13:00:00.000Z',
    ultimo_evento_em: '2026-11-22T08:00:00.000Z',
  });
  expect(suspect.body.data.avisos).toEqual([
    expect.stringMatching(
      /^relogio: relógio da caixa \(2026-11-21T13:00:00.000Z\) está antes do último evento registrado/,
    ),
  ]);

  s.prepare("DELETE FROM kysely_migration WHERE name = '0008_search'").run();
  const notReady = await ask();
  expect(notReady.status).toBe(503);
  expect(notReady.body.error.message).toBe(
    'Caixa não está pronta: migracoes: migrações pendentes: 0008_search (gate migrate)',
  );
  expect(notReady.body.error.details.partes.relogio).toMatchObject({
    ok: false,
    motivo: 'atrasado_em_relacao_ao_ultimo_evento',
  });
  await closeBox();
});
