import type { Kysely } from 'kysely';
import { execDdl } from './ddl.js';

// Events written while the box's clock was suspect (src/clock-check.ts, docs/operations.md "Clock")
// carry why: 'atrasado_em_relacao_ao_ultimo_evento' or 'diferenca_da_nuvem'; null when the clock
// looked right. Events stay append-only: the mark is written with the event, never afterwards.
export async function up(db: Kysely<unknown>): Promise<void> {
  await execDdl(db, ['ALTER TABLE events ADD COLUMN relogio_suspeito TEXT']);
}
