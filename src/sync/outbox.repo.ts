import { sql } from 'kysely';
import type { Db } from '../db/open.js';
import { all, first, inList, run } from '../db/query.js';
import type { PushResult } from '../db/schema.js';
import type { Classified } from './push.classify.js';

// The outbox (sync_push) next to the append-only event log. Synchronous, short transactions only:
// never one held across a call to the cloud.

/** What the outbox copies and sends: exits, re-entries and area entries are local facts the cloud has no place for. */
export const SENT_ACTIONS = ['checkin', 'estorno'] as const;

export interface PendingRow {
  event_id: number;
  chave: string;
  action: 'checkin' | 'estorno';
  attempts: number;
  next_attempt_at: string | null;
  first_sent_at: string | null;
  terminal: string | null;
  operador: string | null;
}

/**
 * The newest event of the tenant already in the outbox, as SQL: the outbox walked from its newest row (event ids only
 * grow; a box has one tenant, or a few), not `max(event_id)` over the tenant's rows, which visited every one of them
 * (8–18 ms with 135,000 queued, at every push round and status read; issue 25).
 */
export const lastQueued = (tenantId: number) =>
  // `+tenant_id`: no index for the tenant, so SQLite walks the rows by event id from the newest.
  sql<number>`coalesce((select event_id from sync_push where +tenant_id = ${tenantId} order by event_id desc limit 1), 0)`;

/** The outbox of one tenant; `seen` is the newest event id already looked at by `enqueue`. */
interface Outbox {
  db: Db;
  tenantId: number;
  seen: number;
}

const newestEvent = ({ db, tenantId }: Outbox) =>
  first(
    db,
    db.kysely
      .selectFrom('events')
      .select((eb) => eb.fn.max('id').as('id'))
      .where('tenant_id', '=', tenantId),
  )?.id ?? 0;

/**
 * Copies the check-ins and reversals the gate made ('ok') since the last call into the outbox, at
 * most `limit` of them (a day offline is tens of thousands: one statement would hold the event
 * loop for 100 ms and more). Event ids only grow, so the newest id already queued is the cursor.
 */
function enqueue(o: Outbox, limit: number): number {
  const { db, tenantId } = o;
  const k = db.kysely;
  const newest = newestEvent(o);
  if (newest === o.seen) return 0;
  const cursor = lastQueued(tenantId);
  const copied = run(
    db,
    k
      .insertInto('sync_push')
      .columns(['event_id', 'tenant_id', 'chave', 'action'])
      .expression(
        k
          .selectFrom('events')
          .select(['id', 'tenant_id', sql<string>`coalesce(qr_code, code)`.as('chave'), 'action'])
          .where('tenant_id', '=', tenantId)
          .where('result', '=', 'ok')
          // Movements applied from another box of the site are that box's to push (docs/site.md).
          .where('site_box', 'is', null)
          // A handheld's second entry of a ticket the box already let in is the box's to classify, not the cloud's to
          // count again (docs/handheld.md).
          .where(({ not, exists, selectFrom }) =>
            not(
              exists(
                selectFrom('handheld_conflicts as h')
                  .select('h.id')
                  .whereRef('h.event_id', '=', 'events.id')
                  .where('h.kind', '=', 'duplo_handheld'),
              ),
            ),
          )
          .where('id', '>', cursor)
          .where('action', 'in', SENT_ACTIONS)
          .orderBy('id')
          .limit(limit),
      ),
  ).changes;
  if (copied < limit) o.seen = newest;
  return copied;
}

/** The oldest pending rows, in event order, with what the cloud call needs. */
function pendingRows({ db, tenantId }: Outbox, limit: number): PendingRow[] {
  return all(
    db,
    db.kysely
      .selectFrom('sync_push as p')
      .innerJoin('events as e', 'e.id', 'p.event_id')
      .select([
        'p.event_id',
        'p.chave',
        'p.action',
        'p.attempts',
        'p.next_attempt_at',
        'p.first_sent_at',
        'e.terminal',
        'e.operador',
      ])
      .where('p.tenant_id', '=', tenantId)
      .where('p.status', '=', 'pendente')
      .orderBy('p.event_id')
      .limit(limit),
  );
}

