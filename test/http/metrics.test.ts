import { afterEach, expect, it } from 'vitest';
import { offlineLane } from '../support/lanes.js';
import { bootWithIdleSync, createTestBox, type TestBox } from '../support/box.js';
import { makeOrder } from '../support/fixtures.js';
import { checkin } from '../support/http.js';

// GET /metrics (issue 13): Prometheus' text format, open to the box itself, a key with local:read otherwise.

let box: TestBox;
afterEach(async () => box?.close());

const scrape = (headers: Record<string, string> = {}, remoteAddress = '10.0.0.5') =>
  box.app.inject({ method: 'GET', url: '/metrics', headers, remoteAddress });
const value = (text: string, series: string) =>
  Number(new RegExp(`^${series.replace(/[{}"()|.+]/g, '\\$&')} (\\S+)$`, 'm').exec(text)?.[1]);

it('counts scans by door and result with their latency, shows each lane device, and needs local:read from the LAN', async () => {
  box = await createTestBox({
    lanes: offlineLane('metrics', { capacity: 500 }),
  });
  box.importOrders([makeOrder({ prefix: 'MT', dataUso: '2026-11-21', people: 2 })]);
  expect((await checkin(box, { qr_code: 'MT-1' })).status).toBe(200);
  expect((await checkin(box, { qr_code: 'MT-1' })).status).toBe(409);
  expect((await checkin(box, { qr_code: 'NOPE-1' })).status).toBe(404);

  expect((await scrape()).json().error.code).toBe('MISSING_API_KEY');
  expect((await scrape({ authorization: `Bearer ${box.keys.checkin}` })).json().error.code).toBe('PERMISSION_DENIED');
  const res = await scrape({ authorization: `Bearer ${box.keys.all}` });
  expect(res.statusCode).toBe(200);
  expect(res.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
  const text = res.body;
  expect(value(text, 'gate_scans_total{porta="api",acao="checkin",resultado="ok"}')).toBe(1);
  expect(value(text, 'gate_scans_total{porta="api",acao="checkin",resultado="TICKET_ALREADY_USED"}')).toBe(1);
  expect(value(text, 'gate_scans_total{porta="api",acao="checkin",resultado="TICKET_NOT_FOUND"}')).toBe(1);
  expect(value(text, 'gate_scan_duration_seconds_count{porta="api",acao="checkin"}')).toBe(3);
  expect(value(text, 'gate_device_up{pista="entrada-1",dispositivo="rele",porta="/tmp/nowhere-metrics-relay"}')).toBe(
    0,
  );
  expect(
    value(text, 'gate_device_up{pista="entrada-1",dispositivo="leitor",porta="/tmp/nowhere-metrics-scanner"}'),
  ).toBe(0);
  expect(text).toMatch(/^gate_nodejs_eventloop_lag_seconds \S+$/m);
  // The box itself (a local agent) needs no key.
  expect((await scrape({}, '127.0.0.1')).statusCode).toBe(200);
});

it('shows the sync: online, ages of the last good pull and push, events waiting, conflicts by kind', async () => {
  box = await createTestBox();
  const { createSyncState } = await import('../../src/sync/state.js');
  const state = createSyncState(box.db, box.tenantId, box.clock);
  state.succeeded('pull');
  box.clock.advance(90_000);
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
  await box.app.close();
  // The box with a sync worker (never started): what the state above recorded, read back from the database.
  const synced = await bootWithIdleSync(box);
  const text = (await synced.app.inject({ method: 'GET', url: '/metrics' })).body;
  await synced.close();
  expect(value(text, 'gate_sync_online')).toBe(1);
  expect(value(text, 'gate_sync_last_pull_age_seconds')).toBe(90);
  expect(value(text, 'gate_sync_last_push_age_seconds')).toBe(-1);
  expect(value(text, 'gate_sync_events_waiting')).toBe(1);
  expect(value(text, 'gate_sync_conflicts{tipo="fora_do_prazo"}')).toBe(0);
});
