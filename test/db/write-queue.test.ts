import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { createWriteQueue } from '../../src/db/write-queue.js';
import { openDatabase, type Db } from '../../src/db/open.js';
import { tempDir } from '../support/temp.js';

// The group commit answers only after the WAL fsync that makes the batch durable.

let dir: string;
let db: Db;
beforeEach(() => {
  dir = tempDir('gate-wq-');
  db = openDatabase(path.join(dir, 'q.db'));
  db.sqlite.exec('create table t (v integer not null)');
});
afterEach(() => {
  db.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

function controlledFsync() {
  const calls: { resolve: () => void; reject: (e: Error) => void }[] = [];
  const fsyncWal = () => new Promise<void>((resolve, reject) => calls.push({ resolve, reject }));
  return { calls, fsyncWal };
}
const insert = (v: number) => () => db.sqlite.prepare('insert into t (v) values (?)').run(v).changes;
const settled = async <T>(p: Promise<T>) =>
  Promise.race([
    p.then(
      () => 'resolved',
      () => 'rejected',
    ),
    new Promise((r) => setTimeout(() => r('pending'), 30)),
  ]);

it('resolves a write only after its fsync, and groups writes that arrive meanwhile into the next commit', async () => {
  const { calls, fsyncWal } = controlledFsync();
  const queue = createWriteQueue(db.sqlite, { fsyncWal });
  const first = queue.run(insert(1));
  await new Promise((r) => setImmediate(r));
  expect(calls).toHaveLength(1);
  // Committed (another connection would see it) but not acknowledged.
  expect(db.sqlite.prepare('select count(*) from t').pluck().get()).toBe(1);
  const second = queue.run(insert(2));
  const third = queue.run(insert(3));
  expect(await settled(first)).toBe('pending');
  expect(calls).toHaveLength(1); // no commit while the fsync runs
  calls[0]!.resolve();
  expect(await first).toBe(1);
  await new Promise((r) => setTimeout(r, 10));
  expect(calls).toHaveLength(2); // second and third: one commit, one fsync
  expect(await settled(second)).toBe('pending');
  calls[1]!.resolve();
  expect(await Promise.all([second, third])).toEqual([1, 1]);
});

it('rejects the whole batch when the fsync fails, and keeps FULL for other writes on the connection', async () => {
  const { calls, fsyncWal } = controlledFsync();
  const queue = createWriteQueue(db.sqlite, { fsyncWal });
  const write = queue.run(insert(1));
  await new Promise((r) => setImmediate(r));
  expect(db.sqlite.pragma('synchronous', { simple: true })).toBe(2); // FULL outside the batch
  calls[0]!.reject(new Error('EIO'));
  await expect(write).rejects.toThrow('EIO');
  // The queue goes on with the next batch.
  const next = queue.run(insert(2));
  await new Promise((r) => setTimeout(r, 10));
  calls[1]!.resolve();
  expect(await next).toBe(1);
});

it('fsyncs the real WAL file by default, through one descriptor per connection that closes with it', async () => {
  // The queue's descriptor is the WAL opened read-only; SQLite's own handles (this connection's and
  // the background checkpointer's, which opens whenever its thread gets to it) are read-write.
  const walFds = (readOnly: boolean) =>
    fs.readdirSync('/proc/self/fd').filter((fd) => {
      try {
        if (fs.readlinkSync(`/proc/self/fd/${fd}`) !== `${db.sqlite.name}-wal`) return false;
        const flags = parseInt(/^flags:\s+(\d+)$/m.exec(fs.readFileSync(`/proc/self/fdinfo/${fd}`, 'utf8'))![1]!, 8);
        return !readOnly || (flags & 3) === 0;
      } catch {
        return false;
      }
    }).length;
  expect(walFds(true)).toBe(0);
  // Two queues on one connection, as the check-ins and the lane events have.
  const checkins = createWriteQueue(db.sqlite);
  const laneEvents = createWriteQueue(db.sqlite);
  expect(await Promise.all([checkins.run(insert(7)), laneEvents.run(insert(8))])).toEqual([1, 1]);
  expect(await checkins.run(insert(9))).toBe(1);
  expect(walFds(true)).toBe(1);
  db.close();
  // The descriptor is closed asynchronously.
  for (let waited = 0; walFds(false) > 0 && waited < 5000; waited += 10) await new Promise((r) => setTimeout(r, 10));
  expect(walFds(false)).toBe(0);
});

it('background work (a sync page) never shares a commit with check-ins, and waits while check-ins are queued', async () => {
  const { calls, fsyncWal } = controlledFsync();
  const queue = createWriteQueue(db.sqlite, { fsyncWal });
  const order: string[] = [];
  const work = (name: string, v: number) => () => {
    order.push(name);
    return insert(v)();
  };
  const page1 = queue.run(work('pagina-1', 1), { background: true });
  const page2 = queue.run(work('pagina-2', 2), { background: true });
  const scanA = queue.run(work('scan-a', 3));
  const scanB = queue.run(work('scan-b', 4));
  await new Promise((r) => setImmediate(r));
  // The scans queued after the page still go first, together, in one commit.
  expect(order).toEqual(['scan-a', 'scan-b']);
  calls[0]!.resolve();
  expect(await Promise.all([scanA, scanB])).toEqual([1, 1]);
  await new Promise((r) => setImmediate(r));
  expect(order).toEqual(['scan-a', 'scan-b', 'pagina-1']);
  // A scan that arrives during the page's fsync goes before the next piece of the page.
  const scanC = queue.run(work('scan-c', 5));
  calls[1]!.resolve();
  await page1;
  await new Promise((r) => setImmediate(r));
  expect(order).toEqual(['scan-a', 'scan-b', 'pagina-1', 'scan-c']);
  calls[2]!.resolve();
  await scanC;
  await new Promise((r) => setImmediate(r));
  calls[3]!.resolve();
  await page2;
  expect(order).toEqual(['scan-a', 'scan-b', 'pagina-1', 'scan-c', 'pagina-2']);
  expect(calls).toHaveLength(4); // one commit (and fsync) each: page pieces never carry a scan
});

it('background work is not starved by a steady stream of scans: the two take turns', async () => {
  const { calls, fsyncWal } = controlledFsync();
  const queue = createWriteQueue(db.sqlite, { fsyncWal });
  const order: string[] = [];
  const work = (name: string) => () => void order.push(name);
  const page = queue.run(work('pagina'), { background: true });
  void queue.run(work('scan-1'));
  await new Promise((r) => setImmediate(r));
  void queue.run(work('scan-2')); // arrives during scan-1's fsync, as scans keep doing
  calls[0]!.resolve();
  await new Promise((r) => setImmediate(r));
  await new Promise((r) => setImmediate(r));
  // The page had its turn; scan-2 committed right after it, during the page's fsync.
  expect(order).toEqual(['scan-1', 'pagina', 'scan-2']);
  expect(calls).toHaveLength(3);
  calls[1]!.resolve();
  await page;
  calls[2]!.resolve();
});

it('fails the work queued on a connection closed under it, instead of leaving it waiting or throwing elsewhere', async () => {
  const queue = createWriteQueue(db.sqlite, controlledFsync());
  const waiting = [queue.run(insert(1)), queue.run(insert(2), { background: true })];
  db.sqlite.close();
  for (const w of waiting) await expect(w).rejects.toThrow(/not open/);
});

it('a scan does not wait for a background piece’s fsync: it commits meanwhile and is answered after its own', async () => {
  const { calls, fsyncWal } = controlledFsync();
  const queue = createWriteQueue(db.sqlite, { fsyncWal });
  const piece = queue.run(insert(1), { background: true });
  const nextPiece = queue.run(insert(2), { background: true });
  await new Promise((r) => setImmediate(r));
  expect(calls).toHaveLength(1); // the piece's fsync runs
  const scan = queue.run(insert(3));
  await new Promise((r) => setImmediate(r));
  expect(calls).toHaveLength(2); // the scan committed, and its own fsync started, while the piece's still runs
  calls[1]!.resolve();
  expect(await scan).toBe(1);
  expect(await settled(piece)).toBe('pending'); // the piece is answered after its own fsync only
  expect(calls).toHaveLength(2); // and the next piece waits for it
  calls[0]!.resolve();
  expect(await piece).toBe(1);
  await new Promise((r) => setImmediate(r));
  calls[2]!.resolve();
  expect(await nextPiece).toBe(1);
  expect((db.sqlite.prepare('select group_concat(v) as v from t').get() as { v: string }).v).toBe('1,3,2');
});

it('scans queued behind a background piece commit right after it, not after the piece’s fsync', async () => {
  const { calls, fsyncWal } = controlledFsync();
  const queue = createWriteQueue(db.sqlite, { fsyncWal });
  const first = queue.run(insert(1));
  await new Promise((r) => setImmediate(r));
  expect(calls).toHaveLength(1); // the first scan's fsync runs; what comes now waits for it
  const piece = queue.run(insert(2), { background: true });
  const scans = [queue.run(insert(3)), queue.run(insert(4))];
  calls[0]!.resolve();
  await first;
  // The piece's turn (the two priorities alternate), then the scans' commit at once, with their own fsync.
  for (let i = 0; i < 3 && calls.length < 3; i++) await new Promise((r) => setImmediate(r));
  expect(calls).toHaveLength(3);
  calls[2]!.resolve();
  expect(await Promise.all(scans)).toEqual([1, 1]);
  expect(await settled(piece)).toBe('pending');
  calls[1]!.resolve();
  expect(await piece).toBe(1);
  expect((db.sqlite.prepare('select group_concat(v) as v from t').get() as { v: string }).v).toBe('1,2,3,4');
});

it('a piece that records its own progress (durable: false) is answered at its commit, waiting for no fsync', async () => {
  const { calls, fsyncWal } = controlledFsync();
  const queue = createWriteQueue(db.sqlite, { fsyncWal });
  const pieces = [1, 2, 3].map((v) => queue.run(insert(v), { background: true, durable: false }));
  // Three commits one after another, none waiting for the disk: one fsync flushes their pages ahead, unwaited.
  expect(await Promise.all(pieces)).toEqual([1, 1, 1]);
  expect(calls).toHaveLength(1);
  // A scan between pieces still goes first, and its own fsync makes the pieces before it durable too.
  const later = queue.run(insert(5), { background: true, durable: false });
  const scan = queue.run(insert(4));
  await new Promise((r) => setImmediate(r));
  expect(calls).toHaveLength(2);
  expect(await settled(later)).toBe('pending'); // no piece commits while a scan's fsync runs
  calls[1]!.resolve();
  expect(await scan).toBe(1);
  expect(await later).toBe(1);
  expect((db.sqlite.prepare('select group_concat(v) as v from t').get() as { v: string }).v).toBe('1,2,3,4,5');
});

it('flushes the pieces’ pages ahead of the next scan, one fsync at a time, and a failed one fails no caller', async () => {
  const { calls, fsyncWal } = controlledFsync();
  const queue = createWriteQueue(db.sqlite, { fsyncWal });
  const piece = (v: number) => queue.run(insert(v), { background: true, durable: false });
  await piece(1);
  await piece(2); // committed while the first flush runs: one more flush when it ends, not one each
  await piece(3);
  expect(calls).toHaveLength(1);
  calls[0]!.reject(new Error('EIO'));
  await new Promise((r) => setImmediate(r));
  expect(calls).toHaveLength(2);
  calls[1]!.resolve();
  await new Promise((r) => setImmediate(r));
  expect(calls).toHaveLength(2); // nothing left unflushed
  // A scan's fsync covers what was committed before it: the piece waiting for the next flush ahead needs none.
  await piece(4);
  await piece(5);
  const scan = queue.run(insert(6));
  await new Promise((r) => setImmediate(r));
  expect(calls).toHaveLength(4);
  calls[3]!.resolve();
  expect(await scan).toBe(1);
  calls[2]!.resolve();
  await new Promise((r) => setImmediate(r));
  expect(calls).toHaveLength(4);
});
