import type { Kysely } from 'kysely';
import { execDdl } from './ddl.js';

// A ticket's own history at this box: its check-ins and reversals, from every door and every box of the site. The
// site judges a double entry on that history in the order things happened (src/checkin/rules/doubles.ts), whatever
// order the box learned them in, so it reads it at each movement it applies from another box. Until now only the
// other boxes' events were indexed by ticket (events_site_ticket), and reading a person's events walked the log.

export async function up(db: Kysely<unknown>): Promise<void> {
  // Refusals are left out: they are most of a rush's events, and no ticket history reads them.
  await execDdl(db, [
    `CREATE INDEX events_person ON events (person_id, id) WHERE person_id IS NOT NULL AND result = 'ok'`,
  ]);
}
