import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { Kysely, Migrator, SqliteAdapter, SqliteDialect } from 'kysely';
import { migrations } from '../../migrations/index.js';
import { stopWalHelpers } from './wal.js';
import type { DB } from './schema.js';
import type { Sqlite } from './sqlite.js';
import { createWriteQueue, type WriteQueue } from './write-queue.js';

export type { Sqlite } from './sqlite.js';

export interface Db {
  readonly sqlite: Sqlite;
  /**
   * The query builder (typed against schema.ts); its async executor is the migrator's only (query.ts runs everything
   * else).
   */
  readonly kysely: Kysely<DB>;
  /**
   * The connection's one group-commit queue (write-queue.ts), made on first use: check-ins, lane
   * events and sync pages share its commits and fsyncs, and take turns on the event loop.
   */
  readonly writes: WriteQueue;
  /**
   * This connection's prepared statement for `sql`, prepared on first use and kept: the one statement
   * cache of the connection, keyed by the SQL text (query.ts puts every kysely-built query through it).
   * Shared by every caller of the same SQL: never change its mode (pluck, raw, expand).
   */
  statement(sql: string): Database.Statement;
  close(): void;
}

/**
 * Opens the database with the pragmas durability depends on: WAL with synchronous=FULL (the check-in
 * write queue commits with NORMAL and fsyncs the WAL itself before answering, src/db/wal.ts), so a
 * transaction that returned is on disk, foreign keys on, and a busy timeout so the CLI and the
 * server can share the file.
 */
export function openDatabase(file: string): Db {
  if (file !== ':memory:') fs.mkdirSync(path.dirname(file), { recursive: true });
  const sqlite = new Database(file);
  try {
    sqlite.pragma('journal_mode = WAL');
    sqlite.pragma('synchronous = FULL');
    sqlite.pragma('foreign_keys = ON');
    sqlite.pragma('busy_timeout = 5000');
    sqlite.pragma('cache_size = -16000');
    // Temporary b-trees (the search index's merges, sorts) in memory rather than temp files on the disk.
    sqlite.pragma('temp_store = MEMORY');
  } catch (error) {
    // A file that is not a database fails here: nobody else holds the handle to close it.
    sqlite.close();
    throw error;
  }
  const kysely = new Kysely<DB>({ dialect: new TransactionalSqliteDialect({ database: sqlite }) });
  let writes: WriteQueue | undefined;
  const statements = new Map<string, Database.Statement>();
  return {
    sqlite,
    kysely,
    get writes() {
      return (writes ??= createWriteQueue(sqlite));
    },
    statement(sql) {
      let stmt = statements.get(sql);
      if (stmt === undefined) statements.set(sql, (stmt = sqlite.prepare(sql)));
      return stmt;
    },
    close() {
      statements.clear();
      stopWalHelpers(sqlite);
      if (sqlite.open) sqlite.close();
    },
  };
}

/** This release's migrations not applied to the database yet (all of them on an empty file), and how many are. */
export function migrationState(sqlite: Sqlite): { applied: number; pending: string[] } {
  const table = sqlite.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'kysely_migration'").get();
  const done = new Set(table ? (sqlite.prepare('SELECT name FROM kysely_migration').pluck().all() as string[]) : []);
  return { applied: done.size, pending: Object.keys(migrations).filter((m) => !done.has(m)) };
}

export async function migrateToLatest(db: Db): Promise<string[]> {
  const migrator = new Migrator({ db: db.kysely, provider: { getMigrations: async () => migrations } });
  // SQLite's procedure for rebuilding a table needs foreign keys off (they cannot change inside the
  // migration's transaction); a migration that rebuilds checks them with foreign_key_check itself.
  db.sqlite.pragma('foreign_keys = OFF');
  try {
    const { error, results } = await migrator.migrateToLatest();
    if (error) throw error instanceof Error ? error : new Error(String(error));
    return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
  } finally {
    db.sqlite.pragma('foreign_keys = ON');
  }
}

/** SQLite does run DDL inside transactions; telling kysely so makes the migrator wrap them in one. */
class TransactionalSqliteDialect extends SqliteDialect {
  override createAdapter() {
    return new (class extends SqliteAdapter {
      override get supportsTransactionalDdl() {
        return true;
      }
    })();
  }
}
