import type { ChildProcess } from 'node:child_process';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { addDays, createClock } from '../../src/clock.js';
import { migrateToLatest, openDatabase } from '../../src/db/open.js';
import { ensureTenant } from '../../src/tenants/tenants.repo.js';
import { TZ } from '../support/box.js';
import { startFakeCloud, type FakeCloud } from '../support/fake-cloud.js';
import { makeOrder } from '../support/fixtures.js';
import { ensureBuilt, serveGate } from '../support/gate-process.js';
import { eventually } from '../support/sync-gate.js';
import { tempDir } from '../support/temp.js';

// The real `gate serve` killed with SIGKILL while it stores a page of the incremental pull: the page is
// kept (sync_inbox) and each piece's commit moves `applied` with the orders it stored; the next start
// stores the rest of the page, which the cloud never sends again (it marked it when it answered).

const clock = createClock(TZ);
// Beyond the use dates refreshed at start (today and the next 3 days): only the kept pages bring these back.
const FAR = addDays(clock.today(), 30);
const ORDERS = 4_000;
const numero = (i: number) => `20261125-${String(i).padStart(4, '0')}`;
let cloud: FakeCloud;
const children: ChildProcess[] = [];

beforeAll(async () => {
  ensureBuilt();
  cloud = await startFakeCloud({ clock, recordRequests: false });
  cloud.addOrders(
    Array.from({ length: ORDERS }, (_, i) =>
      makeOrder({ numero: numero(i), prefix: `K${i}`, people: 2, dataUso: FAR }),
    ),
  );
});
afterAll(async () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  await cloud.close();
});

async function serve(dir: string) {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    GATE_DATA_DIR: dir,
    GATE_HOST: '127.0.0.1',
    GATE_PORT: '0',
    GATE_TENANT: 'parque',
    GATE_LOG_LEVEL: 'info',
    GATE_CLOUD_URL: cloud.url,
    GATE_CLOUD_API_KEY: cloud.keys.box,
    GATE_CLOUD_INTEGRATION_KEY: cloud.keys.integration,
    GATE_SYNC_PULL_SECONDS: '0.2',
  };
  delete env.GATE_CONFIG;
  const served = await serveGate(env, dir, children);
  const exited = new Promise<void>((resolve) => served.child.once('exit', () => resolve()));
  return { ...served, exited };
}

interface Kept {
  id: number;
  applied: number;
  body: Buffer;
}
/** Order numbers of a kept page, in the order the cloud sent them (the kept body is gzipped JSON). */
const pageOrders = (k: Kept) =>
  (JSON.parse(gunzipSync(k.body).toString()) as { data: { pedidos: { numero_pedido: string }[] } }).data.pedidos.map(
    (o) => o.numero_pedido,
  );

it('kill -9 in the middle of a page: the next start stores the rest of it, each order exactly once', async () => {
  const dir = tempDir('gate-ingest-kill-');
  const file = path.join(dir, 'gate.db');
  const setup = openDatabase(file);
  await migrateToLatest(setup);
  ensureTenant(setup, 'parque', clock.nowIso());
  setup.close();

  const first = await serve(dir);
  // A second connection, as `sqlite3` would be: it only reads.
  const look = new Database(file);
  const midPage = look.prepare('select 1 from sync_inbox where applied > 0 and applied < 1000');
  await eventually('a page partly stored', () => midPage.get() !== undefined, 60_000, 1);
  first.child.kill('SIGKILL');
  await first.exited;

  const kept = look.prepare('select id, applied, body from sync_inbox order by id').all() as Kept[];
  const stored = new Map(
    (look.prepare('select numero_pedido as n, revision as r from orders').all() as { n: string; r: number }[]).map(
      (o) => [o.n, o.r],
    ),
  );
  expect(kept.length).toBeGreaterThan(0);
  expect(stored.size).toBeLessThan(ORDERS);
  // The journal says exactly what is stored: each kept page's orders before `applied`, none after.
  for (const k of kept) {
    const orders = pageOrders(k);
    expect(orders.slice(0, k.applied).every((n) => stored.has(n))).toBe(true);
    expect(orders.slice(k.applied).some((n) => stored.has(n))).toBe(false);
  }
  // The cloud marked those pages when it answered: only the kept copies can bring their rest back.
  const marked = new Set(
    (
      cloud.db.sqlite
        .prepare(
          `select distinct o.numero_pedido as n from voucher_marks m join people p on p.id = m.person_id
            join orders o on o.id = p.order_id`,
        )
        .all() as { n: string }[]
    ).map((r) => r.n),
  );
  const inKept = new Set(kept.flatMap(pageOrders));
  expect(inKept.size).toBeGreaterThan(0);
  expect([...inKept].every((n) => marked.has(n))).toBe(true);
  // A page on the wire at the kill (read while the one before was stored) was marked and never kept: the mark-on-read
  // gap that the refreshes cover (docs/sync.md); these orders are a month ahead, so only the night's would.
  const onTheWire = new Set([...marked].filter((n) => !stored.has(n) && !inKept.has(n)));
  expect(onTheWire.size).toBeLessThanOrEqual(1000);
  const expected = Array.from({ length: ORDERS }, (_, i) => numero(i)).filter((n) => !onTheWire.has(n));

  const second = await serve(dir);
  await eventually(
    'every order stored and the kept pages done',
    () =>
      (look.prepare('select count(*) as n from orders').get() as { n: number }).n === expected.length &&
      (look.prepare('select count(*) as n from sync_inbox').get() as { n: number }).n === 0,
    60_000,
    20,
  );
  second.child.kill('SIGTERM');
  await second.exited;

  const after = look.prepare('select numero_pedido as n, revision as r from orders').all() as {
    n: string;
    r: number;
  }[];
  expect(after.map((o) => o.n).sort()).toEqual(expected);
  expect((look.prepare('select count(*) as n from people').get() as { n: number }).n).toBe(2 * expected.length);
  // Not applied again: what the first run stored keeps the revision it wrote.
  expect(after.filter((o) => stored.has(o.n) && stored.get(o.n) !== o.r)).toEqual([]);
  look.close();
}, 120_000);
