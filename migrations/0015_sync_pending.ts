import type { Kysely } from 'kysely';
import { execDdl } from './ddl.js';

// What the box's status reads of the outbox every second while a console is open and at every /metrics scrape
// (issue 25). Counting the pending rows visited each of them (15–20 ms with 135,000 events waiting through an
// outage, on the event loop, every second): the count is kept per tenant by triggers, in the transaction of each
// change, so it is read as one row. The rows already tried (attempts > 0: how many, the next retry) are few and have
// an index of their own.
export async function up(db: Kysely<unknown>): Promise<void> {
  await execDdl(db, [
    `CREATE TABLE sync_pending_count (tenant_id INTEGER PRIMARY KEY REFERENCES tenants(id), n INTEGER NOT NULL)`,
    `INSERT INTO sync_pending_count (tenant_id, n)
       SELECT tenant_id, count(*) FROM sync_push WHERE status = 'pendente' GROUP BY tenant_id`,
    `CREATE TRIGGER sync_pending_insert AFTER INSERT ON sync_push WHEN new.status = 'pendente' BEGIN
       INSERT INTO sync_pending_count (tenant_id, n) VALUES (new.tenant_id, 1)
         ON CONFLICT (tenant_id) DO UPDATE SET n = n + 1;
     END`,
    `CREATE TRIGGER sync_pending_update AFTER UPDATE OF status, tenant_id ON sync_push
       WHEN old.status IS NOT new.status OR old.tenant_id IS NOT new.tenant_id BEGIN
       UPDATE sync_pending_count SET n = n - 1 WHERE old.status = 'pendente' AND tenant_id = old.tenant_id;
       INSERT INTO sync_pending_count (tenant_id, n) SELECT new.tenant_id, 1 WHERE new.status = 'pendente'
         ON CONFLICT (tenant_id) DO UPDATE SET n = n + 1;
     END`,
    `CREATE TRIGGER sync_pending_delete AFTER DELETE ON sync_push WHEN old.status = 'pendente' BEGIN
       UPDATE sync_pending_count SET n = n - 1 WHERE tenant_id = old.tenant_id;
     END`,
    `CREATE INDEX sync_push_retrying ON sync_push (tenant_id, next_attempt_at) WHERE status = 'pendente' AND attempts > 0`,
  ]);
}
