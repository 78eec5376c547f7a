import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { openDatabase, type Db } from '../../src/db/open.js';
import { tempDir } from '../support/temp.js';

// Another process holding the write lock (`gate archive` deleting old events beside the box): the box's writes wait
// for it without holding the event loop, and go as soon as it is free (issue 25: the busy handler slept on the loop,
// up to 171 ms beside the archive in `npm run bench:heavy`).

let dir: string;
let db: Db;
let other: Database.Database;
beforeEach(() => {
  dir = tempDir('gate-busy-');
  db = openDatabase(path.join(dir, 'q.db'));
  db.sqlite.exec('create table t (v integer not null)');
  // A second connection stands for the other process: it takes the write lock and keeps it.
  other = new Database(path.join(dir, 'q.db'));
  other.pragma('busy_timeout = 0');
});
afterEach(() => {
  other.close();
  db.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const insert = (v: number) => () => db.sqlite.prepare('insert into t (v) values (?)').run(v).changes;
const rows = () => db.sqlite.prepare('select v from t order by v').pluck().all();

it('waits for a write lock held elsewhere with the event loop free, then commits at once', async () => {
  other.exec('begin immediate');
  other.prepare('insert into t (v) values (0)').run();
  const scan = db.writes.run(insert(1));
  const piece = db.writes.run(insert(2), { background: true });
  // The loop turns while the lock is held: a 20 ms timer fires on time (the busy handler would sleep for 5 s).
  const t0 = performance.now();
  await new Promise((r) => setTimeout(r, 20));
  expect(performance.now() - t0).toBeLessThan(500);
  expect(rows()).toEqual([]);
  other.exec('commit');
  const released = performance.now();
  await expect(scan).resolves.toBe(1);
  await expect(piece).resolves.toBe(1);
  expect(performance.now() - released).toBeLessThan(500);
  expect(rows()).toEqual([0, 1, 2]);
  // The connection's own busy timeout is back for everything else.
  expect(db.sqlite.pragma('busy_timeout', { simple: true })).toBe(5000);
});

it('keeps the order of the writes that waited: scans first, then the background piece', async () => {
  other.exec('begin immediate');
  const done: number[] = [];
  const writes = [
    db.writes.run(insert(1)).then(() => done.push(1)),
    db.writes.run(insert(2), { background: true }).then(() => done.push(2)),
    db.writes.run(insert(3)).then(() => done.push(3)),
  ];
  await new Promise((r) => setTimeout(r, 10));
  other.exec('rollback');
  await Promise.all(writes);
  expect(rows()).toEqual([1, 2, 3]);
  expect(done.indexOf(1)).toBeLessThan(done.indexOf(2));
});

it('gives up after the connection’s busy timeout, as SQLite would have, and answers the next writes', async () => {
  db.sqlite.pragma('busy_timeout = 100'); // before the queue is made: it keeps the connection's timeout
  other.exec('begin immediate');
  const t0 = performance.now();
  await expect(db.writes.run(insert(1))).rejects.toMatchObject({ code: 'SQLITE_BUSY' });
  expect(performance.now() - t0).toBeGreaterThanOrEqual(100);
  other.exec('rollback');
  await expect(db.writes.run(insert(2))).resolves.toBe(1);
  expect(rows()).toEqual([2]);
});
