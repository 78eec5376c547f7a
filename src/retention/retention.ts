import fs from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import Database from 'better-sqlite3';
import type { Clock } from '../clock.js';
import { fsyncPath } from '../db/durable-copy.js';
import type { Sqlite } from '../db/open.js';
import {
  attachArchive,
  columnList,
  copyLookups,
  FAMILIES,
  quote,
  type AttachedArchive,
  type Family,
} from './archive-file.js';
import { deleteArchived, reconcile } from './delete-archived.js';
import { cutoffOf, tenantScopes, type Cutoff } from './policy.js';
import { scanFamily } from './scan.js';

// `gate archive` (docs/operations.md, "Retention"). Runs in its own process, on its own connection,
// beside the running box. A run:
// 1. records itself (file, cut-off) in retention_runs, durably, before anything is copied;
// 2. copies the rows that may move into the archive file, in read transactions on the live database
//    (they lock nothing there) and write transactions on the archive, each committed to the disk;
// 3. checks the archive (integrity_check) and fsyncs it and its directory;
// 4. deletes from the live tables, `deleteBatch` rows per transaction with a pause between them so the
//    box's check-ins always get the write lock: only rows the archive holds, each re-checked inside
//    the transaction (a mark or acknowledgement added since the copy keeps its event live);
// 5. takes out of the archive what is still live (rows the re-check kept), so that every row is in
//    exactly one place, and marks the run finished.
// A crash anywhere leaves the run unfinished; the next `gate archive` resumes it with the same file
// and cut-off before starting a new one. Copies are INSERT OR REPLACE by id: nothing is doubled.
// Writes to the live database commit with synchronous=NORMAL, so no fsync runs while the box's write
// lock is held: the run's row is then made durable by an fsync of the WAL (as the box's write queue
// does), and a delete lost to a power cut is redone by the resume, since its rows are still in the
// archive.

export interface ArchiveOptions {
  /** Events of today and of the `days` days before it stay. */
  days: number;
  /** Where a new run's file goes: DIR/events-YYYY-MM-DD.sqlite (the park's date of the run). */
  dir: string;
  /** A file beside the database, locked while a run goes on: one run at a time. */
  lockFile: string;
  /** Slugs of the tenants a cloud syncs (GATE_TENANT with GATE_CLOUD_URL). */
  cloudTenants?: readonly string[];
  /** Count what would move; write nothing. */
  dryRun?: boolean;
  copyBatch?: number;
  /** Rows per delete transaction at most (500); fewer while a transaction takes more than 5 ms. */
  deleteBatch?: number;
  /**
   * Between delete transactions: longer than SQLite's longest busy-handler sleep (100 ms), so a waiting check-in gets
   * in.
   */
  pauseMs?: number;
  /** Called once the archive is written and checked, before the first delete (tests stop a run there). */
  afterCopy?: () => void;
}

export interface RunSummary {
  file: string;
  cutoffDate: string;
  resumed: boolean;
  events: number;
  laneEvents: number;
  /** The longest delete transaction, ms: how long a check-in of the box could have waited for the write lock. */
  longestMs: number;
}

export interface ArchiveResult {
  cutoff: Cutoff;
  runs: RunSummary[];
  /** Events before the cut-off kept because the cloud has not answered them for good. */
  waiting: number;
  /** With dryRun: what would move, and the interrupted runs a real run would finish first. */
  wouldMove?: { events: number; laneEvents: number; interrupted: string[] };
}

export class ArchiveBusyError extends Error {}

interface RunRow {
  id: number;
  file: string;
  cutoff: string;
}

export async function archiveOldEvents(sqlite: Sqlite, clock: Clock, opts: ArchiveOptions): Promise<ArchiveResult> {
  const cutoff = cutoffOf(clock, opts.days);
  const unfinished = () =>
    sqlite
      .prepare('SELECT id, file, cutoff FROM main.retention_runs WHERE finished_at IS NULL ORDER BY id')
      .all() as RunRow[];
  if (opts.dryRun) return dryRun(sqlite, cutoff, opts.cloudTenants ?? [], unfinished(), opts.copyBatch ?? 5000);
  const lock = takeLock(opts.lockFile);
  try {
    const runs: RunSummary[] = [];
    for (const row of unfinished()) runs.push((await runOnce(sqlite, clock, opts, row.cutoff, row)).summary!);
    const fresh = await runOnce(sqlite, clock, opts, cutoff.iso, undefined);
    if (fresh.summary) runs.push(fresh.summary);
    return { cutoff, runs, waiting: fresh.waiting };
  } finally {
    lock.release();
  }
}

function dryRun(
  sqlite: Sqlite,
  cutoff: Cutoff,
  cloud: readonly string[],
  unfinished: RunRow[],
  batch: number,
): ArchiveResult {
  const count = { events: 0, laneEvents: 0, waiting: 0 };
  for (const family of FAMILIES)
    for (const scope of tenantScopes(sqlite, cloud))
      for (const b of scanFamily(sqlite, family, scope, cutoff.iso, batch)) {
        count[family.root === 'events' ? 'events' : 'laneEvents'] += b.ids.length;
        count.waiting += b.waiting;
      }
  return {
    cutoff,
    runs: [],
    waiting: count.waiting,
    wouldMove: { events: count.events, laneEvents: count.laneEvents, interrupted: unfinished.map((r) => r.file) },
  };
}

