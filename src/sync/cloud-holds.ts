import type { Db } from '../db/open.js';

// A person's events reach the cloud in order across the site's boxes (docs/site.md, "A person's events reach the
// cloud in order"). Only the box that made a movement pushes it; so a box holds its own event of a person while an
// earlier event of that person, made at another box, is not yet settled with the cloud there. Each box says how far
// its cloud went as a hub sequence (cloudSettledBelow, announced with its presence); the others keep the last word
// of each box (recordCloudMark, in site_cloud: a restart keeps it) and the outbox reads it (heldKeys, push.ts).

/** Everything of a box without a cloud is settled: it never pushes, so nobody waits for it. */
export const NO_CLOUD = Number.MAX_SAFE_INTEGER;

/**
 * What this box announces: every movement of its with a hub sequence below this is settled with the cloud. The
 * oldest of its check-ins and reversals on the hub not yet settled (queued or not yet copied into the outbox); with
 * none, one past the stream position this box applied, since whatever it publishes later gets a higher sequence.
 */
export function cloudSettledBelow(db: Db, tenantId: number, hasCloud: boolean): number {
  if (!hasCloud) return NO_CLOUD;
  const row = db
    .statement(
      `SELECT
         (SELECT min(m.seq) FROM sync_push p JOIN site_moves m ON m.event_id = p.event_id
           WHERE p.tenant_id = @t AND p.status = 'pendente' AND m.seq IS NOT NULL) AS queued,
         (SELECT min(m.seq) FROM site_moves m JOIN events e ON e.id = m.event_id
           WHERE m.tenant_id = @t AND m.seq IS NOT NULL AND e.action IN ('checkin', 'estorno')
             AND m.event_id > (SELECT coalesce(max(event_id), 0) FROM sync_push WHERE tenant_id = @t)) AS unqueued,
         (SELECT applied_seq FROM site_state WHERE tenant_id = @t) AS applied`,
    )
    .get({ t: tenantId }) as { queued: number | null; unqueued: number | null; applied: number | null };
  const waiting = [row.queued, row.unqueued].filter((s): s is number => s !== null);
  return waiting.length > 0 ? Math.min(...waiting) : (row.applied ?? 0) + 1;
}

/** The other boxes of the site, each held on until it speaks (GATE_SITE_BOXES but this one; at the link's start). */
export function ensureCloudMarks(db: Db, tenantId: number, boxes: readonly string[]): void {
  const insert = db.statement('INSERT OR IGNORE INTO site_cloud (tenant_id, box) VALUES (?, ?)');
  for (const box of boxes) insert.run(tenantId, box);
}

/** What another box announced of its cloud; written only when it changed. */
export function recordCloudMark(db: Db, tenantId: number, box: string, settledBelow: number, at: string): boolean {
  return (
    db
      .statement(
        `INSERT INTO site_cloud (tenant_id, box, settled_below, heard_at) VALUES (?, ?, ?, ?)
         ON CONFLICT (tenant_id, box) DO UPDATE SET settled_below = excluded.settled_below, heard_at = excluded.heard_at
         WHERE settled_below != excluded.settled_below`,
      )
      .run(tenantId, box, settledBelow, at).changes === 1
  );
}

/**
 * The people (outbox keys) with an event made at another box and not yet settled with the cloud there, each with
 * its first such event: this box's later events of theirs wait. Reads only the movements of each box from its mark
 * on (events_site_box_seq); a single box has no marks and reads nothing.
 */
export function heldKeys(db: Db, tenantId: number): Map<string, number> {
  const rows = db
    .statement(
      `SELECT coalesce(e.qr_code, e.code) AS chave, min(e.id) AS id
         FROM site_cloud c
         CROSS JOIN events e ON e.tenant_id = c.tenant_id AND e.site_box = c.box AND e.site_seq >= c.settled_below
        WHERE c.tenant_id = ? AND e.site_box IS NOT NULL AND e.result = 'ok' AND e.action IN ('checkin', 'estorno')
        GROUP BY chave`,
    )
    .all(tenantId) as { chave: string; id: number }[];
  return new Map(rows.map((r) => [r.chave, r.id]));
}
