import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startFakeCloud, type FakeCloud } from '../support/fake-cloud.js';
import { makeOrder } from '../support/fixtures.js';
import { createTickingClock, eventually, startGate, type Gate } from '../support/sync-gate.js';

let cloud: FakeCloud;
let gate: Gate | undefined;
const clock = createTickingClock();
const PEOPLE = 600;
const qrs = Array.from({ length: PEOPLE }, (_, i) => `R${Math.floor(i / 4)}-${(i % 4) + 1}`);
const config = { tuning: { push: { batchSize: 50, concurrency: 2 } } };

beforeEach(async () => {
  cloud = await startFakeCloud({ clock });
  cloud.addOrders(
    Array.from({ length: PEOPLE / 4 }, (_, i) =>
      makeOrder({ numero: `20261121-${String(i).padStart(4, '0')}`, prefix: `R${i}`, people: 4 }),
    ),
  );
});
afterEach(async () => {
  await gate?.close();
  gate = undefined;
  await cloud.close();
});

/** Check-ins at the gate while the cloud is away, so they all wait in the outbox. */
async function queueCheckins(g: Gate) {
  await g.worker.pullNow();
  await cloud.proxy.down();
  for (let i = 0; i < qrs.length; i += 100) {
    const res = await g.app.inject({
      method: 'POST',
      url: '/api/v1/api-qrcode-checkin',
      headers: { 'x-api-key': g.keys.checkin },
      payload: { qr_code: qrs.slice(i, i + 100).join(','), terminal: 't1', operador: 'op' },
    });
    expect(res.json().data.total_sucesso).toBe(100);
  }
  await cloud.proxy.up();
}

/** Reopens the same database file with a new worker and pushes until the outbox is empty. */
async function restartAndDrain(dir: string, keys: Gate['keys']) {
  gate = await startGate(cloud, clock, { dir, keys, config });
  await eventually('outbox drained after the restart', async () => {
    await gate!.worker.pushNow().catch(() => undefined);
    return gate!.outbox().every((r) => r.status === 'concluido');
  });
  return gate;
}

function expectExactlyOnce(g: Gate) {
  const counts = cloud.appliedCounts();
  expect(counts.size).toBe(PEOPLE);
  expect(qrs.every((qr) => counts.get(`checkin:${qr}`) === 1)).toBe(true);
  expect(g.outbox()).toHaveLength(PEOPLE);
  expect(g.outbox().every((r) => r.resultado === 'aceito')).toBe(true);
}

describe('a restart in the middle of a push', () => {
  it('stopping the worker and closing the database while batches are in flight: the next start resumes, each event applied once', async () => {
    const first = await startGate(cloud, clock, { config });
    gate = first;
    await queueCheckins(first);
    // Slow answers: the cloud applies the batches after the box stopped waiting for them.
    cloud.proxy.inject({ fault: { kind: 'slow', ms: 300 }, match: { method: 'POST' }, times: 2 });
    const pushing = first.worker.pushNow().catch((e: unknown) => e);
    await eventually('two batches in flight', () => cloud.proxy.count({ method: 'POST' }) >= 2, 30_000, 5);
    await first.close(false);
    gate = undefined;
    expect(String(await pushing)).toMatch(/interrompido/);
    await new Promise((r) => setTimeout(r, 400)); // the slow batches land in the cloud meanwhile

    const second = await restartAndDrain(first.dir, first.keys);
    expectExactlyOnce(second);
    // The interrupted batches were sent again and recognised as the box's own earlier attempt.
    const retried = second.outbox().filter((r) => r.attempts === 2);
    expect(retried).toHaveLength(100);
    expect(retried.every((r) => r.cloud_code === 'TICKET_ALREADY_USED')).toBe(true);
  });

  it('a crash (database gone under the worker) after the cloud applied a batch: nothing lost, nothing applied twice', async () => {
    const first = await startGate(cloud, clock, { config });
    gate = first;
    await queueCheckins(first);
    cloud.proxy.inject({ fault: { kind: 'slow', ms: 200 }, match: { method: 'POST' }, times: 1 });
    const pushing = first.worker.pushNow().catch((e: unknown) => e);
    await eventually('a batch in flight', () => cloud.proxy.count({ method: 'POST' }) >= 1, 30_000, 5);
    first.db.close(); // as if the process died: no stop, no bookkeeping after the send
    expect(String(await pushing)).toMatch(/not open|closed/i);
    await first.worker.stop();
    await first.client.close();
    await first.app.close();

    const second = await restartAndDrain(first.dir, first.keys);
    expectExactlyOnce(second);
    expect(second.outbox().filter((r) => r.attempts > 1).length).toBeGreaterThanOrEqual(1);
  });
});
