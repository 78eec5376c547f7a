import fs from 'node:fs';
import path from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { createFixedClock } from '../../src/clock.js';
import { openDatabase, type Db } from '../../src/db/open.js';
import { createWriteQueue } from '../../src/db/write-queue.js';
import { createMetrics } from '../../src/status/metrics.js';
import { createTestBox, tempDir, TZ, type TestBox } from '../support/box.js';
import { makeOrder } from '../support/fixtures.js';
import { checkin } from '../support/http.js';

// /metrics shows the group commit (issue 13): units waiting per priority, and per commit its units,
// its time, its fsync's time, and the commits that failed.

let box: TestBox | undefined;
let cleanup: (() => void) | undefined;
afterEach(async () => {
  await box?.close();
  box = undefined;
  cleanup?.();
  cleanup = undefined;
});

const value = (text: string, series: string) =>
  Number(new RegExp(`^${series.replace(/[{}"()|.+]/g, '\\$&')} (\\S+)$`, 'm').exec(text)?.[1]);
const scrapeBox = async (b: TestBox) => (await b.app.inject({ method: 'GET', url: '/metrics' })).body;

it('after N concurrent check-ins on a real file: fewer or as many commits and fsyncs as check-ins, all units counted, times above zero', async () => {
  box = await createTestBox();
  const n = 30;
  box.importOrders([makeOrder({ prefix: 'WM', people: n })]);
  const answers = await Promise.all(Array.from({ length: n }, (_, i) => checkin(box!, { qr_code: `WM-${i + 1}` })));
  expect(answers.map((a) => a.status)).toEqual(Array(n).fill(200));
  const text = await scrapeBox(box);
  const commits = value(text, 'gate_write_commit_seconds_count{fila="principal"}');
  expect(commits).toBeGreaterThan(0);
  expect(commits).toBeLessThanOrEqual(n);
  expect(value(text, 'gate_write_commit_seconds_sum{fila="principal"}')).toBeGreaterThan(0);
  expect(value(text, 'gate_write_fsync_seconds_count{fila="principal"}')).toBe(commits);
  expect(value(text, 'gate_write_fsync_seconds_sum{fila="principal"}')).toBeGreaterThan(0);
  expect(value(text, 'gate_write_commit_units_count{fila="principal"}')).toBe(commits);
  expect(value(text, 'gate_write_commit_units_sum{fila="principal"}')).toBe(n);
  expect(value(text, 'gate_write_queue_depth{fila="principal"}')).toBe(0);
  expect(value(text, 'gate_write_commit_failures_total{fila="principal",etapa="commit"}')).toBe(0);
});

it('counts a commit that fails (a read-only database) and not the check-ins that follow once it can write', async () => {
  box = await createTestBox();
  box.importOrders([makeOrder({ prefix: 'WF', people: 2 })]);
  box.db.sqlite.pragma('query_only = ON');
  expect((await checkin(box, { qr_code: 'WF-1' })).status).toBe(503);
  box.db.sqlite.pragma('query_only = OFF');
  expect((await checkin(box, { qr_code: 'WF-1' })).status).toBe(200);
  const text = await scrapeBox(box);
  expect(value(text, 'gate_write_commit_failures_total{fila="principal",etapa="commit"}')).toBe(1);
  expect(value(text, 'gate_write_commit_failures_total{fila="principal",etapa="fsync"}')).toBe(0);
  expect(value(text, 'gate_write_commit_units_sum{fila="principal"}')).toBe(1); // only the commit that stood
});

it('shows the units queued per priority while a commit’s fsync is held, and a failed fsync', async () => {
  const dir = tempDir('gate-wqm-');
  const db = openDatabase(path.join(dir, 'q.db'));
  cleanup = () => {
    db.close();
    fs.rmSync(dir, { recursive: true, force: true });
  };
  db.sqlite.exec('create table t (v integer not null)');
  const held: { resolve: () => void; reject: (e: Error) => void }[] = [];
  const writes = createWriteQueue(db.sqlite, {
    fsyncWal: () => new Promise<void>((resolve, reject) => held.push({ resolve, reject })),
  });
  const metrics = createMetrics({
    db: { sqlite: db.sqlite, kysely: db.kysely, writes, statement: db.statement, close: () => undefined } satisfies Db,
    clock: createFixedClock(TZ, '2026-11-21T13:00:00.000Z'),
  });
  const insert = () => void db.sqlite.prepare('insert into t (v) values (1)').run();
  const tick = () => new Promise((r) => setImmediate(r));

  const first = writes.run(insert);
  await tick();
  expect(held).toHaveLength(1); // its fsync is running: what arrives now waits for the next commit
  const scans = [writes.run(insert), writes.run(insert), writes.run(insert)];
  const pages = [writes.run(insert, { background: true }), writes.run(insert, { background: true })];
  let text = await metrics.scrape();
  expect(value(text, 'gate_write_queue_depth{fila="principal"}')).toBe(3);
  expect(value(text, 'gate_write_queue_depth{fila="fundo"}')).toBe(2);
  expect(value(text, 'gate_write_commit_seconds_count{fila="principal"}')).toBe(1);
  expect(value(text, 'gate_write_fsync_seconds_count{fila="principal"}')).toBe(0);

  held[0]!.resolve();
  await first;
  await tick();
  // Both priorities waited: the background takes its turn, one piece per commit.
  expect(held).toHaveLength(2);
  text = await metrics.scrape();
  expect(value(text, 'gate_write_queue_depth{fila="principal"}')).toBe(3);
  expect(value(text, 'gate_write_queue_depth{fila="fundo"}')).toBe(1);
  expect(value(text, 'gate_write_commit_units_sum{fila="fundo"}')).toBe(1);
  expect(value(text, 'gate_write_fsync_seconds_count{fila="principal"}')).toBe(1);

  held[1]!.resolve();
  await pages[0];
  await tick();
  // The three scans committed together.
  expect(held).toHaveLength(3);
  text = await metrics.scrape();
  expect(value(text, 'gate_write_queue_depth{fila="principal"}')).toBe(0);
  expect(value(text, 'gate_write_commit_units_count{fila="principal"}')).toBe(2);
  expect(value(text, 'gate_write_commit_units_sum{fila="principal"}')).toBe(4);
  expect(value(text, 'gate_write_commit_units_bucket{le="2",fila="principal"}')).toBe(1);
  expect(value(text, 'gate_write_commit_units_bucket{le="5",fila="principal"}')).toBe(2);

  held[2]!.reject(Object.assign(new Error('EIO'), { code: 'EIO' }));
  for (const s of scans) await expect(s).rejects.toThrow('EIO');
  await tick();
  held[3]!.resolve();
  await pages[1];
  text = await metrics.scrape();
  expect(value(text, 'gate_write_commit_failures_total{fila="principal",etapa="fsync"}')).toBe(1);
  expect(value(text, 'gate_write_fsync_seconds_count{fila="principal"}')).toBe(1); // a failed fsync is not a time
  expect(value(text, 'gate_write_commit_units_sum{fila="fundo"}')).toBe(2);
  expect(value(text, 'gate_write_fsync_seconds_count{fila="fundo"}')).toBe(2);
  expect(value(text, 'gate_write_queue_depth{fila="fundo"}')).toBe(0);
});
