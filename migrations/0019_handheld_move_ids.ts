import type { Kysely } from 'kysely';
import { execDdl } from './ddl.js';

// A handheld's movement is known by its id whatever key brings it (docs/handheld.md, "Paired again"): a device
// paired again uploads, under its new key, movements the box recorded under the old one. So each movement keeps its
// code (a movement of another device with the same id is the same one only for the same code) and the people an
// online scan let in (a repeat answers as the first time), and the ids are indexed on their own. Rows written before
// have no code: they are recognised by their own device only, as they were.
export async function up(db: Kysely<unknown>): Promise<void> {
  await execDdl(db, [
    'ALTER TABLE handheld_moves ADD COLUMN code TEXT',
    "ALTER TABLE handheld_moves ADD COLUMN admitted TEXT NOT NULL DEFAULT '[]'",
    'CREATE INDEX handheld_moves_id ON handheld_moves (move_id)',
  ]);
}
