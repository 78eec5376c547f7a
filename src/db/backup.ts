import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { fsyncPath, removeGently, vacuumIntoDurably } from './durable-copy.js';

// Online backups: `VACUUM INTO` copies the database as one read transaction sees it, a consistent
// snapshot while check-ins go on in the box (WAL readers do not block writers). SQLite's backup API
// was the other way; it starts over whenever another connection writes during the copy, which at a
// busy gate may be always. The copy is flushed to disk as it is written (durable-copy.ts) and
// verified with integrity_check before it takes its final name; then the newest N are kept.

const NAME = /^gate-\d{8}-\d{6}\.db$/;

const stamp = (at: Date) => at.toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);

/** 'ok', or the first problems integrity_check names. */
export function integrityOf(file: string): string {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    const rows = db.pragma('integrity_check') as { integrity_check: string }[];
    return rows
      .map((r) => r.integrity_check)
      .slice(0, 5)
      .join('; ');
  } finally {
    db.close();
  }
}

/**
 * Copies the live database (the file `source`) into `dir` as gate-YYYYMMDD-HHMMSS.db (UTC), on disk and
 * verified; then keeps the newest `keep`.
 */
export async function backupDatabase(
  source: string,
  dir: string,
  now: Date,
  keep: number,
): Promise<{ file: string; bytes: number; removed: string[]; copyMs: number; checkMs: number }> {
  fs.mkdirSync(dir, { recursive: true });
  const started = performance.now();
  const file = path.join(dir, `gate-${stamp(now)}.db`);
  const partial = `${file}.parcial`;
  fs.rmSync(partial, { force: true });
  try {
    await vacuumIntoDurably(source, partial, { readonly: false });
  } catch (error) {
    fs.rmSync(partial, { force: true });
    throw error;
  }
  const copied = performance.now();
  const integrity = integrityOf(partial);
  if (integrity !== 'ok') {
    fs.rmSync(partial, { force: true });
    throw new Error(`a cópia não passou no integrity_check: ${integrity}`);
  }
  const checkMs = performance.now() - copied;
  fs.renameSync(partial, file);
  fsyncPath(dir);
  const backups = fs
    .readdirSync(dir)
    .filter((f) => NAME.test(f))
    .sort();
  const removed = backups.slice(0, Math.max(0, backups.length - keep));
  for (const old of removed) await removeGently(path.join(dir, old));
  return { file, bytes: fs.statSync(file).size, removed, copyMs: copied - started, checkMs };
}

/**
 * A verified, self-contained copy of `source` at `dest`: a backup file, or a database copied off a
 * dead box's disk with its `-wal` beside it (the newest check-ins may be only in the WAL; opening it
 * read-write lets SQLite read them, and the copy is one file with everything).
 */
export async function consolidatedCopy(source: string, dest: string): Promise<void> {
  if (!fs.existsSync(source)) throw new Error(`${source}: arquivo não encontrado`);
  const wal = `${source}-wal`;
  const withWal = fs.existsSync(wal) && fs.statSync(wal).size > 0;
  fs.rmSync(dest, { force: true });
  try {
    await vacuumIntoDurably(source, dest, { readonly: !withWal });
  } catch (error) {
    fs.rmSync(dest, { force: true });
    throw new Error(`${source} não pôde ser lido como banco: ${(error as Error).message}`, { cause: error });
  }
  const integrity = integrityOf(dest);
  if (integrity !== 'ok') {
    fs.rmSync(dest, { force: true });
    throw new Error(`${source} não passou no integrity_check: ${integrity}`);
  }
}

/** What a database holds, as `gate restore` shows it (tables an old schema lacks count as empty). */
export interface Contents {
  orders: number;
  people: number;
  events: number;
  newestEvent: string | null;
}

export function contentsOf(file: string): Contents {
  const db = new Database(file, { fileMustExist: true });
  try {
    const has = (table: string) =>
      db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(table) !== undefined;
    const count = (table: string) =>
      has(table) ? (db.prepare(`SELECT count(*) FROM ${table}`).pluck().get() as number) : 0;
    return {
      orders: count('orders'),
      people: count('people'),
      events: count('events'),
      newestEvent: has('events')
        ? ((db.prepare('SELECT max(occurred_at) FROM events').pluck().get() as string | null) ?? null)
        : null,
    };
  } finally {
    db.close();
  }
}

/**
 * Puts a consolidated copy (consolidatedCopy, in the target's folder) in place of the database, with
 * no box holding it (holder.ts). The current database, with its WAL, is kept beside it as
 * gate.db.antes-de-restaurar-<stamp>, so a restore can be undone.
 */
export function restoreDatabase(copy: string, target: string, now: Date): { keptAs: string | null } {
  let keptAs: string | null = null;
  if (fs.existsSync(target)) {
    keptAs = `${target}.antes-de-restaurar-${stamp(now)}`;
    // Checkpoint first, so the kept copy is one file with everything the WAL held.
    const current = new Database(target);
    current.pragma('wal_checkpoint(TRUNCATE)');
    current.close();
    fs.renameSync(target, keptAs);
  }
  for (const suffix of ['-wal', '-shm']) fs.rmSync(`${target}${suffix}`, { force: true });
  fs.renameSync(copy, target);
  fsyncPath(path.dirname(target));
  return { keptAs };
}
