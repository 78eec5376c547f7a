import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { Kysely, Migrator, SqliteAdapter, SqliteDialect, type Compilable } from 'kysely';
import { migrations } from '../../migrations/index.js';
import type { DB } from './schema.js';

export type Sqlite = Database.Database;

export interface Db {
  readonly sqlite: Sqlite;
  /** Query builder and async executor over the same connection. */
  readonly kysely: Kysely<DB>;
  close(): void;
}

/**
 * Opens the database with the pragmas durability depends on: WAL with synchronous=FULL, so a
 * transaction that returned is on disk, foreign keys on, and a busy timeout so the CLI and the
 * server can share the file.
 */
export function openDatabase(file: string): Db {
  if (file !== ':memory:') fs.mkdirSync(path.dirname(file), { recursive: true });
  const sqlite = new Database(file);
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = FULL');
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma('busy_timeout = 5000');
  sqlite.pragma('cache_size = -16000');
  const kysely = new Kysely<DB>({ dialect: new TransactionalSqliteDialect({ database: sqlite }) });
  return {
    sqlite,
    kysely,
    close() {
      if (sqlite.open) sqlite.close();
    },
  };
}

export async function migrateToLatest(db: Db): Promise<string[]> {
  const migrator = new Migrator({ db: db.kysely, provider: { getMigrations: async () => migrations } });
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(String(error));
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
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

// Synchronous execution of kysely-built queries, for code that must run inside a better-sqlite3
// transaction (the check-in hot path): kysely builds the SQL, better-sqlite3 runs it, statements cached.
const statementCache = new WeakMap<Sqlite, Map<string, Database.Statement>>();

function statement(sqlite: Sqlite, sql: string): Database.Statement {
  let cache = statementCache.get(sqlite);
  if (!cache) statementCache.set(sqlite, (cache = new Map()));
  let stmt = cache.get(sql);
  if (!stmt) cache.set(sql, (stmt = sqlite.prepare(sql)));
  return stmt;
}

type Row<Q> = Q extends Compilable<infer R> ? R : never;
const params = (p: readonly unknown[]) => p.map((v) => (typeof v === 'boolean' ? (v ? 1 : 0) : v));

export function all<Q extends Compilable<any>>(sqlite: Sqlite, query: Q): Row<Q>[] {
  const { sql, parameters } = query.compile();
  return statement(sqlite, sql).all(...params(parameters)) as Row<Q>[];
}

export function first<Q extends Compilable<any>>(sqlite: Sqlite, query: Q): Row<Q> | undefined {
  const { sql, parameters } = query.compile();
  return statement(sqlite, sql).get(...params(parameters)) as Row<Q> | undefined;
}

export function run(sqlite: Sqlite, query: Compilable<any>): Database.RunResult {
  const { sql, parameters } = query.compile();
  return statement(sqlite, sql).run(...params(parameters));
}

