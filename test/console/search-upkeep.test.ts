import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import Database from 'better-sqlite3';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createFixedClock } from '../../src/clock.js';
import { searchOrders } from '../../src/console/search.repo.js';
import { migrateToLatest, openDatabase, type Db } from '../../src/db/open.js';
import { catchUpSearchIndex, MOVE_DOCS } from '../../src/db/search-index.js';
import { upsertOrder } from '../../src/orders/orders.repo.js';
import { pedidoSchema, type PedidoInput } from '../../src/orders/order.schemas.js';
import type { CloudClient, VoucherPage } from '../../src/sync/cloud-client.js';
import { checkedPage } from '../../src/sync/page-splitter.js';
import { createOrderPuller, DEFAULT_PULL } from '../../src/sync/pull.js';
import { createSyncState } from '../../src/sync/state.js';
import { ensureTenant } from '../../src/tenants/tenants.repo.js';
import { gate, openData, writeImportFile } from '../cli/run.js';
import { bootBox, createTestBox, tempDir, TZ, type TestBox } from '../support/box.js';
import { makeOrder } from '../support/fixtures.js';
import { ensureBuilt, serveGate } from '../support/gate-process.js';
import { eventually } from '../support/sync-gate.js';

// The search index's upkeep (src/db/search-index.ts): documents stored by the sync, the import or anything else are
// found from their commit on, moved into the FTS5 tables by the box a bounded piece at a time, and a crash in the
// middle of a move leaves an index that still finds every order.

const numero = (i: number) => `20261125-${String(i).padStart(4, '0')}`;
/** An order whose buyer and people have names and e-mails of their own. */
function order(i: number): PedidoInput {
  const o = makeOrder({ numero: numero(i), prefix: `S${i}`, people: 2 });
  Object.assign(o.cliente, { nome: 'Zuleica', sobrenome: `Ingest${i}z`, email: `zu${i}@ingest.test` });
  o.lotes[0]!.dados = o.lotes[0]!.dados.map((d, k) => ({ ...d, Nome: `Filha${i}z Caju${k}` }));
  return o;
}
const pendingCount = (db: Db) => db.sqlite.prepare('SELECT count(*) FROM search_pending').pluck().get() as number;
const indexed = (db: Db) => db.sqlite.prepare('SELECT count(*) FROM search_names_docsize').pluck().get() as number;

/** Every order i in `which` found by its buyer's surname, a person's name and the buyer's e-mail. */
function expectFound(db: Db, tenantId: number, which: number[]) {
  for (const i of which)
    for (const q of [`ingest${i}z`, `filha${i}z`, `zu${i}@ingest.test`])
      expect(
        searchOrders(db, tenantId, q).map((h) => h.numero_pedido),
        q,
      ).toEqual([numero(i)]);
}

/** Pages of orders from memory, handed to the real puller as the cloud's answers. */
function cloudOf(orders: PedidoInput[], pageSize = 200): CloudClient {
  const pages: VoucherPage[] = [];
  for (let p = 0; p < orders.length; p += pageSize) {
    const list = orders.slice(p, p + pageSize);
    const body = Buffer.from(JSON.stringify({ success: true, data: { pedidos: list } }));
    const checked = checkedPage(list);
    pages.push({ ...checked, refs: checked.refs.map(String), received: list.length, body, packed: gzipSync(body) });
  }
  const empty = { ...checkedPage([]), refs: [], received: 0, body: Buffer.alloc(0), packed: null };
  return { listVouchers: () => Promise.resolve(pages.shift() ?? empty) } as unknown as CloudClient;
}

