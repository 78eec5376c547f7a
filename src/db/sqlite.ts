import type Database from 'better-sqlite3';

/** One better-sqlite3 connection: its own module, so the write queue and the WAL helpers need not import open.ts. */
export type Sqlite = Database.Database;
