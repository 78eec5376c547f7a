import fs from 'node:fs';
import path from 'node:path';
import { systemClock, type Clock } from '../clock.js';
import type { Log } from '../lib/log.js';
import { replacementCheck } from './holder.js';
import type { Sqlite } from './sqlite.js';

// Whether the database takes writes. A full disk, a read-only file or an I/O error makes every
// check-in fail: the doors then answer 503 SERVICE_UNAVAILABLE (the gate falls back to its manual
// procedure), /health fails, and the log says it once per change of state. It recovers by itself:
// the next write that works, or a probe from /health, clears it. The probe writes nothing that
// stays: free space and write access on the file system, and a page-sized row in a savepoint that
// is rolled back (what SQLite's own limits refuse, as a read-only connection or max_page_count).

/** Less free space than this on the database's file system counts as a full disk. */
const MIN_FREE_BYTES = 1024 * 1024;

export const CANNOT_RECORD =
  'O box não consegue gravar no banco de dados (disco cheio ou somente leitura): use o procedimento manual da portaria e avise o suporte.';

/** The SQLite or system error code of a storage failure, or null for any other error. */
export function storageFailure(err: unknown): string | null {
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code !== 'string') return null;
  if (/^SQLITE_(FULL|READONLY|IOERR|CANTOPEN|CORRUPT|NOTADB)/.test(code)) return code;
  return ['ENOSPC', 'EROFS', 'EIO', 'EDQUOT'].includes(code) ? code : null;
}

export interface StorageHealth {
  /**
   * The failure's code while writes fail, else null. A database file replaced under the box (holder.ts)
   * fails for good, with the reason: only a restart opens the new file.
   */
  failing(): string | null;
  /** Records an error; true when it is a storage failure. */
  record(err: unknown): boolean;
  /** A write went through. */
  recovered(): void;
  /**
   * Checks the file is still the one opened; while failing, tries one small write (at most once a
   * second); returns failing().
   */
  probe(): string | null;
}

export function createStorageHealth({
  sqlite,
  log,
  clock = systemClock,
}: {
  sqlite: Sqlite;
  log?: Pick<Log, 'info' | 'error'> | undefined;
  clock?: Clock;
}): StorageHealth {
  const now = () => clock.now().getTime();
  let failing: string | null = null;
  let replaced: string | null = null;
  let probedAt = -Infinity;
  const file = sqlite.memory ? null : sqlite.name;
  const replacedBy = file ? replacementCheck(file) : () => null;
  const insert = sqlite.prepare('INSERT OR REPLACE INTO storage_probe (id, at) VALUES (1, ?)');
  const page = 'x'.repeat(8192);
  const tryWrite = () => {
    if (file) {
      fs.accessSync(file, fs.constants.W_OK);
      fs.accessSync(path.dirname(file), fs.constants.W_OK);
      const { bavail, bsize } = fs.statfsSync(path.dirname(file));
      if (bavail * bsize < MIN_FREE_BYTES) throw Object.assign(new Error('no space left'), { code: 'ENOSPC' });
    }
    sqlite.exec('SAVEPOINT storage_probe');
    try {
      insert.run(page);
    } finally {
      sqlite.exec('ROLLBACK TO storage_probe; RELEASE storage_probe');
    }
  };

  const health: StorageHealth = {
    failing: () => replaced ?? failing,
    record(err) {
      const code = storageFailure(err);
      if (!code) return false;
      if (failing === null)
        log?.error({ codigo: code }, 'database cannot be written: check-ins answer 503 until it can');
      failing = code;
      return true;
    },
    recovered() {
      if (failing === null) return;
      log?.info({ codigo: failing }, 'database writable again');
      failing = null;
    },
    probe() {
      if (replaced === null && (replaced = replacedBy()) !== null)
        log?.error({ arquivo: file, motivo: replaced }, 'database file replaced under the running box: not ready');
      if (replaced !== null) return replaced;
      if (failing === null || now() - probedAt < 1000) return failing;
      probedAt = now();
      try {
        tryWrite();
        health.recovered();
      } catch (err) {
        health.record(err);
      }
      return failing;
    },
  };
  return health;
}
