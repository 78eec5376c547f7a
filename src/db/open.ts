import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { Kysely, Migrator, SqliteAdapter, SqliteDialect, sql, type Compilable } from 'kysely';
import { migrations } from '../../migrations/index.js';
import { stopWalHelpers } from './wal.js';
import type { DB } from './schema.js';
import { createWriteQueue, type WriteQueue } from './write-queue.js';

export type Sqlite = Database.Database;

export interface Db {
  readonly sqlite: Sqlite;
  /** Query builder and async executor over the same connection. */
  readonly kysely: Kysely<DB>;
  /**
   * The connection's one group-commit queue (write-queue.ts), made on first use: check-ins, lane
   * events and sync pages share its commits and fsyncs, and take turns on the event loop.
   */
  readonly writes: WriteQueue;
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
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = FULL');
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma('busy_timeout = 5000');
  sqlite.pragma('cache_size = -16000');
  // Temporary b-trees (the search index's merges, sorts) in memory rather than temp files on the disk.
  sqlite.pragma('temp_store = MEMORY');
  const kysely = new Kysely<DB>({ dialect: new TransactionalSqliteDialect({ database: sqlite }) });
  let writes: WriteQueue | undefined;
  return {
    sqlite,
    kysely,
    get writes() {
      return (writes ??= createWriteQueue(sqlite));
    },
    close() {
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

/**
 * A list of values as ONE bound parameter, `(select value from json_each(?))`, for `in` and
 * `insert ... select`: the SQL, and so its cached statement, does not change with the list's length.
 */
export const inList = <T extends string | number>(values: readonly T[]) => sql<T>`(select value from json_each(${JSON.stringify(values)}))`;

export function run(sqlite: Sqlite, query: Compilable<any>): Database.RunResult {
  const { sql, parameters } = query.compile();
  return statement(sqlite, sql).run(...params(parameters));
}


/** Stands for one named argument of a query compiled once (see `prepareQuery`). */
class Param {
  constructor(readonly name: string) {}
}

export interface PreparedQuery<A, R> {
  get(args: A): R | undefined;
  all(args: A): R[];
  run(args: A): Database.RunResult;
}

/**
 * A kysely-built query, compiled and prepared once: `build` receives `p`, whose properties stand for
 * the arguments (`where('qr_code', '=', p.qr)`), and each call binds its arguments by name. For hot
 * paths, which then pay neither query building nor SQL compilation per call.
 */
export function prepareQuery<A extends Record<string, unknown>, Q extends Compilable<any>>(
  sqlite: Sqlite,
  build: (p: A) => Q,
): PreparedQuery<A, Row<Q>> {
  const used = new Set<Param>();
  const p = new Proxy({}, {
    get: (_t, name) => {
      const param = new Param(String(name));
      used.add(param);
      return param;
    },
  }) as A;
  const { sql, parameters } = build(p).compile();
  // Every argument must have become a bound parameter (not, say, text in the SQL).
  for (const param of used) if (!parameters.includes(param)) throw new Error(`prepareQuery: argument ${param.name} is not a bound parameter of ${sql}`);
  // Prepared on first use, so creating a repo does not need its tables yet.
  let prepared: Database.Statement | undefined;
  const stmt = () => (prepared ??= sqlite.prepare(sql));
  // Per parameter position: the argument's name, or the constant the query was built with.
  const names = parameters.map((v) => (v instanceof Param ? v.name : null));
  const constants = parameters.map((v) => (v instanceof Param ? null : v));
  const bind = (args: A) => {
    const values = new Array<unknown>(names.length);
    for (let i = 0; i < names.length; i++) {
      const name = names[i];
      const v = name == null ? constants[i] : args[name];
      values[i] = typeof v === 'boolean' ? (v ? 1 : 0) : v;
    }
    return values;
  };
  return {
    get: (args) => stmt().get(...bind(args)) as Row<Q> | undefined,
    all: (args) => stmt().all(...bind(args)) as Row<Q>[],
    run: (args) => stmt().run(...bind(args)),
  };
}
