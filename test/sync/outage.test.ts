import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Fault } from '../support/fault-proxy.js';
import { startFakeCloud, type FakeCloud } from '../support/fake-cloud.js';
import { makeOrder } from '../support/fixtures.js';
import { createTickingClock, eventually, startGate, type Gate } from '../support/sync-gate.js';

let cloud: FakeCloud;
let gate: Gate | undefined;
const clock = createTickingClock();

beforeEach(async () => {
  cloud = await startFakeCloud({ clock, recordRequests: true });
});
afterEach(async () => {
  await gate?.close();
  gate = undefined;
  await cloud.close();
});

const syncStatus = async (g: Gate) => (await g.local(g.keys.local, '/api/local/sync')).body.data;
const pending = (g: Gate) =>
  (g.db.sqlite.prepare(`select count(*) as n from sync_push where status = 'pendente'`).get() as { n: number }).n;

describe('outage and transient faults', () => {
  it('10,000 check-ins made during an outage all reach the cloud after it comes back, each exactly once', async () => {
    const ORDERS = 2_500;
    cloud.addOrders(
      Array.from({ length: ORDERS }, (_, i) =>
        makeOrder({ numero: `20261121-${String(i).padStart(4, '0')}`, prefix: `O${i}`, people: 4 }),
      ),
    );
    // Pages of 1,000 orders made by the fake cloud in this same process: over 10 s on a loaded machine.
    gate = await startGate(cloud, clock, {
      timeoutMs: 60_000,
      config: { tuning: { pull: { pageSize: 1000 }, push: { batchSize: 200, concurrency: 2 } } },
    });
    await gate.worker.pullNow();
    const qrs = Array.from({ length: ORDERS * 4 }, (_, i) => `O${Math.floor(i / 4)}-${(i % 4) + 1}`);

    await cloud.proxy.down();
    gate.worker.start();
    // Four turnstiles with their operators, 200 codes per batch request at the gate.
    for (let i = 0; i < qrs.length; i += 200) {
      const res = await gate.app.inject({
        method: 'POST',
        url: '/api/v1/api-qrcode-checkin',
        headers: { 'x-api-key': gate.keys.checkin },
        payload: {
          qr_code: qrs.slice(i, i + 200).join(','),
          terminal: `catraca-${(i / 200) % 4}`,
          operador: `op-${(i / 200) % 2}`,
        },
      });
      expect(res.json().data.total_sucesso).toBe(200);
    }
    await eventually('the worker notices the outage', async () => (await syncStatus(gate!)).online === false);
    const during = await syncStatus(gate);
    expect(during.fila.pendentes).toBe(10_000);
    expect(during.ultimo_erro.mensagem).toMatch(/conexão recusada/);
    expect(cloud.applied()).toHaveLength(0);

    await cloud.proxy.up();
    // What the box says is waiting: the outbox's pending rows and the events not yet copied into it.
    await eventually('every event pushed', async () => (await syncStatus(gate!)).fila.pendentes === 0, 120_000, 50);
    expect(pending(gate)).toBe(0);

    const counts = cloud.appliedCounts();
    expect(counts.size).toBe(10_000);
    expect([...counts.values()].every((n) => n === 1)).toBe(true);
    expect(qrs.every((qr) => counts.get(`checkin:${qr}`) === 1)).toBe(true);
    const byTerminal = new Map<string, number>();
    for (const r of cloud.applied())
      byTerminal.set(`${r.terminal}/${r.operador}`, (byTerminal.get(`${r.terminal}/${r.operador}`) ?? 0) + 1);
    const atGate = gate.db.sqlite
      .prepare(`select terminal || '/' || operador as k, count(*) as n from events where result = 'ok' group by k`)
      .all() as { k: string; n: number }[];
    expect(Object.fromEntries(byTerminal)).toEqual(Object.fromEntries(atGate.map((r) => [r.k, r.n])));
    expect(byTerminal.size).toBe(4);
    const after = await syncStatus(gate);
    expect(after).toMatchObject({
      online: true,
      fila: { pendentes: 0 },
      resultados: { aceito: 10_000, ja_utilizado_na_nuvem: 0, outro: 0 },
    });
    // No batch mixed terminals or operators, and none went past its size.
    const posts = cloud.proxy.requests
      .filter((r) => r.method === 'POST' && r.fault === null)
      .map((r) => JSON.parse(r.body) as { qr_code: string });
    expect(posts.every((b) => b.qr_code.split(',').length <= 200)).toBe(true);
  }, 180_000); // 6 s on a quiet machine, 50 s at a load of 9 on 2 cores

  const faults: [string, Fault, RegExp][] = [
    ['a 500', { kind: 'status', status: 500 }, /erro do servidor da nuvem: HTTP 500/],
    ['malformed JSON', { kind: 'malformed' }, /resposta que não é JSON/],
    ['a hang (timeout)', { kind: 'hang' }, /tempo esgotado/],
  ];
  for (const [name, fault, message] of faults) {
    it(`push and pull back off on ${name}, then recover`, async () => {
      cloud.addOrders([makeOrder({ numero: '20261121-0001', prefix: 'T', people: 2 })]);
      // Only the hang needs a short timeout, and not too short: the pull before the fault must get its answer on a
      // loaded machine.
      gate = await startGate(cloud, clock, fault.kind === 'hang' ? { timeoutMs: 2_000 } : {});
      await gate.worker.pullNow();
      await gate.checkin(gate.keys.checkin, 'T-1');
      cloud.proxy.inject({ fault });
      cloud.addOrders([makeOrder({ numero: '20261121-0002', prefix: 'U', people: 1 })]);

      gate.worker.start();
      // Push and pull run on their own schedules: the first failure sets offline, the other may come later.
      const faulted = () => cloud.proxy.requests.filter((r) => r.fault !== null);
      await eventually('offline with the reason, after both a push and a pull met the fault', async () => {
        const s = await syncStatus(gate!);
        return (
          s.online === false &&
          message.test(s.ultimo_erro?.mensagem ?? '') &&
          faulted().some((r) => r.method === 'POST') &&
          faulted().some((r) => r.method === 'GET')
        );
      });
      expect(pending(gate)).toBe(1);
      expect(faulted().filter((r) => r.method === 'POST').length).toBeGreaterThanOrEqual(1);
      expect(faulted().filter((r) => r.method === 'GET').length).toBeGreaterThanOrEqual(1);
      cloud.proxy.clear();
      await eventually(
        'recovered: pushed and pulled',
        () => pending(gate!) === 0 && gate!.person('U-1') !== undefined,
        60_000,
      );
      expect(cloud.appliedCounts().get('checkin:T-1')).toBe(1);
      expect(gate.outbox()[0]).toMatchObject({ resultado: 'aceito' });
      expect((await syncStatus(gate)).online).toBe(true);
    });
  }

  it('backs off with growing, jittered delays while the cloud refuses connections', async () => {
    cloud.addOrders([makeOrder({ numero: '20261121-0001', prefix: 'R', people: 1 })]);
    gate = await startGate(cloud, clock, {
      config: { pullSeconds: 3600, tuning: { backoff: { baseMs: 40, maxMs: 400 } } },
    });
    await gate.worker.pullNow();
    await gate.checkin(gate.keys.checkin, 'R-1');
    await cloud.proxy.down();
    const attempts: number[] = [];
    const row = () =>
      gate!.db.sqlite.prepare('select attempts, next_attempt_at, last_sent_at from sync_push').get() as {
        attempts: number;
        next_attempt_at: string;
        last_sent_at: string;
      };
    gate.worker.start();
    await eventually(
      'five attempts',
      () => {
        const r = row();
        if (r && r.attempts > attempts.length) attempts.push(Date.parse(r.last_sent_at));
        return attempts.length >= 5;
      },
      10_000,
      2,
    );
    const gaps = attempts.slice(1).map((t, i) => t - attempts[i]!);
    // Each wait is at least half of its doubling ceiling (40, 80, 160, 320 ms): 20, 40, 80, 160 ms at least.
    gaps.forEach((g, i) => expect(g).toBeGreaterThanOrEqual(Math.min(400, 40 * 2 ** i) / 2 - 5));
    await cloud.proxy.up();
    await eventually('pushed once the cloud is back', () => pending(gate!) === 0, 30_000);
    expect(cloud.appliedCounts().get('checkin:R-1')).toBe(1);
  });
});
