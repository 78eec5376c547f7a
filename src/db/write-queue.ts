import type { Sqlite } from './sqlite.js';
import { checkpointInBackground, walFsync } from './wal.js';

export interface WriteQueue {
  /**
   * Runs `work` inside a transaction and resolves only after that transaction is durably committed.
   * Work queued while the previous commit is being made durable shares the next commit (group
   * commit): one fsync for many check-ins, each in its own savepoint so one failure does not undo
   * the others.
   *
   * `background` work (a piece of a sync page or of a large batch) never shares a commit with the
   * rest and goes after the work already queued; when both kinds keep coming they alternate, so a
   * scan waits for at most one piece and background work is never starved.
   *
   * `durable: false` (background work only) resolves once committed, waiting for no fsync: it becomes
   * durable with the next one (the flush ahead below, a scan's, the next durable unit's). A power cut before that
   * loses it whole, and every later commit with it (the WAL replays a prefix of its commits); a
   * process crash loses nothing committed. For work that records its own progress in the same
   * transaction (RESUMABLE_PIECE: a sync page's pieces and their journal, the search index's upkeep, a
   * site catch-up's pieces and the stream position).
   */
  run<T>(work: () => T, opts?: WriteOptions): Promise<T>;
  /** Units waiting for a commit, per priority (for gauges read at scrape time). */
  stats(): WriteQueueStats;
  /** Sets the one observer of commits (the box's metrics), replacing the previous (returned); undefined: none. */
  observe(observer: WriteQueueObserver | undefined): WriteQueueObserver | undefined;
}

export interface WriteOptions {
  background?: boolean;
  durable?: boolean;
}

/**
 * Background work that records how far it got in its own transaction, so a power cut loses the work and its progress
 * together and it is simply done again: committed without an fsync of its own (`durable: false` above).
 */
export const RESUMABLE_PIECE: WriteOptions = { background: true, durable: false };

/** Foreground: scans and single writes, many per commit. Background: bulk pieces, one per commit, taking turns. */
export type WritePriority = 'foreground' | 'background';

export interface WriteQueueStats {
  waiting: Record<WritePriority, number>;
}

/** Told once per commit, never per unit; must not throw (it runs inside the queue's flush). */
export interface WriteQueueObserver {
  /** A batch committed: its units, and the ms from BEGIN IMMEDIATE to the end of COMMIT. */
  committed(priority: WritePriority, units: number, ms: number): void;
  /** Its WAL fsync ended: ms from the call to the callback (libuv's queue included, as callers wait for both). */
  synced(priority: WritePriority, ms: number): void;
  /** The batch's transaction or its fsync failed: none of its units was acknowledged. */
  failed(priority: WritePriority, stage: 'commit' | 'fsync'): void;
}

type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

