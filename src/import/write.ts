import { setImmediate as yieldToLoop } from 'node:timers/promises';
import type { Db } from '../db/open.js';
import { catchUpSearchIndex } from '../db/search-index.js';
import { describeIssues, formatPath } from '../lib/zod-issues.js';
import { handlers, type WriteOutcome } from './kinds.js';
import type { Progress } from './progress.js';
import { KINDS, openRecordStream, type Kind } from './records.js';

/**
 * Records per transaction. Each transaction holds SQLite's write lock, and a check-in of the server
 * running on the same file waits for it (busy_timeout): a few hundred orders keep that wait in the
 * tens of milliseconds, while still amortising the fsync of each commit.
 */
export const BATCH_SIZE = 250;

export interface KindCounts {
  created: number;
  updated: number;
  /** Orders whose status changed (and so were unsynchronised for every key). */
  statusChanged: number;
  /** Availability: dates replaced. */
  dates: number;
}
export type WriteCounts = Record<Kind, KindCounts>;

export const emptyCounts = (): WriteCounts =>
  Object.fromEntries(KINDS.map((k) => [k, { created: 0, updated: 0, statusChanged: 0, dates: 0 }])) as WriteCounts;

/** Adds one record's outcome: the same tally for a real write and a dry run's prediction. */
export function tally(counts: WriteCounts, kind: Kind, out: WriteOutcome): void {
  const c = counts[kind];
  if (out.created) c.created++;
  else c.updated++;
  c.dates += out.dates ?? 0;
  if (out.statusChanged) c.statusChanged++;
}

export interface WriteContext {
  db: Db;
  tenantId: number;
  nowIso: string;
  batchSize?: number;
}

/** A failure while writing: what was committed before it stays (re-running the import is safe). */
export class ImportWriteError extends Error {
  constructor(
    message: string,
    readonly committed: number,
  ) {
    super(message);
  }
}

interface Pending {
  kind: Kind;
  index: number;
  parsed: unknown;
}

/**
 * Which lists each read of the writing pass stores. Combos must be stored before the availability
 * that points at them; when the file lists availability first, the combos get a read of their own.
 */
export function planReads(keyOrder: readonly Kind[]): (ReadonlySet<Kind> | undefined)[] {
  const combos = keyOrder.indexOf('combos');
  const availability = keyOrder.indexOf('disponibilidade');
  if (combos < 0 || availability < 0 || combos < availability) return [undefined];
  return [new Set<Kind>(['combos']), new Set(KINDS.filter((k) => k !== 'combos'))];
}

/** Pass 2: reads the file again and upserts its records in short transactions. */
export async function writeFile(
  file: string,
  plan: (ReadonlySet<Kind> | undefined)[],
  ctx: WriteContext,
  progress: Progress,
): Promise<WriteCounts> {
  const counts = emptyCounts();
  const batchSize = ctx.batchSize ?? BATCH_SIZE;
  let committed = 0;
  let offset = 0;
  let totalBytes = 0;

  const commit = committer(ctx, counts);
  for (const only of plan) {
    const stream = openRecordStream(file, { only });
    let batch: Pending[] = [];
    const flush = async () => {
      if (batch.length === 0) return;
      try {
        commit(batch);
      } catch (error) {
        throw new ImportWriteError(error instanceof Error ? error.message : String(error), committed);
      }
      committed += batch.length;
      batch = [];
      progress.update(offset + stream.bytesRead, committed);
      // Lets the progress bar and signals through between transactions.
      await yieldToLoop();
    };
    for await (const item of stream.items) {
      if (item.type !== 'record') continue;
      const parsed = handlers[item.kind].parse(item.value);
      if (!parsed.success) {
        const [first] = describeIssues(parsed.error, [item.kind, item.index]);
        throw new ImportWriteError(`o arquivo mudou depois da validação: ${first}`, committed);
      }
      batch.push({ kind: item.kind, index: item.index, parsed: parsed.data });
      if (batch.length >= batchSize) await flush();
    }
    await flush();
    offset += stream.bytesRead;
    totalBytes = offset;
  }
  progress.finish(totalBytes, committed);
  return counts;
}

function committer({ db, tenantId, nowIso }: WriteContext, counts: WriteCounts) {
  // IMMEDIATE takes the write lock up front, so the transaction never fails half-way on a lock upgrade.
  const tx = db.sqlite.transaction((batch: Pending[]) => {
    const outcomes: { kind: Kind; out: WriteOutcome }[] = [];
    for (const r of batch) {
      try {
        outcomes.push({ kind: r.kind, out: handlers[r.kind].write(db, tenantId, r.parsed, nowIso) });
      } catch (error) {
        // OrderConflictError and ComboDataError name the field; say which record it was.
        const where =
          error && typeof error === 'object' && 'path' in error && Array.isArray(error.path)
            ? (error.path as (string | number)[])
            : [];
        throw new Error(
          `${formatPath([r.kind, r.index, ...where])}: ${error instanceof Error ? error.message : String(error)}`,
          { cause: error },
        );
      }
    }
    return outcomes;
  });
  return (batch: Pending[]) => {
    // Counted only once the transaction committed.
    for (const o of tx.immediate(batch)) tally(counts, o.kind, o.out);
    // The batch's documents into the console's search index, in short transactions of their own: the box may be
    // stopped, and would otherwise find them all pending at its start (src/db/search-index.ts).
    catchUpSearchIndex(db);
  };
}