async function runOnce(
  sqlite: Sqlite,
  clock: Clock,
  opts: ArchiveOptions,
  cutoffIso: string,
  resumed: RunRow | undefined,
) {
  const cloud = opts.cloudTenants ?? [];
  let run = resumed;
  let archive: AttachedArchive | undefined;
  let copies: Map<Family, (ids: number[]) => void> | undefined;
  const open = () => {
    // Durable (its WAL fsynced) before the file gets its first row: a crash after it is resumed with this file.
    run ??= startRun(sqlite, path.join(opts.dir, `events-${clock.today()}.sqlite`), cutoffIso, clock.nowIso());
    archive ??= attachArchive(sqlite, run.file);
    copies ??= new Map(FAMILIES.map((f) => [f, copier(sqlite, f)]));
    return copies;
  };
  sqlite.pragma('main.synchronous = NORMAL');
  try {
    if (run) open();
    let waiting = 0;
    for (const family of FAMILIES)
      for (const scope of tenantScopes(sqlite, cloud))
        for (const batch of scanFamily(sqlite, family, scope, cutoffIso, opts.copyBatch ?? 5000)) {
          waiting += batch.waiting;
          if (batch.ids.length === 0) continue;
          open().get(family)!(batch.ids);
          await sleep(0);
        }
    if (!run || !archive) return { waiting, summary: undefined };

    const integrity = archive.integrity();
    if (integrity !== 'ok')
      throw new Error(`o arquivo ${run.file} não passou no integrity_check (${integrity}); nada foi apagado do banco`);
    archive.flush();
    opts.afterCopy?.();

    const moved = { events: 0, laneEvents: 0 };
    const longest = { ms: 0 };
    const cloudIds = tenantScopes(sqlite, cloud)
      .filter((s) => !s.standalone)
      .map((s) => s.id);
    for (const family of FAMILIES) {
      const n = await deleteArchived(sqlite, family, cloudIds, opts.deleteBatch ?? 500, opts.pauseMs ?? 150, longest);
      moved[family.root === 'events' ? 'events' : 'laneEvents'] += n;
    }
    if (reconcile(sqlite) > 0) {
      const after = archive.integrity();
      if (after !== 'ok') throw new Error(`o arquivo ${run.file} não passou no integrity_check (${after})`);
    }
    finishRun(sqlite, run.id, clock.nowIso(), moved);
    archive.flush();
    return {
      waiting,
      summary: {
        file: run.file,
        cutoffDate: clock.localDate(run.cutoff),
        resumed: resumed !== undefined,
        ...moved,
        longestMs: longest.ms,
      },
    };
  } finally {
    archive?.detach();
    sqlite.pragma('main.synchronous = FULL');
  }
}

function startRun(sqlite: Sqlite, file: string, cutoffIso: string, nowIso: string): RunRow {
  const id = Number(
    sqlite
      .prepare('INSERT INTO main.retention_runs (file, cutoff, started_at) VALUES (?, ?, ?)')
      .run(file, cutoffIso, nowIso).lastInsertRowid,
  );
  // Committed without an fsync (synchronous=NORMAL): the WAL's fsync makes it durable, or a checkpoint already has.
  const wal = `${sqlite.name}-wal`;
  if (fs.existsSync(wal)) fsyncPath(wal);
  return { id, file, cutoff: cutoffIso };
}

/**
 * Copies rows of a family, with their dependents, into the archive: one archive transaction, on the disk when it
 * returns.
 */
function copier(sqlite: Sqlite, family: Family): (ids: number[]) => void {
  const copyRoot = sqlite.prepare(
    `INSERT OR REPLACE INTO arc.${family.root} (${columnList(sqlite, family.root)})
       SELECT ${columnList(sqlite, family.root)} FROM main.${family.root} WHERE id IN (SELECT value FROM json_each(?))`,
  );
  const copyDeps = family.dependents.map((d) =>
    sqlite.prepare(
      `INSERT OR REPLACE INTO arc.${d.table} (${columnList(sqlite, d.table)})
         SELECT ${columnList(sqlite, d.table)} FROM main.${d.table} WHERE ${quote(d.fk)} IN (SELECT value FROM json_each(?))`,
    ),
  );
  return sqlite.transaction((ids: number[]) => {
    const list = JSON.stringify(ids);
    copyLookups(sqlite);
    copyRoot.run(list);
    for (const dep of copyDeps) dep.run(list);
  });
}

function finishRun(sqlite: Sqlite, id: number, nowIso: string, moved: { events: number; laneEvents: number }): void {
  sqlite.transaction(() => {
    sqlite
      .prepare(
        'UPDATE main.retention_runs SET finished_at = ?, events = events + ?, lane_events = lane_events + ? WHERE id = ?',
      )
      .run(nowIso, moved.events, moved.laneEvents, id);
    sqlite
      .prepare(
        'INSERT OR REPLACE INTO arc.runs (id, cutoff, started_at, finished_at, events, lane_events) SELECT id, cutoff, started_at, finished_at, events, lane_events FROM main.retention_runs WHERE id = ?',
      )
      .run(id);
  })();
}

/** One run at a time: an exclusive lock on a small SQLite file, released by the OS if the process dies. */
function takeLock(file: string): { release(): void } {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const db = new Database(file);
  db.pragma('busy_timeout = 0');
  try {
    db.exec('BEGIN EXCLUSIVE');
  } catch (error) {
    db.close();
    if ((error as { code?: string }).code === 'SQLITE_BUSY')
      throw new ArchiveBusyError(
        'outro "gate archive" está em andamento neste banco; tente de novo quando ele terminar',
      );
    throw error;
  }
  return {
    release() {
      db.exec('ROLLBACK');
      db.close();
    },
  };
}
