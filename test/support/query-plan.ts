import type { Db } from '../../src/db/open.js';

/** SQLite's plan for a statement, its steps joined: what a test reads to see a statement goes by index. */
export const queryPlan = (db: Db, sql: string, ...args: unknown[]) =>
  (db.sqlite.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...args) as { detail: string }[])
    .map((r) => r.detail)
    .join(' | ');
