import type { Db } from '../db/open.js';
import { inList, run } from '../db/query.js';
import type { Rejected } from './cloud-envelopes.js';

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
  if (storedRefs.length > 0)
    run(
      db,
      k
        .deleteFrom('sync_rejects')
        .where('tenant_id', '=', tenantId)
        .where('kind', '=', kind)
        .where('ref', 'in', inList(storedRefs)),
    );
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
