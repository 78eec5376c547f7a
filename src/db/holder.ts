import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';

// Who has the database: a running box holds a shared lock on gate.db.lock for its whole life, and
// `gate restore` needs it exclusively, so a restore under a running box is refused instead of
// swapping the file the box keeps writing into. The locks are SQLite's own (fcntl on the lock file,
// in rollback-journal mode): the kernel drops them when the process ends, so a box that crashed or
// was killed leaves no stale lock behind, and a file left on disk means nothing by itself.
// Shared, not exclusive: two boxes on one database are another problem, not this lock's.

export class DatabaseInUseError extends Error {}

export const lockFileOf = (databaseFile: string) => `${databaseFile}.lock`;

export interface DatabaseHold {
  release(): void;
}

function openLock(databaseFile: string, busyMs: number): Database.Database {
  const file = lockFileOf(databaseFile);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const lock = new Database(file);
  lock.pragma(`busy_timeout = ${busyMs}`);
  return lock;
}

function held(lock: Database.Database, begin: () => void, busy: string): DatabaseHold {
  try {
    begin();
  } catch (error) {
    lock.close();
    if ((error as { code?: string }).code === 'SQLITE_BUSY') throw new DatabaseInUseError(busy);
    throw error;
  }
  return {
    release() {
      if (!lock.open) return;
      if (lock.inTransaction) lock.exec('ROLLBACK');
      lock.close();
    },
  };
}

/** The box's hold, for as long as it runs; waits a while for a restore in progress to finish. */
export function holdDatabase(databaseFile: string, waitMs = 10_000): DatabaseHold {
  if (databaseFile === ':memory:') return { release() {} };
  const lock = openLock(databaseFile, waitMs);
  return held(
    lock,
    () => {
      lock.exec('BEGIN');
      lock.prepare('SELECT count(*) FROM sqlite_master').get();
    },
    `o banco ${databaseFile} está sendo restaurado (gate restore): tente de novo quando terminar`,
  );
}

/** What `open` returns; the hold released when it throws. */
export function openOrRelease<T>(hold: DatabaseHold, open: () => T): T {
  try {
    return open();
  } catch (error) {
    hold.release();
    throw error;
  }
}

/** `gate restore`'s hold: refused at once while any box holds the database (a stale lock cannot exist). */
export function takeDatabaseExclusively(databaseFile: string): DatabaseHold {
  const lock = openLock(databaseFile, 0);
  return held(
    lock,
    () => lock.exec('BEGIN EXCLUSIVE'),
    `um box está usando o banco ${databaseFile}: pare o serviço antes (sudo systemctl stop gate) e repita`,
  );
}

const identity = (file: string): string | null => {
  try {
    const s = fs.statSync(file);
    return `${s.dev}:${s.ino}`;
  } catch {
    return null;
  }
};

/**
 * Whether the file at `file` is still the one opened at the start: a file renamed away, deleted or
 * replaced (a restore, a copy over it) leaves the box writing into a file nobody will read again.
 * Returns null while it is the same file, else why not, in Portuguese.
 */
export function replacementCheck(file: string): () => string | null {
  const opened = identity(file);
  return () => {
    if (opened === null) return null;
    const now = identity(file);
    if (now === opened) return null;
    return now === null
      ? `BANCO_SUBSTITUIDO: o arquivo ${file} foi removido ou renomeado com o box em execução; reinicie o box (sudo systemctl restart gate)`
      : `BANCO_SUBSTITUIDO: o arquivo ${file} foi trocado por outro com o box em execução (um gate restore?); o que o box gravasse iria para o arquivo antigo: reinicie o box (sudo systemctl restart gate)`;
  };
}
