import { doubleEntries, type TicketMove } from '../checkin/rules/index.js';
import type { Db } from '../db/open.js';

// The site's double entries (docs/site.md, "Conflitos do site"), kept in site_conflicts: judged again on a ticket's
// whole history here each time one of its check-ins or reversals arrives from another box.

/**
 * After a check-in or reversal of a person's ticket was recorded (event `eventId`): the ticket's double entries, judged
 * on its whole history here (rules/doubles.ts), replace those recorded before. A late reversal can take one back.
 */
export function judgeDoubles(db: Db, tenantId: number, eventId: number, at: string): void {
  const person = (db.statement('SELECT person_id FROM events WHERE id = ?').get(eventId) as PersonOf | undefined)
    ?.person_id;
  if (person == null) return;
  const moves = (db.statement(TICKET_MOVES).all(person) as TicketMoveRow[]).map(ticketMove);
  if (moves.length < 2) return;
  // The row is the entry this box learned of last (the newer event here), the other one named beside it.
  const pairs = new Set(doubleEntries(moves).map(([a, b]) => `${Math.max(a, b)}:${Math.min(a, b)}`));
  const ids = moves.map((m) => m.id);
  const recorded = db
    .statement(
      `SELECT id, event_id, other_event_id FROM site_conflicts WHERE event_id IN (${ids.map(() => '?').join(', ')})`,
    )
    .all(...ids) as { id: number; event_id: number; other_event_id: number }[];
  for (const r of recorded)
    if (!pairs.delete(`${r.event_id}:${r.other_event_id}`))
      db.statement('DELETE FROM site_conflicts WHERE id = ?').run(r.id);
  const insert = db.statement(
    `INSERT OR IGNORE INTO site_conflicts (tenant_id, kind, event_id, other_event_id, found_at)
     VALUES (?, 'duplo_no_site', ?, ?, ?)`,
  );
  for (const p of pairs) {
    const [e, o] = p.split(':').map(Number);
    insert.run(tenantId, e, o, at);
  }
}

interface PersonOf {
  person_id: number | null;
}
interface TicketMoveRow {
  id: number;
  action: 'checkin' | 'estorno';
  occurred_at: string;
  site_id: string | null;
  details: string | null;
}
const TICKET_MOVES = `SELECT e.id, e.action, e.occurred_at, coalesce(e.site_id, s.site_id) AS site_id, e.details
  FROM events e LEFT JOIN site_moves s ON s.event_id = e.id
 WHERE e.person_id = ? AND e.result = 'ok' AND e.action IN ('checkin', 'estorno')`;
const ticketMove = (r: TicketMoveRow): TicketMove => ({
  id: r.id,
  action: r.action,
  at: r.occurred_at,
  siteId: r.site_id,
  undoes: r.details?.includes('"undoes"') ? ((JSON.parse(r.details) as { undoes?: string }).undoes ?? null) : null,
});
