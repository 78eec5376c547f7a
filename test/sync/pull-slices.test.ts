import { afterEach, beforeEach, expect, it } from 'vitest';
import { startFakeCloud, type FakeCloud } from '../support/fake-cloud.js';
import { makeOrder } from '../support/fixtures.js';
import { createTickingClock, startGate, type Gate } from '../support/sync-gate.js';

// A page is stored in pieces, each one commit between scans, bounded in time (sliceMs) and in rows
// (sliceRows: an order, its lots, people and additionals); an order is never split (src/sync/pull.ts).

let cloud: FakeCloud;
let gate: Gate | undefined;
const clock = createTickingClock();
const FAR = '2026-12-25';

beforeEach(async () => {
  cloud = await startFakeCloud({ clock });
});
afterEach(async () => {
  await gate?.close();
  gate = undefined;
  await cloud.close();
});

const orders = (n: number, people: number, from = 0) =>
  Array.from({ length: n }, (_, i) =>
    makeOrder({
      numero: `20261125-${String(from + i).padStart(4, '0')}`,
      prefix: `S${from + i}`,
      people,
      dataUso: FAR,
    }),
  );

/** Orders each commit of the write queue added, for the commits that added any. */
function ordersPerCommit(g: Gate): number[] {
  const count = g.db.sqlite.prepare('select count(*) as n from orders').pluck();
  let last = count.get() as number;
  const added: number[] = [];
  g.db.writes.observe({
    committed() {
      const now = count.get() as number;
      if (now > last) added.push(now - last);
      last = now;
    },
    synced: () => undefined,
    failed: () => undefined,
  });
  return added;
}

it('a piece never writes more rows than sliceRows, however much time it is allowed; a larger order goes alone', async () => {
  // Orders of two people are 4 rows; the one of 20 people is 22, more than a piece may hold.
  cloud.addOrders([...orders(100, 2), ...orders(1, 20, 100), ...orders(50, 2, 101)]);
  gate = await startGate(cloud, clock, {
    config: { tuning: { pull: { pageSize: 1000, sliceMs: 60_000, sliceRows: 12 } } },
  });
  const added = ordersPerCommit(gate);
  await gate.worker.pullNow();
  expect(added.reduce((a, b) => a + b, 0)).toBe(151);
  expect(Math.max(...added)).toBe(3);
  // The large order was stored whole, in a piece of its own: 33 pieces of 3 before it, then 1 before it alone.
  expect(added.slice(0, 35)).toEqual([...Array<number>(33).fill(3), 1, 1]);
  expect(gate.person('S100-20')).toBeDefined();
});

it('a piece stops at its time bound: with no time to spare, one order per commit, none skipped', async () => {
  cloud.addOrders(orders(40, 2));
  gate = await startGate(cloud, clock, {
    config: { tuning: { pull: { pageSize: 1000, sliceMs: 0.000_1, sliceRows: 10_000 } } },
  });
  const added = ordersPerCommit(gate);
  await gate.worker.pullNow();
  expect(added).toEqual(Array<number>(40).fill(1));
});
