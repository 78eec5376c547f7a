import { afterEach, beforeEach, expect, it } from 'vitest';
import type { MovePolicy } from '../../src/checkin/movement.settings.js';
import { createOperator } from '../../src/operators/operators.repo.js';
import { startFakeCloud, type FakeCloud } from '../support/fake-cloud.js';
import { makeOrder } from '../support/fixtures.js';
import { createTickingClock, startGate, type Gate } from '../support/sync-gate.js';

// Issue 22, defect 6.2: exits and re-entries are the box's own facts, never sent to the cloud, so the
// "waiting to be sent" count that staff watch before replacing a box (docs/operations.md) must not
// count them. Three readers show that count: /api/local/sync, the console's sync panel and /metrics.

let cloud: FakeCloud;
let gate: Gate;
const clock = createTickingClock();

beforeEach(async () => {
  cloud = await startFakeCloud({ clock });
  gate = await startGate(cloud, clock);
  cloud.addOrders([makeOrder({ numero: '20261121-0001', prefix: 'M', people: 3 })]);
  await gate.worker.pullNow();
});
afterEach(async () => {
  await gate.close();
  await cloud.close();
});

const policy = (direction: MovePolicy['direction']): MovePolicy => ({
  direction,
  area: 'parque',
  reentrada: 'mesmo_dia',
  saidaSemEntrada: 'liberar',
  capacity: null,
});
const lane = (qr: string, direction: MovePolicy['direction']) =>
  gate.service.move(
    { code: qr, terminal: `pista-${direction}`, operator: 'pista' },
    { tenantId: gate.tenantId, apiKeyId: null, keyName: null, source: 'lane' },
    policy(direction),
  );
const exitByApi = async (qr: string) =>
  (
    await gate.app.inject({
      method: 'POST',
      url: '/api/local/saida',
      headers: { 'x-api-key': gate.keys.checkin },
      payload: { qr_code: qr, terminal: 'portao-2', operador: 'ana' },
    })
  ).json();

async function consoleGet() {
  await createOperator(gate.db, {
    tenantId: gate.tenantId,
    nome: 'Sofia',
    papel: 'supervisor',
    segredo: '4321',
    nowIso: clock.nowIso(),
  });
  const signIn = await gate.app.inject({
    method: 'POST',
    url: '/api/console/entrar',
    payload: { nome: 'Sofia', segredo: '4321', tenant: 'parque' },
  });
  const cookie = String(signIn.headers['set-cookie']).split(';')[0]!;
  return async (url: string) => (await gate.app.inject({ method: 'GET', url, headers: { cookie } })).json();
}

/** What each of the three readers says is waiting to be sent. */
async function waiting(consoleApi: (url: string) => Promise<any>) {
  const status = (await gate.local(gate.keys.local, '/api/local/sync')).body.data;
  const panel = (await consoleApi('/api/console/sync')).data;
  const metrics = (await gate.app.inject({ method: 'GET', url: '/metrics', remoteAddress: '127.0.0.1' })).body;
  const gauge = Number(/^gate_sync_events_waiting (\S+)$/m.exec(metrics)?.[1]);
  return { api: status.fila.pendentes, console: panel.eventos_pendentes, metrics: gauge };
}
const all = (n: number) => ({ api: n, console: n, metrics: n });

it('after the last check-in is sent, exits and re-entries leave nothing waiting on any reader; a check-in made offline still counts', async () => {
  const consoleApi = await consoleGet();
  expect((await gate.checkin(gate.keys.checkin, 'M-1')).status).toBe(200);
  expect((await gate.checkin(gate.keys.checkin, 'M-2')).status).toBe(200);
  expect(await waiting(consoleApi)).toEqual(all(2));
  expect(await gate.worker.pushNow()).toMatchObject({ settled: 2, pending: 0 });
  expect(await waiting(consoleApi)).toEqual(all(0));

  // An evening of exits and re-entries, at a lane and through the handheld's exit door.
  expect((await exitByApi('M-1')).data).toMatchObject({ movimento: 'saida', sem_entrada: false });
  expect(await lane('M-1', 'entrada')).toMatchObject({ ok: true, movement: 'reentrada' });
  expect(await lane('M-1', 'saida')).toMatchObject({ ok: true, movement: 'saida' });
  expect(await lane('M-2', 'saida')).toMatchObject({ ok: true, movement: 'saida' });
  expect(await lane('M-2', 'entrada')).toMatchObject({ ok: true, movement: 'reentrada' });
  expect((await exitByApi('M-3')).data).toMatchObject({ movimento: 'saida', sem_entrada: true });
  expect(await waiting(consoleApi)).toEqual(all(0));
  // The worker's next round has nothing to send and the count stays at 0.
  expect(await gate.worker.pushNow()).toMatchObject({ settled: 0, pending: 0 });
  expect(await waiting(consoleApi)).toEqual(all(0));
  expect(cloud.applied().map((r) => `${r.action}:${r.qr_code}`)).toEqual(['checkin:M-1', 'checkin:M-2']);

  // What will be sent is never hidden: a check-in made with the cloud unreachable counts before the
  // worker copies it into the outbox and after its send failed, exits after it included.
  await cloud.proxy.down();
  expect((await gate.checkin(gate.keys.checkin, 'M-3')).status).toBe(200);
  expect(await lane('M-1', 'saida')).toMatchObject({ ok: true, movement: 'saida' });
  expect(await waiting(consoleApi)).toEqual(all(1));
  await expect(gate.worker.pushNow()).rejects.toThrow();
  expect(await lane('M-3', 'saida')).toMatchObject({ ok: true, movement: 'saida' });
  expect(await waiting(consoleApi)).toEqual(all(1));

  await cloud.proxy.up();
  // Past the failed send's backoff (at most FAST's 200 ms), so the retry is due.
  clock.advance(1_000);
  expect(await gate.worker.pushNow()).toMatchObject({ settled: 1, pending: 0 });
  expect(await waiting(consoleApi)).toEqual(all(0));
});
