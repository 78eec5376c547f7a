import { addDays, type Clock } from '../clock.js';
import type { Sqlite } from '../db/open.js';

// What may leave the live tables (docs/operations.md, "Retention"). An event moves only when it
// happened before the cut-off (the start of the park's day `days` days before today, so today and
// the last `days` days always stay) and nothing waits on it:
// - a check-in or reversal the gate made (result 'ok') has been answered by the cloud for good
//   (sync_push 'concluido': accepted, or a conflict the cloud decided) and that answer, too, came
//   before the cut-off, so the central office's loop on /api/local/eventos had those days to read it;
//   and no later event of the same QR still waits (a reversal is sent only if the cloud accepted its
//   check-in: push.ts reads that check-in's answer in the outbox);
// - of a tenant no cloud syncs (no GATE_CLOUD_URL naming it, no sync_state or outbox row ever), no
//   cloud will ever answer: it moves on age alone;
// - refusals and movements (exits, re-entries, area entries) are never sent: age alone.
// The newest event of each tenant stays (the clock check reads it at start: src/clock-check.ts).
// Lane events move on age alone, with their alarm acknowledgements.

export interface Cutoff {
  /** The first local date that stays. */
  date: string;
  /** Its start, UTC ISO: rows that happened before it may move. */
  iso: string;
}

export function cutoffOf(clock: Clock, days: number): Cutoff {
  if (!Number.isInteger(days) || days < 1) throw new Error(`days must be a whole number from 1: ${days}`);
  const date = addDays(clock.today(), -days);
  return { date, iso: clock.startOfLocalDate(date).toISOString() };
}

export interface TenantScope {
  id: number;
  /** No cloud will answer for its events. */
  standalone: boolean;
  /** Its newest event and lane event: these stay. */
  newestEvent: number;
  newestLaneEvent: number;
}

/** Every tenant with what the policy needs of it; `cloudTenants`: slugs the configured cloud syncs. */
export function tenantScopes(sqlite: Sqlite, cloudTenants: readonly string[]): TenantScope[] {
  return sqlite
    .prepare(
      `SELECT t.id,
              (t.slug NOT IN (SELECT value FROM json_each(?))
                AND NOT EXISTS (SELECT 1 FROM main.sync_state s WHERE s.tenant_id = t.id)
                AND NOT EXISTS (SELECT 1 FROM main.sync_push p WHERE p.tenant_id = t.id)) AS standalone,
              coalesce((SELECT max(id) FROM main.events e WHERE e.tenant_id = t.id), 0) AS newestEvent,
              coalesce((SELECT max(id) FROM main.lane_events l WHERE l.tenant_id = t.id), 0) AS newestLaneEvent
         FROM main.tenants t ORDER BY t.id`,
    )
    .all(JSON.stringify(cloudTenants))
    .map((r) => {
      const row = r as { id: number; standalone: number; newestEvent: number; newestLaneEvent: number };
      return { ...row, standalone: row.standalone === 1 };
    });
}

export interface EventCandidate {
  id: number;
  occurred_at: string;
  action: string;
  result: string;
  push_id: number | null;
  push_status: string | null;
  settled_at: string | null;
  /** An event of the same QR waits in the outbox. */
  chave_waiting: number | null;
}

/** 'move', or 'wait' for an answer of the cloud. The caller has checked the event's age. */
export function eventVerdict(e: EventCandidate, cutoffIso: string, standalone: boolean): 'move' | 'wait' {
  if (e.push_id !== null)
    return e.push_status === 'concluido' && e.settled_at !== null && e.settled_at < cutoffIso && !e.chave_waiting
      ? 'move'
      : 'wait';
  const sentToCloud = e.result === 'ok' && (e.action === 'checkin' || e.action === 'estorno');
  return !sentToCloud || standalone ? 'move' : 'wait';
}

/**
 * The same rule inside the delete's transaction, for the candidates of `retention_moving`: the outbox
 * row must still be the settled one the archive holds, with no event of its QR waiting, and a tenant
 * that started syncing since the copy keeps its unsent check-ins. Parameter: the cloud tenants' ids (JSON).
 */
export const STILL_MOVABLE_EVENT = `
  CASE WHEN EXISTS (SELECT 1 FROM main.sync_push p WHERE p.event_id = e.id)
    THEN EXISTS (SELECT 1 FROM main.sync_push p JOIN arc.sync_push ap ON ap.event_id = p.event_id
                  WHERE p.event_id = e.id AND p.status = 'concluido' AND ap.status = 'concluido' AND ap.settled_at IS p.settled_at
                    AND NOT EXISTS (SELECT 1 FROM main.sync_push q WHERE q.tenant_id = p.tenant_id AND q.chave = p.chave AND q.status = 'pendente'))
  WHEN e.result = 'ok' AND e.action IN ('checkin', 'estorno')
    THEN e.tenant_id NOT IN (SELECT value FROM json_each(:cloud))
     AND NOT EXISTS (SELECT 1 FROM main.sync_state s WHERE s.tenant_id = e.tenant_id)
     AND NOT EXISTS (SELECT 1 FROM main.sync_push s WHERE s.tenant_id = e.tenant_id)
  ELSE 1 END`;
