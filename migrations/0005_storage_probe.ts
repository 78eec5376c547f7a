import type { Kysely } from 'kysely';
import { execDdl } from './ddl.js';

// Where the box tries a write, always rolled back, to learn whether the database takes writes again
// after a failure (a full disk, a read-only file): src/db/storage.ts.
export async function up(db: Kysely<unknown>): Promise<void> {
  await execDdl(db, ['CREATE TABLE storage_probe (id INTEGER PRIMARY KEY CHECK (id = 1), at TEXT NOT NULL)']);
}