interface Pending {
  work: () => unknown;
  durable: boolean;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

/** Answers each unit of a committed batch with its own outcome. */
const settle = (batch: Pending[], outcomes: Outcome[]) =>
  batch.forEach((item, i) => {
    const o = outcomes[i]!;
    if (o.ok) item.resolve(o.value);
    else item.reject(o.error);
  });

// Durable without holding the event loop during the fsync. A batch commits with synchronous=NORMAL
// (COMMIT writes its frames to the WAL but does not fsync it), then the WAL is fsynced on libuv's
// thread pool, and only then are the batch's callers answered: the guarantee of synchronous=FULL,
// whose COMMIT makes that same fsync, while the event loop goes on parsing and answering requests.
// The next batch commits when that fsync ends, so it gathers everything that arrived meanwhile.
// Scans do not wait for a background piece's fsync, though: they commit while it runs, and their own
// fsync, which starts after their commit, makes both durable (the WAL is one file, written in order).
// Background pieces wait for every fsync: they are one at a time and never hold a scan back twice.
// A piece that needs no fsync of its own (`durable: false`) is answered at its commit and the next
// piece may follow at once: a sync page stored in 70 pieces made 70 fsyncs, each one a wait of the page.
// Its pages are still flushed soon, by one fsync at a time that nothing waits for (aheadFlusher), so that
// a scan's own fsync does not carry everything an ingest or a catch-up wrote since the previous scan.
// Until its fsync ends a check-in is visible but not acknowledged: after a power cut at that moment,
// a person told ALREADY_USED by a second scan may have to scan again; nothing acknowledged is lost.
// NORMAL is set around the batch only: every other write on this connection keeps FULL.
/** How soon a batch whose write lock another process holds tries again. */
const RETRY_MS = 1;

const isBusy = (error: unknown) => (error as { code?: string } | null)?.code?.startsWith('SQLITE_BUSY') === true;

export function createWriteQueue(
  sqlite: Sqlite,
  {
    maxBatch = 512,
    fsyncWal = walFsync(sqlite),
    observer,
  }: { maxBatch?: number; fsyncWal?: () => Promise<void>; observer?: WriteQueueObserver | undefined } = {},
): WriteQueue {
  const pending: Pending[] = [];
  const background: Pending[] = [];
  let lastWasForeground = false;
  let scheduled = false;
  // An fsync is running for a batch of scans, or for a background piece (both may run at once).
  const syncing = { foreground: false, background: false };
  // WAL checkpoints run in a background thread, not inside the commits of this queue.
  const committed = checkpointInBackground(sqlite);
  const noFsyncInCommit = sqlite.prepare('PRAGMA synchronous = NORMAL');
  const fsyncInCommit = sqlite.prepare('PRAGMA synchronous = FULL');
  const busy = busyTimeouts(sqlite, () => schedule());

  const runBatch = batchRunner(sqlite, busy.waitAgain);
  const flushAhead = aheadFlusher(fsyncWal);

  const flush = () => {
    scheduled = false;
    if (pending.length + background.length === 0) return;
    if (!sqlite.open) {
      // Closed under its callers (a stop, a crash in the tests): every one of them fails, none is left waiting.
      const error = new TypeError('The database connection is not open');
      for (const item of pending.splice(0).concat(background.splice(0))) item.reject(error);
      return;
    }
    const canForeground = pending.length > 0 && !syncing.foreground;
    const canBackground = background.length > 0 && !syncing.foreground && !syncing.background;
    if (!canForeground && !canBackground) return; // the running fsync's end flushes again
    const takeBackground = canBackground && (!canForeground || lastWasForeground);
    const turn = lastWasForeground;
    lastWasForeground = !takeBackground;
    const priority = takeBackground ? 'background' : 'foreground';
    const batch = takeBackground ? background.splice(0, 1) : pending.splice(0, maxBatch);
    const outcomes: Outcome[] = [];
    const began = performance.now();
    try {
      noFsyncInCommit.run();
      busy.failFast();
      runBatch(batch, outcomes);
    } catch (error) {
      if (busy.shouldWait(error, began, sqlite.inTransaction || outcomes.length > 0)) {
        // Not begun: the batch waits, first in line, for the lock (as long as the busy timeout, as before).
        (takeBackground ? background : pending).unshift(...batch);
        lastWasForeground = turn;
        return;
      }
      // The commit itself failed: nothing of this batch is acknowledged.
      for (const item of batch) item.reject(error);
      observer?.failed(priority, 'commit');
      schedule();
      return;
    } finally {
      fsyncInCommit.run();
      busy.waitAgain();
    }
    busy.done();
    committed();
    const syncStart = performance.now();
    observer?.committed(priority, batch.length, syncStart - began);
    if (takeBackground && !batch[0]!.durable) {
      settle(batch, outcomes);
      flushAhead.committed();
      schedule();
      return;
    }
    syncing[priority] = true;
    flushAhead.covered();
    // Scans queued behind a background piece commit now, during its fsync (see above).
    if (takeBackground) schedule();
    fsyncWal().then(
      () => {
        syncing[priority] = false;
        observer?.synced(priority, performance.now() - syncStart);
        settle(batch, outcomes);
        schedule();
      },
      (error: unknown) => {
        // A failing disk: the batch is in the database but none of it is acknowledged.
        syncing[priority] = false;
        for (const item of batch) item.reject(error);
        observer?.failed(priority, 'fsync');
        schedule();
      },
    );
  };

  const schedule = () => {
    if (scheduled || pending.length + background.length === 0) return;
    scheduled = true;
    setImmediate(flush);
  };

  return {
    run<T>(work: () => T, opts?: WriteOptions): Promise<T> {
      return new Promise<T>((resolve, reject) => {
        (opts?.background ? background : pending).push({
          work,
          durable: opts?.durable !== false,
          resolve: resolve as (v: unknown) => void,
          reject,
        });
        schedule();
      });
    },
    stats: () => ({ waiting: { foreground: pending.length, background: background.length } }),
    observe(o) {
      const previous = observer;
      observer = o;
      return previous;
    },
  };
}

/**
 * The pages of pieces committed without an fsync (RESUMABLE_PIECE) are flushed to the disk ahead of the next scan,
 * by one fsync at a time that nothing waits for: otherwise a scan's own fsync carried every page an ingest or a
 * catch-up wrote since the previous scan (the scan's write p50 1.6 ms during an ingest of 10,000 orders/s, 0.5 ms
 * with it: docs/performance.md, issue 25 (2e)).
 */
function aheadFlusher(fsyncWal: () => Promise<void>) {
  let running = false;
  let unflushed = false;
  const start = () => {
    if (running || !unflushed) return;
    running = true;
    unflushed = false;
    const done = () => {
      running = false;
      start();
    };
    // A failing disk fails the next durable fsync, whose callers are told; nothing waits on this one.
    fsyncWal().then(done, done);
  };
  return {
    committed() {
      unflushed = true;
      start();
    },
    /** A durable fsync starts: it covers every commit before it (and no piece commits while it runs). */
    covered: () => void (unflushed = false),
  };
}

/**
 * Another process holding the write lock (`gate archive`'s deletes, a CLI command): SQLite's busy handler would sleep
 * on the event loop until it is free, in growing steps (1, 2, 5, 10 … 100 ms) that also wake late; the archive's
 * deletes held the loop up to 171 ms so in `npm run bench:heavy` (issue 25). A batch's BEGIN IMMEDIATE fails at once
 * instead (`failFast`) and is tried again RETRY_MS later, the loop free meanwhile; once the lock is taken the
 * connection's own busy timeout applies again (`waitAgain`) to the rest of the transaction.
 */
function busyTimeouts(sqlite: Sqlite, retryLater: () => void) {
  const busyMs = Number(sqlite.pragma('busy_timeout', { simple: true }));
  const failWhenBusy = sqlite.prepare('PRAGMA busy_timeout = 0');
  const waitWhenBusy = sqlite.prepare(`PRAGMA busy_timeout = ${busyMs}`);
  // SQLite applies this pragma when it compiles the statement, and again at each run after the first: one run each
  // now, so that every later run sets it.
  failWhenBusy.get();
  waitWhenBusy.get();
  let since: number | undefined; // when the batch first in line first found the lock taken
  let retry: NodeJS.Timeout | undefined;
  return {
    failFast: () => failWhenBusy.get(),
    waitAgain: () => waitWhenBusy.get(),
    /** Whether a batch that failed with `error` should wait for the lock (a retry is then set); `begun`: it ran. */
    shouldWait(error: unknown, began: number, begun: boolean): boolean {
      since ??= began;
      if (!isBusy(error) || begun || began - since >= busyMs) {
        since = undefined;
        return false;
      }
      retry ??= setTimeout(() => {
        retry = undefined;
        retryLater();
      }, RETRY_MS);
      return true;
    },
    /** A batch committed: the next one's wait starts afresh. */
    done: () => (since = undefined),
  };
}

/** One write transaction per batch, each item in its own savepoint; an item's failure is its outcome. */
function batchRunner(sqlite: Sqlite, lockTaken: () => void) {
  // Nested better-sqlite3 transactions are savepoints.
  const inSavepoint = sqlite.transaction((work: () => unknown) => work());
  return sqlite.transaction((batch: Pending[], outcomes: Outcome[]) => {
    lockTaken();
    for (const item of batch) {
      try {
        outcomes.push({ ok: true, value: inSavepoint(item.work) });
      } catch (error) {
        // SQLite rolls the whole transaction back by itself on some errors (a full disk, an I/O
        // error): then nothing of the batch stands, and every item fails with that error.
        if (!sqlite.inTransaction) throw error;
        outcomes.push({ ok: false, error });
      }
    }
  }).immediate;
}