/**
 * A movement applied from another box that nobody will push: a compensation (a reversal naming the claim it undoes in
 * its details, src/checkin/fact.flows.ts), or the claim it undoes (its box crashed before recording it, or did not
 * keep it). No notice will ever come for them, so they hold nothing. As SQL on the row `e` of `events`.
 */
const neverPushed = (e: string) => `(json_extract(${e}.details, '$.undoes') IS NOT NULL OR EXISTS (
    SELECT 1 FROM events c WHERE c.qr_code = ${e}.qr_code AND c.site_box IS NOT NULL AND c.tenant_id = ${e}.tenant_id
       AND c.action = 'estorno' AND c.result = 'ok' AND json_extract(c.details, '$.undoes') = ${e}.site_id))`;

/**
 * The latest earlier check-in of the same QR, for a reversal about to be sent: this box's (its outbox row), or one
 * made at another box of the site (what that box said the cloud answered, docs/site.md "The cloud").
 */
function previousCheckin(
  { db, tenantId }: Outbox,
  chave: string,
  beforeEventId: number,
): { status: string; resultado: PushResult | null } | undefined {
  const here = first(
    db,
    db.kysely
      .selectFrom('sync_push')
      .select(['event_id', 'status', 'resultado'])
      .where('tenant_id', '=', tenantId)
      .where('chave', '=', chave)
      .where('event_id', '<', beforeEventId)
      .where('action', '=', 'checkin')
      .orderBy('event_id', 'desc')
      .limit(1),
  );
  const elsewhere = db
    .statement(
      `SELECT e.id AS event_id, s.resultado FROM events e INDEXED BY events_site_ticket
         LEFT JOIN site_settled s ON s.site_id = e.site_id
        WHERE e.qr_code = ? AND e.site_box IS NOT NULL AND e.tenant_id = ? AND e.id < ?
          AND e.action = 'checkin' AND e.result = 'ok' AND NOT ${neverPushed('e')}
        ORDER BY e.id DESC LIMIT 1`,
    )
    .get(chave, tenantId, beforeEventId) as { event_id: number; resultado: PushResult | null } | undefined;
  if (elsewhere && (!here || elsewhere.event_id > here.event_id))
    return { status: elsewhere.resultado ? 'concluido' : 'pendente', resultado: elsewhere.resultado };
  return here;
}

/**
 * How long a ticket's movement waits for the cloud to settle an earlier one of the same ticket made at another box
 * of the site (docs/site.md, "The cloud"): that box may be cut from the cloud; after a day this one goes anyway.
 */
export const SITE_HOLD_MS = 24 * 3600_000;

/**
 * The other boxes' movements of one ticket, by their index: without INDEXED BY, SQLite walked the tenant's whole day
 * of events by time (events_tenant_time) for every head of line.
 */
export const HELD_FOR_SITE = `SELECT max(o.occurred_at) AS since FROM events o INDEXED BY events_site_ticket
  WHERE o.qr_code = ? AND o.site_box IS NOT NULL AND o.tenant_id = ? AND o.id < ?
    AND o.action IN ('checkin', 'estorno') AND o.result = 'ok' AND o.occurred_at >= ?
    AND NOT EXISTS (SELECT 1 FROM site_settled s WHERE s.site_id = o.site_id)
    AND NOT ${neverPushed('o')}`;

/**
 * Until when a ticket's movement is held for the cloud: an earlier movement of the same ticket, made at another box
 * of the site within SITE_HOLD_MS, is not settled there yet. Null: not held. One index range of the other boxes'
 * movements of that ticket (events_site_ticket), per head of line.
 */
function heldForSite({ db, tenantId }: Outbox, chave: string, beforeEventId: number, nowIso: string): string | null {
  const since = new Date(Date.parse(nowIso) - SITE_HOLD_MS).toISOString();
  const row = db.statement(HELD_FOR_SITE).get(chave, tenantId, beforeEventId, since) as { since: string | null };
  return row.since === null ? null : new Date(Date.parse(row.since) + SITE_HOLD_MS).toISOString();
}

