import fs from 'node:fs';
import { Worker } from 'node:worker_threads';
import { sqliteDriverUrl, type Sqlite } from './sqlite.js';

// The WAL's housekeeping for the connection that takes the check-ins: checkpoints in a background
// thread, and fsyncs of the WAL on libuv's thread pool (see the write queue's group commit).

// Background checkpoints. In WAL mode a commit appends to the WAL and fsyncs it: that is what makes it
// durable. Copying WAL pages back into the database (the checkpoint) is housekeeping, but SQLite's
// auto-checkpoint runs it inside the commit that crosses the threshold, on the event loop: a few
// milliseconds of random writes and two fsyncs every ~1000 pages. A worker thread with its own
// connection runs those checkpoints instead (PASSIVE: it never blocks the writer), at most one pass
// every CHECKPOINT_INTERVAL_MS while there are commits (back-to-back passes compete with the commits'
// own fsyncs). SQLite only rewinds the WAL once a checkpoint has caught up with it, and under steady
// load a pass never quite does: frames keep coming while it copies. So when the WAL passes
// RESTART_FRAMES, the worker passes again at once, each pass shorter than the last, until one catches
// up (the WAL starts over at the next commit) or CATCH_UP_PASSES were made; still behind, it passes
// again after the interval, commits or not. The writer itself never checkpoints while the worker
// runs (wal_autocheckpoint = 0): a commit that copies the WAL on the event loop holds it 36 ms at
// 10,000 frames and 42 ms at 16,384 (`npm run bench:checkpoint`), which is where the tail of the
// steady flow after a rush came from when the worker fell behind (issue 14). A WAL that stays long
// costs disk space, not latency; if the worker stops, the connection checkpoints by itself again.
const CHECKPOINT_INTERVAL_MS = 200;
const RESTART_FRAMES = 4096;
const CATCH_UP_PASSES = 8;
const CHECKPOINTER = `
Promise.all([import('node:worker_threads'), import(DRIVER)]).then(([{ parentPort, workerData }, { default: Database }]) => {
  const db = new Database(workerData.file, { fileMustExist: true });
  db.pragma('synchronous = FULL');
  db.pragma('busy_timeout = 5000');
  parentPort.on('message', (m) => {
    if (m === 'stop') {
      try { db.close(); } catch {}
      Atomics.store(workerData.closed, 0, 1);
      Atomics.notify(workerData.closed, 0);
      parentPort.close();
      return;
    }
    let pass = { log: 0, checkpointed: 0 };
    try { pass = db.pragma('wal_checkpoint(PASSIVE)')[0]; } catch {}
    parentPort.postMessage({ log: pass.log, checkpointed: pass.checkpointed });
  });
});`;

interface Checkpointer {
  /** A commit happened: checkpoint soon. */
  notify(): void;
  stop(): void;
}
const checkpointers = new WeakMap<Sqlite, Checkpointer>();

/**
 * Moves this connection's WAL checkpoints to a background thread; returns the function to call after
 * each commit. Durability is unchanged: commits still fsync the WAL (synchronous=FULL) before returning.
 */
export function checkpointInBackground(sqlite: Sqlite): () => void {
  const existing = checkpointers.get(sqlite);
  if (existing) return existing.notify;
  if (sqlite.memory || sqlite.readonly) return () => undefined;
  const driver = sqliteDriverUrl();
  // Set by the worker once its connection is closed: stop() waits for it, so that after Db.close()
  // returns nothing touches the database files any more.
  const closed = new Int32Array(new SharedArrayBuffer(4));
  const worker = new Worker(CHECKPOINTER.replace('DRIVER', JSON.stringify(driver)), {
    eval: true,
    workerData: { file: sqlite.name, closed },
  });
  let dirty = false; // commits since the last pass started
  let running = false;
  let stopped = false;
  let lastPass = 0;
  let timer: NodeJS.Timeout | null = null;
  const pass = () => {
    timer = null;
    if (stopped || running || !dirty) return;
    dirty = false;
    running = true;
    lastPass = Date.now();
    worker.postMessage('checkpoint');
  };
  const schedule = () => {
    if (timer || running || stopped) return;
    timer = setTimeout(pass, Math.max(0, lastPass + CHECKPOINT_INTERVAL_MS - Date.now()));
    timer.unref();
  };
  let catchUp = 0; // passes made at once, one after another, to catch up with a long WAL
  worker.on('message', ({ log, checkpointed }: { log: number; checkpointed: number }) => {
    running = false;
    const behind = log >= RESTART_FRAMES && checkpointed < log;
    if (behind && catchUp < CATCH_UP_PASSES && !stopped) {
      catchUp++;
      running = true;
      worker.postMessage('checkpoint');
      return;
    }
    catchUp = 0;
    if (behind) dirty = true;
    if (dirty) schedule();
  });
  // Without the worker, the connection checkpoints by itself again.
  const fallBack = () => {
    if (stopped) return;
    stopped = true;
    if (timer) clearTimeout(timer);
    if (sqlite.open) sqlite.pragma('wal_autocheckpoint = 1000');
  };
  worker.on('error', fallBack);
  worker.on('exit', fallBack);
  worker.unref(); // after the listeners: adding a 'message' listener refs the worker again
  const checkpointer: Checkpointer = {
    notify() {
      dirty = true;
      schedule();
    },
    stop() {
      if (stopped) return;
      stopped = true;
      if (timer) clearTimeout(timer);
      worker.postMessage('stop');
      Atomics.wait(closed, 0, 0, 2000);
    },
  };
  checkpointers.set(sqlite, checkpointer);
  sqlite.pragma('wal_autocheckpoint = 0');
  return checkpointer.notify;
}

/**
 * fsync of this connection's WAL file, off the event loop: after it resolves, every transaction
 * committed before the call is on disk, exactly as if it had committed with synchronous=FULL. One
 * file descriptor per connection, closed with it.
 */
export function walFsync(sqlite: Sqlite): () => Promise<void> {
  if (sqlite.memory) return () => Promise.resolve();
  return () =>
    new Promise<void>((resolve, reject) => {
      // Opened on first use (by then a commit has created the WAL file), shared by every queue of the connection.
      let fd = walFds.get(sqlite);
      if (fd === undefined) walFds.set(sqlite, (fd = fs.openSync(`${sqlite.name}-wal`, 'r')));
      fs.fsync(fd, (err) => (err ? reject(err) : resolve()));
    });
}
const walFds = new WeakMap<Sqlite, number>();

/** Called by Db.close(): stops the checkpoint worker and closes the WAL descriptor. */
export function stopWalHelpers(sqlite: Sqlite): void {
  checkpointers.get(sqlite)?.stop();
  const fd = walFds.get(sqlite);
  walFds.delete(sqlite);
  if (fd !== undefined) fs.close(fd, () => undefined);
}
