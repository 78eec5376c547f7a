import { checkpointInBackground, type Sqlite } from '../db/open.js';

export interface WriteQueue {
  /**
   * Runs `work` inside a transaction and resolves only after that transaction is durably committed.
   * Work queued in the same turn of the event loop shares one commit (group commit): one fsync for
   * many check-ins, each in its own savepoint so one failure does not undo the others.
   */
  run<T>(work: () => T): Promise<T>;
}

type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

interface Pending {
  work: () => unknown;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

export function createWriteQueue(sqlite: Sqlite, maxBatch = 512): WriteQueue {
  let pending: Pending[] = [];
  let scheduled = false;
  // Nested better-sqlite3 transactions are savepoints.
  const inSavepoint = sqlite.transaction((work: () => unknown) => work());
  // WAL checkpoints run in a background thread, not inside the commits of this queue.
  const committed = checkpointInBackground(sqlite);

  // One write transaction per batch, each item in its own savepoint; an item's failure is its outcome.
  const runBatch = sqlite.transaction((batch: Pending[], outcomes: Outcome[]) => {
    for (const item of batch) {
      try {
        outcomes.push({ ok: true, value: inSavepoint(item.work) });
      } catch (error) {
        outcomes.push({ ok: false, error });
      }
    }
  }).immediate;

  const flush = () => {
    scheduled = false;
    const batch = pending.splice(0, maxBatch);
    if (pending.length > 0) schedule();
    const outcomes: Outcome[] = [];
    try {
      runBatch(batch, outcomes);
    } catch (error) {
      // The commit itself failed: nothing of this batch is acknowledged.
      for (const item of batch) item.reject(error);
      return;
    }
    committed();
    batch.forEach((item, i) => {
      const o = outcomes[i]!;
      if (o.ok) item.resolve(o.value);
      else item.reject(o.error);
    });
  };

  const schedule = () => {
    if (scheduled) return;
    scheduled = true;
    setImmediate(flush);
  };

  return {
    run<T>(work: () => T): Promise<T> {
      return new Promise<T>((resolve, reject) => {
        pending.push({ work, resolve: resolve as (v: unknown) => void, reject });
        schedule();
      });
    },
  };
}