/**
 * Recorded before the call, so that after a crash the box knows the cloud may have applied it. `first_sent_at` is
 * the first attempt that may have reached the cloud: one that provably did not is taken back (`neverSent`).
 */
function markSending({ db }: Outbox, eventIds: readonly number[], nowIso: string): void {
  run(
    db,
    db.kysely
      .updateTable('sync_push')
      .set({
        attempts: sql`attempts + 1`,
        first_sent_at: sql`coalesce(first_sent_at, ${nowIso})`,
        last_sent_at: nowIso,
      })
      .where('event_id', 'in', inList(eventIds)),
  );
}

/**
 * The call never left the box (CloudUnavailableError.neverSent): these events, never sent before it, are again never
 * sent, so that a later "already used" from the cloud is not read as their own earlier attempt (push.classify.ts).
 */
function neverSent({ db }: Outbox, eventIds: readonly number[]): void {
  if (eventIds.length === 0) return;
  run(db, db.kysely.updateTable('sync_push').set({ first_sent_at: null }).where('event_id', 'in', inList(eventIds)));
}

/** Final answer for one event. Its marks on /api/local/eventos go, so the central office sees the result. */
function settle({ db }: Outbox, eventId: number, c: Classified, nowIso: string): void {
  const k = db.kysely;
  run(
    db,
    k
      .updateTable('sync_push')
      .set({
        status: 'concluido',
        resultado: c.resultado,
        cloud_code: c.code,
        cloud_message: c.message,
        cloud_em: c.at,
        settled_at: nowIso,
        next_attempt_at: null,
        last_error: null,
      })
      .where('event_id', '=', eventId)
      .where('status', '=', 'pendente'),
  );
  run(db, k.deleteFrom('event_marks').where('event_id', '=', eventId));
}

/** The call failed as a whole: try these again later. */
function retryLater({ db }: Outbox, eventIds: readonly number[], nextAttemptAt: string | null, error: string): void {
  run(
    db,
    db.kysely
      .updateTable('sync_push')
      .set({ next_attempt_at: nextAttemptAt, last_error: error.slice(0, 500) })
      .where('event_id', 'in', inList(eventIds)),
  );
}

function counts({ db, tenantId }: Outbox): { pending: number; nextAttemptAt: string | null } {
  const row = first(
    db,
    db.kysely
      .selectFrom('sync_push')
      .select((eb) => [eb.fn.countAll<number>().as('n'), eb.fn.min('next_attempt_at').as('next')])
      .where('tenant_id', '=', tenantId)
      .where('status', '=', 'pendente'),
  );
  return { pending: row?.n ?? 0, nextAttemptAt: (row?.next as string | null | undefined) ?? null };
}

export function createOutboxRepo(db: Db, tenantId: number) {
  // A poll with no new event since the last costs one index read, no write.
  const o: Outbox = { db, tenantId, seen: -1 };
  return {
    enqueue: (limit: number) => enqueue(o, limit),
    pending: (limit: number) => pendingRows(o, limit),
    previousCheckin: (chave: string, beforeEventId: number) => previousCheckin(o, chave, beforeEventId),
    /** Until when this head is held for another box's movement (null: not held). */
    heldForSite: (chave: string, beforeEventId: number, nowIso: string) => heldForSite(o, chave, beforeEventId, nowIso),
    markSending: (eventIds: readonly number[], nowIso: string) => markSending(o, eventIds, nowIso),
    neverSent: (eventIds: readonly number[]) => neverSent(o, eventIds),
    settle: (eventId: number, c: Classified, nowIso: string) => settle(o, eventId, c, nowIso),
    retryLater: (eventIds: readonly number[], nextAttemptAt: string | null, error: string) =>
      retryLater(o, eventIds, nextAttemptAt, error),
    counts: () => counts(o),
  };
}

export type OutboxRepo = ReturnType<typeof createOutboxRepo>;
