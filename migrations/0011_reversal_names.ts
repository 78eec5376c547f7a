import type { Kysely } from 'kysely';
import { execDdl } from './ddl.js';

// One name per concept: a redeemed unit of an additional takes the column names of a person's
// check-in and reversal (people.checkin_em, ..., estorno_operador; the spec's names on the wire).
// RENAME COLUMN (SQLite 3.25+) rewrites the index on (additional_id, reversed_at) with the column;
// no trigger or view reads this table. Rows are untouched.
const RENAMES = [
  ['redeemed_at', 'checkin_em'],
  ['terminal', 'checkin_dispositivo'],
  ['operador', 'checkin_operador'],
  ['reversed_at', 'estornado_em'],
  ['reversal_terminal', 'estorno_dispositivo'],
  ['reversal_operador', 'estorno_operador'],
];

export async function up(db: Kysely<unknown>): Promise<void> {
  await execDdl(
    db,
    RENAMES.map(([from, to]) => `ALTER TABLE additional_redemptions RENAME COLUMN ${from} TO ${to}`),
  );
}
