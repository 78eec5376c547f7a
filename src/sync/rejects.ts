import type { Db } from '../db/open.js';
import { run } from '../db/query.js';
import type { Rejected } from './cloud-envelopes.js';

const ANY_REJECT = 'SELECT 1 FROM sync_rejects WHERE tenant_id = ? AND kind = ? LIMIT 1';
const CLEAR_REJECTS =
  'DELETE FROM sync_rejects WHERE tenant_id = ? AND kind = ? AND ref IN (SELECT value FROM json_each(?))';

/**
 * Keeps the list of cloud records the box could not store (shown on /api/local/sync): records that
 * failed now are added or updated, records of `storedRefs` that failed before are cleared.
 */
export function recordRejects(
  db: Db,
  tenantId: number,
  kind: string,
  rejected: readonly Rejected[],
  storedRefs: readonly string[],
  nowIso: string,
): void {
  const k = db.kysely;
  // Once per piece of a sync page, where nearly always nothing is set aside to clear: building and compiling the query
  // at every call was 3 % of the event loop's time during an ingest (bench:sync profile).
  if (storedRefs.length > 0 && db.statement(ANY_REJECT).get(tenantId, kind) !== undefined)
    db.statement(CLEAR_REJECTS).run(tenantId, kind, JSON.stringify(storedRefs));
  for (const r of rejected)
    run(
      db,
      k
        .insertInto('sync_rejects')
        .values({ tenant_id: tenantId, kind, ref: r.ref, reason: r.reason.slice(0, 500), at: nowIso })
        .onConflict((oc) =>
          oc.columns(['tenant_id', 'kind', 'ref']).doUpdateSet({ reason: r.reason.slice(0, 500), at: nowIso }),
        ),
    );
}
