import { afterEach, beforeEach, expect, it } from 'vitest';
import { startFakeCloud, type FakeCloud } from '../support/fake-cloud.js';
import { makeOrder } from '../support/fixtures.js';
import { createTickingClock, startGate, type Gate } from '../support/sync-gate.js';

// The cloud's Date header against the box's clock (issue 13): the fake cloud answers through its
// proxy with a Date header (IMF-fixdate, whole seconds) from its clock, moved by setDateSkew.

let cloud: FakeCloud;
let gate: Gate;
let clock: ReturnType<typeof createTickingClock>;

beforeEach(async () => {
  clock = createTickingClock();
  cloud = await startFakeCloud({ clock });
  gate = await startGate(cloud, clock);
  cloud.addOrders([makeOrder({ numero: '20261121-0001', prefix: 'R', people: 3 })]);
});
afterEach(async () => {
  await gate.close();
  await cloud.close();
});

const ready = async () => (await gate.app.inject({ method: 'GET', url: '/health/ready' })).json();
const metric = async (name: string) => {
  const text = (await gate.app.inject({ method: 'GET', url: '/metrics' })).body;
  return new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1];
};
const eventMarks = async () =>
  (
    (await gate.local(gate.keys.local, '/api/local/eventos?marcar_sincronizado=false')).body.data.eventos as {
      qr_code: string;
      relogio_suspeito: string | null;
    }[]
  ).map((e) => [e.qr_code, e.relogio_suspeito]);

it("a box ten minutes behind the cloud's Date is flagged while it keeps working; a later good answer clears it", async () => {
  await gate.worker.pullNow();
  // Same clock on both sides: nothing to report.
  expect((await ready()).data.partes.relogio).toEqual({ ok: true });
  expect(await metric('gate_clock_suspect')).toBe('0');
  expect(await metric('gate_clock_cloud_skew_seconds')).toBe('0');
  expect((await gate.checkin(gate.keys.checkin, 'R-1')).status).toBe(200);

  cloud.setDateSkew(10 * 60_000);
  await gate.worker.pullNow();
  const flagged = await ready();
  expect(flagged.success).toBe(true);
  expect(flagged.data.partes.relogio).toMatchObject({ ok: false, motivo: 'diferenca_da_nuvem' });
  // The box is behind: its clock minus the cloud's, whole seconds, at least 599 (the header's second and the trip's
  // latency).
  expect(flagged.data.partes.relogio.diferenca_segundos).toBeLessThanOrEqual(-599);
  expect(flagged.data.partes.relogio.diferenca_segundos).toBeGreaterThanOrEqual(-601);
  expect(flagged.data.partes.relogio.mensagem).toMatch(
    /^relógio da caixa difere (599|600|601) s da nuvem \(atrasado\): acerte a hora/,
  );
  expect(await metric('gate_clock_suspect')).toBe('1');
  expect(Number(await metric('gate_clock_cloud_skew_seconds'))).toBeLessThanOrEqual(-599);

  // Check-ins go on, marked; the push still delivers them (the cloud's API has no field for the mark).
  expect((await gate.checkin(gate.keys.checkin, 'R-2')).status).toBe(200);
  await gate.worker.pushNow();
  expect(cloud.applied().map((a) => a.qr_code)).toEqual(['R-1', 'R-2']);
  expect(cloud.proxy.requests.some((r) => r.body.includes('relogio'))).toBe(false);

  cloud.setDateSkew(0);
  await gate.worker.pullNow();
  expect((await ready()).data.partes.relogio).toEqual({ ok: true });
  expect(await metric('gate_clock_suspect')).toBe('0');
  expect((await gate.checkin(gate.keys.checkin, 'R-3')).status).toBe(200);
  expect(await eventMarks()).toEqual([
    ['R-1', null],
    ['R-2', 'diferenca_da_nuvem'],
    ['R-3', null],
  ]);
});

it('an answer from a gateway (5xx) is not taken as the cloud’s clock', async () => {
  await gate.worker.pullNow();
  cloud.setDateSkew(-3 * 3600_000);
  cloud.proxy.inject({ fault: { kind: 'status', status: 502 } });
  await expect(gate.worker.pullNow()).rejects.toThrow();
  expect((await ready()).data.partes.relogio).toEqual({ ok: true });
});
