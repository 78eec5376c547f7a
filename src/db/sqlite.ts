import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import type Database from 'better-sqlite3';

/** One better-sqlite3 connection: its own module, so the write queue and the WAL helpers need not import open.ts. */
export type Sqlite = Database.Database;

/** better-sqlite3's entry as a URL, for worker threads that open a connection of their own (`eval` code imports it). */
export const sqliteDriverUrl = (): string =>
  pathToFileURL(createRequire(import.meta.url).resolve('better-sqlite3')).href;
