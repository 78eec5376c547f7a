import type Database from 'better-sqlite3';
import {
  DummyDriver,
  Kysely,
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
  sql,
  type Compilable,
  type InferResult,
} from 'kysely';
import type { Db } from './open.js';
import type { DB } from './schema.js';

// The one way the box runs SQL built by kysely: synchronously, through better-sqlite3, so that it can
// run inside a transaction (the write queue's, a sync page's), with every statement prepared once per
// connection and kept in the connection's cache (`Db.statement`, keyed by the SQL text). kysely's
// async executor is used by the migrator only. docs/architecture.md, "The data layer".

/** A query's row: kysely's own inference (the selected columns, their nullability). */
export type RowOf<Q extends Compilable<unknown>> = InferResult<Q>[number];

/** Stands for one named argument of a query defined with `defineQuery`. */
class Param {
  constructor(readonly name: string) {}
}

const params = (p: readonly unknown[]) => p.map((v) => (typeof v === 'boolean' ? (v ? 1 : 0) : v));

/** Rows of a query built for one call (rare paths: listings with optional filters, the CLI, sync). */
export function all<Q extends Compilable<unknown>>(db: Db, query: Q): RowOf<Q>[] {
  const { sql, parameters } = query.compile();
  return db.statement(sql).all(...params(parameters)) as RowOf<Q>[];
}

export function first<Q extends Compilable<unknown>>(db: Db, query: Q): RowOf<Q> | undefined {
  const { sql, parameters } = query.compile();
  return db.statement(sql).get(...params(parameters)) as RowOf<Q> | undefined;
}

export function run(db: Db, query: Compilable<unknown>): Database.RunResult {
  const { sql, parameters } = query.compile();
  return db.statement(sql).run(...params(parameters));
}

/**
 * A list of values as ONE bound parameter, `(select value from json_each(?))`, for `in` and
 * `insert ... select`: the SQL, and so its cached statement, does not change with the list's length.
 * In a `defineQuery`, `inList(p.ids)` binds the argument `ids`, a list, as its JSON.
 */
export const inList = <T extends string | number>(values: readonly T[]) =>
  sql<T>`(select value from json_each(${values instanceof Param ? values : JSON.stringify(values)}))`;

export interface Query<A, R> {
  get(db: Db, args: A): R | undefined;
  all(db: Db, args: A): R[];
  run(db: Db, args: A): Database.RunResult;
}

/**
 * Builds and compiles `defineQuery`'s queries at module load: SQLite's compiler with no connection
 * behind it (kysely's documented way to build queries apart from running them). Stateless; the SQL
 * it compiles is what every connection's own builder would.
 */
const compiler = new Kysely<DB>({
  dialect: {
    createAdapter: () => new SqliteAdapter(),
    createDriver: () => new DummyDriver(),
    createIntrospector: (db) => new SqliteIntrospector(db),
    createQueryCompiler: () => new SqliteQueryCompiler(),
  },
});

/**
 * A query with named arguments, built and compiled once for the whole process, when it is defined
 * (a mistake fails the module's import, not the first scan), and prepared once per connection: for
 * hot paths, which then pay neither query building nor SQL compilation per call. `build` receives the
 * query builder and `p`, whose properties stand for the arguments (`where('qr_code', '=', p.qr)`);
 * each call binds its arguments by name. Defined at module level.
 */
export function defineQuery<A extends Record<string, unknown>, Q extends Compilable<unknown>>(
  build: (k: Kysely<DB>, p: A) => Q,
): Query<A, RowOf<Q>> {
  const used = new Set<Param>();
  const p = new Proxy(
    {},
    {
      get: (_t, name) => {
        const param = new Param(String(name));
        used.add(param);
        return param;
      },
    },
  ) as A;
  const { sql, parameters } = build(compiler, p).compile();
  // Every argument must have become a bound parameter (not, say, text in the SQL).
  for (const param of used)
    if (!parameters.includes(param))
      throw new Error(`defineQuery: argument ${param.name} is not a bound parameter of ${sql}`);
  // Per parameter position: the argument's name, or the constant the query was built with.
  const names = parameters.map((v) => (v instanceof Param ? v.name : null));
  const constants = parameters.map((v) => (v instanceof Param ? null : v));
  const bind = (args: A) => {
    const values = new Array<unknown>(names.length);
    for (let i = 0; i < names.length; i++) {
      const name = names[i];
      const v = name == null ? constants[i] : args[name];
      values[i] = typeof v === 'boolean' ? (v ? 1 : 0) : Array.isArray(v) ? JSON.stringify(v) : v;
    }
    return values;
  };
  return {
    get: (db, args) => db.statement(sql).get(...bind(args)) as RowOf<Q> | undefined,
    all: (db, args) => db.statement(sql).all(...bind(args)) as RowOf<Q>[],
    run: (db, args) => db.statement(sql).run(...bind(args)),
  };
}