describe('the box keeps the index', () => {
  let box: TestBox | undefined;
  afterEach(async () => {
    await box?.close();
    box = undefined;
  });

  it('orders stored by the sync are found at once, and after the box moved them into the FTS5 tables', async () => {
    box = await createTestBox();
    const { db, clock, tenantId } = box;
    const ORDERS = 600;
    const state = createSyncState(db, tenantId, clock);
    const client = cloudOf(Array.from({ length: ORDERS }, (_, i) => order(i)));
    const log = { info: () => undefined, warn: () => undefined, error: () => undefined } as never;
    const puller = createOrderPuller({ db, clock, log, client, tenantId, state, tuning: DEFAULT_PULL });
    expect(await puller.incremental(new AbortController().signal)).toBe(ORDERS);

    const sample = [0, 1, 137, 300, 598, ORDERS - 1];
    expectFound(db, tenantId, sample); // pending or moved: found either way
    await eventually('the index caught up', () => pendingCount(db) === 0, 20_000);
    expect(indexed(db)).toBe(ORDERS * 3); // the buyer and two people each
    expectFound(db, tenantId, sample);
  });

  it('moves MOVE_DOCS documents at most per piece of the write queue, scans taking turns, then stops', async () => {
    const dir = tempDir('gate-search-upkeep-');
    const db = openDatabase(path.join(dir, 'gate.db'));
    try {
      await migrateToLatest(db);
      const clock = createFixedClock(TZ, '2026-11-21T13:00:00.000Z');
      const tenantId = ensureTenant(db, 'parque', clock.nowIso());
      // One transaction with no box running (as `gate import` of an older release, or a restore, leaves it).
      const store = (orders: PedidoInput[]) =>
        db.sqlite.transaction(() => {
          for (const o of orders) upsertOrder(db, tenantId, pedidoSchema.parse(o), clock.nowIso());
        })();
      store(Array.from({ length: 1000 }, (_, i) => order(i)));
      expect(pendingCount(db)).toBe(3000);

      const running = await bootBox({ db, clock, logger: false, tenant: 'parque', searchIdleMs: 50 });
      const start = pendingCount(db); // the upkeep's first look is 50 ms after the console started
      expect(start).toBeGreaterThan(10 * MOVE_DOCS);
      const left: number[] = [];
      let lastPiece = performance.now();
      const previous = db.writes.observe({
        committed(priority, units, ms) {
          if (priority === 'background') left.push(pendingCount(db));
          if (priority === 'background') lastPiece = performance.now();
          previous?.committed(priority, units, ms);
        },
        synced: (priority, ms) => previous?.synced(priority, ms),
        failed: (priority, stage) => previous?.failed(priority, stage),
      });
      const scans: Promise<unknown>[] = [];
      const scan = db.sqlite.prepare("UPDATE tenants SET nome = 'Parque' WHERE id = ?");
      await eventually(
        'the index caught up',
        () => {
          scans.push(db.writes.run(() => scan.run(tenantId)));
          return pendingCount(db) === 0;
        },
        20_000,
        1,
      );
      await Promise.all(scans);
      // Then the merges; once they are done an idle box writes nothing (six looks of the upkeep without a piece).
      await eventually('the upkeep went quiet', () => performance.now() - lastPiece > 300, 20_000);
      db.writes.observe(previous);
      await running.close();

      // How many documents each background piece moved: MOVE_DOCS at most, every one of them in the end.
      const moved = left.map((n, i) => (i === 0 ? start : left[i - 1]!) - n).filter((d) => d > 0);
      expect(Math.max(...moved)).toBeLessThanOrEqual(MOVE_DOCS);
      expect(moved.reduce((a, b) => a + b, 0)).toBe(start);
      expect(moved.length).toBeGreaterThanOrEqual(Math.ceil(start / MOVE_DOCS));
      expect(indexed(db)).toBe(3000);
      expectFound(db, tenantId, [0, 500, 999]);
    } finally {
      db.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

it('`gate import` with the box stopped leaves every order in the index, found, nothing pending', async () => {
  const dir = tempDir('gate-search-import-');
  try {
    expect((await gate(dir, ['tenants', 'create', 'parque'])).code).toBe(0);
    const ORDERS = 700; // more than one of the import's transactions of 250
    const file = writeImportFile(dir, { pedidos: Array.from({ length: ORDERS }, (_, i) => order(i)) });
    expect((await gate(dir, ['import', '--tenant', 'parque', file])).code).toBe(0);
    const db = openData(dir);
    try {
      expect([pendingCount(db), indexed(db)]).toEqual([0, 3 * ORDERS]);
      const tenantId = db.sqlite.prepare("SELECT id FROM tenants WHERE slug = 'parque'").pluck().get() as number;
      expectFound(db, tenantId, [0, 249, 250, ORDERS - 1]);
    } finally {
      db.close();
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

describe('kill -9 of `gate serve` while it moves documents', () => {
  const children: ChildProcess[] = [];
  afterAll(() => {
    for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  });

  it('leaves an index that finds every order, pending or moved, and is whole', async () => {
    ensureBuilt();
    const dir = tempDir('gate-search-kill-');
    const file = path.join(dir, 'gate.db');
    const ORDERS = 6000;
    const setup = openDatabase(file);
    await migrateToLatest(setup);
    const clock = createFixedClock(TZ, '2026-11-21T13:00:00.000Z');
    const tenantId = ensureTenant(setup, 'parque', clock.nowIso());
    setup.sqlite.transaction(() => {
      for (let i = 0; i < ORDERS; i++) upsertOrder(setup, tenantId, pedidoSchema.parse(order(i)), clock.nowIso());
    })();
    expect(pendingCount(setup)).toBe(3 * ORDERS);
    setup.close();

    const env: NodeJS.ProcessEnv = { ...process.env, GATE_DATA_DIR: dir, GATE_HOST: '127.0.0.1', GATE_PORT: '0' };
    Object.assign(env, { GATE_TENANT: 'parque', GATE_LOG_LEVEL: 'info' });
    delete env.GATE_CONFIG;
    const served = await serveGate(env, dir, children);
    const exited = new Promise<void>((resolve) => served.child.once('exit', () => resolve()));
    const watch = new Database(file, { readonly: true });
    const waiting = () => watch.prepare('SELECT count(*) FROM search_pending').pluck().get() as number;
    await eventually('the box is moving documents', () => waiting() < 3 * ORDERS - 5 * MOVE_DOCS, 20_000, 1);
    served.child.kill('SIGKILL');
    await exited;
    watch.close();

    const db = openDatabase(file);
    try {
      const left = pendingCount(db);
      expect(left).toBeGreaterThan(0); // killed before it was done: some moved, some still pending
      expect(db.sqlite.pragma('integrity_check', { simple: true })).toBe('ok');
      for (const t of ['search_names', 'search_keys'])
        expect(() =>
          db.sqlite.prepare(`INSERT INTO ${t} (${t}, rank) VALUES ('integrity-check', 0)`).run(),
        ).not.toThrow();
      // Each document in one place only, none lost.
      const both = db.sqlite
        .prepare('SELECT count(*) FROM search_pending p JOIN search_names_docsize d ON d.id = p.doc')
        .pluck()
        .get();
      expect([both, indexed(db) + left]).toEqual([0, 3 * ORDERS]);
      const sample = [0, 1, 2999, 4242, ORDERS - 1];
      expectFound(db, tenantId, sample);
      catchUpSearchIndex(db);
      expect([pendingCount(db), indexed(db)]).toEqual([0, 3 * ORDERS]);
      expectFound(db, tenantId, sample);
    } finally {
      db.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
