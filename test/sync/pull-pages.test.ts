import { afterEach, beforeEach, expect, it } from 'vitest';
import { pedidoSchema } from '../../src/orders/order.schemas.js';
import { upsertOrder } from '../../src/orders/orders.repo.js';
import { makeClient } from '../clients/client-data.js';
import { startFakeCloud, type FakeCloud } from '../support/fake-cloud.js';
import { makeOrder } from '../support/fixtures.js';
import { createTickingClock, eventually, startGate, type Gate } from '../support/sync-gate.js';

// A page of the incremental pull is marked by the cloud the moment it answers: the box keeps it
// (sync_inbox) before storing it in short pieces between check-ins (src/sync/pull.ts).

let cloud: FakeCloud;
const gates: Gate[] = [];
const clock = createTickingClock();
// Beyond the use dates refreshed at start and after a failure (today + 2): only the kept page can bring these back.
const FAR = '2026-12-25';

beforeEach(async () => {
  cloud = await startFakeCloud({ clock });
});
afterEach(async () => {
  for (const g of gates.splice(0)) await g.close();
  await cloud.close();
});

const count = (g: Gate, sql: string) => (g.db.sqlite.prepare(sql).get() as { n: number }).n;
const farOrders = (n: number, prefix: string) =>
  Array.from({ length: n }, (_, i) =>
    makeOrder({
      numero: `20261125-${String(i + 1).padStart(4, '0')}`,
      prefix: `${prefix}${i}`,
      people: 2,
      dataUso: FAR,
    }),
  );

it('a marked page whose storing fails half-way is finished after a restart, although the cloud never sends it again', async () => {
  cloud.addOrders(farOrders(300, 'PG'));
  const first = await startGate(cloud, clock);
  gates.push(first);
  // The disk refuses one person of the page (a TEMP trigger lives and dies with this connection).
  first.db.sqlite.exec(
    `CREATE TEMP TRIGGER disco BEFORE INSERT ON people WHEN NEW.qr_code = 'PG250-1' BEGIN SELECT RAISE(ABORT, 'disco indisponível'); END`,
  );
  await expect(first.worker.pullNow()).rejects.toThrow(/disco indisponível/);
  const storedBefore = count(first, `select count(*) as n from orders`);
  expect(storedBefore).toBeGreaterThan(0);
  expect(storedBefore).toBeLessThan(300);
  expect(count(first, `select count(*) as n from sync_inbox`)).toBe(1);
  // The cloud has forgotten the page for the box's key.
  const again = await first.client.listVouchers({ sincronizado: false, marcar: false, limit: 1000, offset: 0 });
  expect(again.received).toBe(0);
  await first.close(false);
  gates.pop();

  const second = await startGate(cloud, clock, { dir: first.dir, keys: first.keys });
  gates.push(second);
  await second.worker.pullNow();
  expect(count(second, `select count(*) as n from orders`)).toBe(300);
  expect(count(second, `select count(*) as n from people`)).toBe(600);
  expect(count(second, `select count(*) as n from sync_inbox`)).toBe(0);
  expect(second.person('PG250-1')?.status).toBe('pago');
});

it('a check-in is answered while a 1,000-order page is being stored, not after it', async () => {
  cloud.addOrders(farOrders(1000, 'BIG'));
  const gate = await startGate(cloud, clock, { config: { tuning: { pull: { pageSize: 1000, maxPages: 10 } } } });
  gates.push(gate);
  gate.db.sqlite.transaction(() =>
    upsertOrder(
      gate.db,
      gate.tenantId,
      pedidoSchema.parse(makeOrder({ numero: '20261121-0001', prefix: 'LOCAL', dataUso: '2026-11-21' })),
      clock.nowIso(),
    ),
  )();

  let pullDone = false;
  const pull = gate.worker.pullNow().then(() => (pullDone = true));
  await eventually('the page being stored', () => count(gate, `select count(*) as n from orders`) > 1, 60_000, 1);
  const answer = await gate.checkin(gate.keys.checkin, 'LOCAL-1');
  expect(answer.status).toBe(200);
  // Before this change the page was one transaction: the check-in waited for all of it.
  expect(pullDone).toBe(false);
  expect(count(gate, `select count(*) as n from orders`)).toBeLessThan(1001);
  await pull;
  expect(count(gate, `select count(*) as n from orders`)).toBe(1001);
  expect(gate.person('LOCAL-1')?.checkin_em).not.toBeNull();
});

it('clients come in pieces too: a full page of 500 and the rest, every client once, the marked pages not asked again', async () => {
  cloud.addClients(Array.from({ length: 620 }, (_, i) => makeClient(`cli-${i}`)));
  const gate = await startGate(cloud, clock);
  gates.push(gate);
  await gate.worker.pullNow();
  expect(count(gate, `select count(*) as n from clients`)).toBe(620);
  // The edges of the pieces (50) and of the pages (500) are all there.
  const ids = ['cli-0', 'cli-49', 'cli-50', 'cli-499', 'cli-500', 'cli-619'];
  expect(
    count(gate, `select count(*) as n from clients where cliente_id in (${ids.map((i) => `'${i}'`).join(',')})`),
  ).toBe(ids.length);
  const again = await gate.client.listClients({ sincronizado: false, marcar: false, limit: 500, offset: 0 });
  expect(again.received).toBe(0);
});
