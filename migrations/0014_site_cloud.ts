import type { Kysely } from 'kysely';
import { execDdl } from './ddl.js';

// The cloud across the site's boxes (docs/site.md, "A person's events reach the cloud in order"): only the box that
// made a movement pushes it, so a box holds its own event of a person while an earlier event of that person from
// another box is not yet settled with the cloud.
// - site_cloud: per other box of the site, what it last said of its cloud: every movement of its with a hub
//   sequence below settled_below is settled with the cloud (0: nothing known yet, so all of its are held on).
// - events_site_box_seq: that box's movements applied here from a sequence on, read on every push round.
export async function up(db: Kysely<unknown>): Promise<void> {
  await execDdl(db, [
    `CREATE TABLE site_cloud (
       tenant_id INTEGER NOT NULL,
       box TEXT NOT NULL,
       settled_below INTEGER NOT NULL DEFAULT 0,
       heard_at TEXT,
       PRIMARY KEY (tenant_id, box)
     ) WITHOUT ROWID`,
    'CREATE INDEX events_site_box_seq ON events (tenant_id, site_box, site_seq) WHERE site_box IS NOT NULL',
  ]);
}
