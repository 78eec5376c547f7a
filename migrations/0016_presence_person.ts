import type { Kysely } from 'kysely';
import { execDdl } from './ddl.js';

// A reversal ends the person's movements wherever they are inside (`leaveAll`, src/checkin/checkin.repo.ts), found by
// person: the table's key starts with the tenant and the area, so each reversal scanned every presence row of the
// day (issue 25: at 700,000 check-ins a reversal held the event loop for tens of ms; reversals were three quarters of
// the box's CPU in bench:memory). One more index entry per person's first movement into an area.
export async function up(db: Kysely<unknown>): Promise<void> {
  await execDdl(db, ['CREATE INDEX presence_person ON presence (person_id)']);
}
