import { afterAll, beforeAll, expect, it } from 'vitest';
import { startFakeCloud, type FakeCloud } from '../support/fake-cloud.js';
import { makeOrder } from '../support/fixtures.js';
import { createTickingClock, eventually, startGate, type Gate } from '../support/sync-gate.js';

// Real timers and the production pull interval (GATE_SYNC_PULL_SECONDS default, 5 s): the freshness
// target while online is 10 s for a new paid order and for a cancellation.
let cloud: FakeCloud;
let gate: Gate;
const clock = createTickingClock();

beforeAll(async () => {
  cloud = await startFakeCloud({ clock, recordRequests: false });
  gate = await startGate(cloud, clock, { config: { pullSeconds: 5, pushSeconds: 1 } });
  gate.worker.start();
  await eventually(
    'first refresh done',
    async () => (await gate.local(gate.keys.local, '/api/local/sync')).body.data.ultimo_pull_ok_em !== null,
  );
});
afterAll(async () => {
  await gate.close();
  await cloud.close();
});

it('a paid order created in the cloud is accepted at the gate within 10 s, and its cancellation refused within 10 s', async () => {
  cloud.addOrders([makeOrder({ numero: '20261121-0777', prefix: 'NEW', people: 2 })]);
  const arrived = await eventually('the order reaches the box', () => gate.person('NEW-1') !== undefined, 10_000, 25);
  expect((await gate.checkin(gate.keys.checkin, 'NEW-1')).status).toBe(200);
  expect(arrived).toBeLessThan(10_000);

  cloud.setStatus('20261121-0777', 'cancelado');
  const cancelled = await eventually(
    'the cancellation reaches the box',
    () => gate.person('NEW-2')?.status === 'cancelado',
    10_000,
    25,
  );
  const refused = await gate.checkin(gate.keys.checkin, 'NEW-2');
  expect([refused.status, refused.body.error.code]).toEqual([403, 'TICKET_CANCELLED']);
  expect(cancelled).toBeLessThan(10_000);
}, 30_000);
