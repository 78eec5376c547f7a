import type { Kysely } from 'kysely';
import { execDdl } from './ddl.js';

// Pages of orders the cloud has already marked as synchronised (the incremental pull), kept as the
// cloud sent them until every order of the page is stored. The page is then applied in short
// transactions between check-ins, and a crash or power cut in between resumes at `applied` instead of
// losing what the cloud will not send again (src/sync/pull.ts, docs/sync.md).
export async function up(db: Kysely<unknown>): Promise<void> {
  await execDdl(db, [
    `CREATE TABLE sync_inbox (
        id INTEGER PRIMARY KEY,
        tenant_id INTEGER NOT NULL REFERENCES tenants(id),
        body TEXT NOT NULL,
        applied INTEGER NOT NULL DEFAULT 0,
        received_at TEXT NOT NULL
      )`,
  ]);
}
