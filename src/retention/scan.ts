import type { Sqlite } from '../db/open.js';
import type { Family } from './archive-file.js';
import { eventVerdict, type EventCandidate, type TenantScope } from './policy.js';

export interface ScanBatch {
  /** Ids of rows that may move. */
  ids: number[];
  /** Old events kept because the cloud has not answered them for good. */
  waiting: number;
}

/**
 * The rows of one tenant that may move, oldest first, `batch` rows read at a time (each read its own
 * short read transaction: nothing is locked and the WAL can be checkpointed between reads). Rows are
 * appended in time order, so the scan stops at the first one at or after the cut-off; the rare row
 * written out of order by a clock that moved stays until a later run.
 */
export function* scanFamily(
  sqlite: Sqlite,
  family: Family,
  scope: TenantScope,
  cutoffIso: string,
  batch: number,
): Generator<ScanBatch> {
  const events = family.root === 'events';
  const newest = events ? scope.newestEvent : scope.newestLaneEvent;
  const read = events
    ? sqlite.prepare(
        `SELECT e.id, e.occurred_at, e.action, e.result, p.event_id AS push_id, p.status AS push_status, p.settled_at,
                EXISTS (SELECT 1 FROM main.sync_push q WHERE q.tenant_id = p.tenant_id AND q.chave = p.chave AND q.status = 'pendente') AS chave_waiting
           FROM main.events e LEFT JOIN main.sync_push p ON p.event_id = e.id
          WHERE e.tenant_id = ? AND e.id > ? AND e.id < ? ORDER BY e.id LIMIT ?`,
      )
    : sqlite.prepare(
        `SELECT id, occurred_at FROM main.lane_events WHERE tenant_id = ? AND id > ? AND id < ? ORDER BY id LIMIT ?`,
      );
  let after = 0;
  for (;;) {
    const rows = read.all(scope.id, after, newest, batch) as EventCandidate[];
    const out: ScanBatch = { ids: [], waiting: 0 };
    let done = rows.length < batch;
    for (const r of rows) {
      if (r.occurred_at >= cutoffIso) {
        done = true;
        break;
      }
      if (!events || eventVerdict(r, cutoffIso, scope.standalone) === 'move') out.ids.push(r.id);
      else out.waiting++;
    }
    if (out.ids.length > 0 || out.waiting > 0) yield out;
    if (done) return;
    after = rows[rows.length - 1]!.id;
  }
}
