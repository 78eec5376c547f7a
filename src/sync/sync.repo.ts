import { sql, type Kysely } from 'kysely';
import type { Db } from '../db/open.js';
import { all, first, inList, run } from '../db/query.js';
import type { DB } from '../db/schema.js';
import {
  CLOUD_CONFLICT_KINDS,
  LOCAL_CONFLICT_KINDS,
  type ConflictKind,
  type LocalConflictKind,
} from './sync.answers.js';
import { lastQueued, SENT_ACTIONS } from './outbox.repo.js';

// Reads of the local API for the central office (sync.routes.ts).

export { CLOUD_CONFLICT_KINDS, CONFLICT_KINDS, PUSH_RESULTS } from './sync.answers.js';

/**
 * What the sync of a tenant looks like now. The box's status reads it every second while a console is open and at every
 * scrape: there `every: false` counts only what it shows (the cloud's conflicts, not the day's accepted events; the
 * events not yet copied into the outbox only when a worker will copy them), each an index range of what is
 * exceptional, never the whole day's events (issue 25: 50–140 ms a second on a box with 135,000 events).
 */
export function syncSummary(db: Db, tenantId: number, { every = true, syncRuns = true } = {}) {
  const k = db.kysely;
  const state = first(db, k.selectFrom('sync_state').selectAll().where('tenant_id', '=', tenantId));
  const byResult = all(
    db,
    k
      .selectFrom('sync_push')
      .select(['resultado', (eb) => eb.fn.countAll<number>().as('n')])
      .where('tenant_id', '=', tenantId)
      .where('status', '=', 'concluido')
      .$if(!every, (q) => q.where('resultado', 'in', CLOUD_CONFLICT_KINDS))
      .groupBy('resultado'),
  );
  // One row each (the pending count is kept by triggers, migration 0015) or a short index range (the rows the cloud was
  // already asked about); the oldest is the first recorded of them for the status (exact but for a handheld's late
  // upload), the earliest time of them all for the route.
  const pending = db.statement('SELECT n FROM sync_pending_count WHERE tenant_id = ?').get(tenantId) as
    { n: number } | undefined;
  const oldest = db
    .statement(
      every
        ? `SELECT min(e.occurred_at) AS at FROM sync_push p JOIN events e ON e.id = p.event_id
           WHERE p.tenant_id = ? AND p.status = 'pendente'`
        : `SELECT e.occurred_at AS at FROM sync_push p JOIN events e ON e.id = p.event_id
           WHERE p.tenant_id = ? AND p.status = 'pendente' ORDER BY p.event_id LIMIT 1`,
    )
    .get(tenantId) as { at: string | null } | undefined;
  const tried = db
    .statement(
      `SELECT count(*) AS n, min(next_attempt_at) AS next FROM sync_push INDEXED BY sync_push_retrying
       WHERE tenant_id = ? AND status = 'pendente' AND attempts > 0`,
    )
    .get(tenantId) as { n: number; next: string | null };
  const queue = { n: pending?.n ?? 0, oldest: oldest?.at ?? null, next: tried.next, retrying: tried.n };
  // Events the worker will copy into the outbox on its next cycle and has not yet.
  const notQueued = !syncRuns
    ? undefined
    : first(
        db,
        k
          .selectFrom('events')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('tenant_id', '=', tenantId)
          .where('result', '=', 'ok')
          .where('action', 'in', SENT_ACTIONS)
          // Movements applied from another box of the site are that box's to push (the outbox skips them).
          .where('site_box', 'is', null)
          .where('id', '>', lastQueued(tenantId)),
      );
  const rejects = all(
    db,
    k
      .selectFrom('sync_rejects')
      .select(['kind', 'ref', 'reason', 'at'])
      .where('tenant_id', '=', tenantId)
      .orderBy('at', 'desc')
      .limit(20),
  );
  const rejectCount =
    first(
      db,
      k
        .selectFrom('sync_rejects')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('tenant_id', '=', tenantId),
    )?.n ?? 0;
  // The site's second entries of a ticket (docs/site.md) and what handhelds' uploads revealed (docs/handheld.md),
  // listed and counted with the cloud's conflicts.
  const localConflicts = db
    .statement(
      `SELECT kind, count(*) AS n FROM site_conflicts WHERE tenant_id = ? GROUP BY kind
       UNION ALL SELECT kind, count(*) FROM handheld_conflicts WHERE tenant_id = ? GROUP BY kind`,
    )
    .all(tenantId, tenantId) as { kind: LocalConflictKind; n: number }[];
  return { state, byResult, queue, notQueued: notQueued?.n ?? 0, rejects, rejectCount, localConflicts };
}

/**
 * Events not yet accepted by the cloud: the outbox's, plus the gate's not yet copied into it (only when a sync worker
 * will copy them).
 */
export const eventsWaiting = (s: ReturnType<typeof syncSummary>, syncRuns: boolean) =>
  (s.queue?.n ?? 0) + (syncRuns ? s.notQueued : 0);

const eventColumns = [
  'e.id',
  'e.occurred_at',
  'e.action',
  'e.mode',
  'e.code',
  'e.qr_code',
  'e.numero_pedido',
  'e.result',
  'e.key_name',
  'e.terminal',
  'e.operador',
  'e.source',
  'e.relogio_suspeito',
  'e.details',
  'e.site_box',
  'p.status as push_status',
  'p.attempts',
  'p.first_sent_at',
  'p.settled_at',
  'p.resultado',
  'p.cloud_code',
  'p.cloud_message',
  'p.cloud_em',
] as const;

const withPush = (k: Kysely<DB>) => k.selectFrom('events as e').leftJoin('sync_push as p', 'p.event_id', 'e.id');

export interface ConflictFilter {
  tenantId: number;
  /** UTC ISO bounds on occurred_at: [from, to). */
  from?: string | undefined;
  to?: string | undefined;
  kind?: ConflictKind | undefined;
  limit: number;
  offset: number;
}

/** The box that made an event: the site's for one applied from another box; this box's by its own site id. */
const boxOf = (alias: 'e' | 'o') =>
  sql<string | null>`coalesce(${sql.ref(`${alias}.site_box`)}, (select substr(m.site_id, 1, instr(m.site_id, '.') - 1)
    from site_moves m where m.event_id = ${sql.ref(`${alias}.id`)}))`;

/**
 * Events the cloud did not accept, and the site's second entries of a ticket (duplo_no_site: the entry this box
 * applied last, with the other one), in event order, and how many match in all.
 */
export function findConflicts(db: Db, f: ConflictFilter) {
  const k = db.kysely;
  const local = LOCAL_CONFLICT_KINDS as readonly (ConflictKind | undefined)[];
  const site = f.kind === undefined || f.kind === 'duplo_no_site';
  const handheld = f.kind === undefined || (local.includes(f.kind) && f.kind !== 'duplo_no_site');
  const cloud = f.kind === undefined || !local.includes(f.kind);
  let ofCloud = withPush(k)
    .select([
      ...eventColumns,
      sql<ConflictKind | null>`p.resultado`.as('tipo'),
      sql<number>`0`.as('ordem'),
      sql<string | null>`null`.as('caixa'),
      sql<number | null>`null`.as('outro_evento_id'),
      sql<string | null>`null`.as('outro_ocorrido_em'),
      sql<string | null>`null`.as('outro_caixa'),
      sql<string | null>`null`.as('outro_terminal'),
      sql<string | null>`null`.as('outro_operador'),
    ])
    .where('e.tenant_id', '=', f.tenantId)
    .where('p.status', '=', 'concluido')
    .where('p.resultado', '!=', 'aceito');
  if (f.kind && cloud) ofCloud = ofCloud.where('p.resultado', '=', f.kind as Exclude<ConflictKind, LocalConflictKind>);
  let ofSite = withPush(k)
    .innerJoin('site_conflicts as c', 'c.event_id', 'e.id')
    .innerJoin('events as o', 'o.id', 'c.other_event_id')
    .select([
      ...eventColumns,
      sql<ConflictKind | null>`c.kind`.as('tipo'),
      sql<number>`1`.as('ordem'),
      boxOf('e').as('caixa'),
      'o.id as outro_evento_id',
      'o.occurred_at as outro_ocorrido_em',
      boxOf('o').as('outro_caixa'),
      'o.terminal as outro_terminal',
      'o.operador as outro_operador',
    ])
    .where('c.tenant_id', '=', f.tenantId);
  // A handheld's: the other event only for a double entry (the cloud conflict columns stay as the push left them).
  let ofHandheld = withPush(k)
    .innerJoin('handheld_conflicts as h', 'h.event_id', 'e.id')
    .leftJoin('events as o', 'o.id', 'h.other_event_id')
    .select([
      ...eventColumns,
      sql<ConflictKind | null>`h.kind`.as('tipo'),
      sql<number>`2`.as('ordem'),
      sql<string | null>`null`.as('caixa'),
      'o.id as outro_evento_id',
      'o.occurred_at as outro_ocorrido_em',
      sql<string | null>`null`.as('outro_caixa'),
      'o.terminal as outro_terminal',
      'o.operador as outro_operador',
    ])
    .where('h.tenant_id', '=', f.tenantId);
  if (f.kind && handheld)
    ofHandheld = ofHandheld.where('h.kind', '=', f.kind as LocalConflictKind & `${string}_handheld`);
  if (f.from) {
    ofCloud = ofCloud.where('e.occurred_at', '>=', f.from);
    ofSite = ofSite.where('e.occurred_at', '>=', f.from);
    ofHandheld = ofHandheld.where('e.occurred_at', '>=', f.from);
  }
  if (f.to) {
    ofCloud = ofCloud.where('e.occurred_at', '<', f.to);
    ofSite = ofSite.where('e.occurred_at', '<', f.to);
    ofHandheld = ofHandheld.where('e.occurred_at', '<', f.to);
  }
  const parts = [cloud && ofCloud, site && ofSite, handheld && ofHandheld].filter((q) => q !== false);
  const both = k.selectFrom(
    parts
      .slice(1)
      .reduce((u, q) => u.unionAll(q), parts[0]!)
      .as('x'),
  );
  const total =
    first(
      db,
      both.select((eb) => eb.fn.countAll<number>().as('n')),
    )?.n ?? 0;
  const rows = all(
    db,
    both.selectAll().orderBy('x.id').orderBy('x.ordem').orderBy('x.outro_evento_id').limit(f.limit).offset(f.offset),
  );
  return { rows, total };
}

export type ConflictRow = ReturnType<typeof findConflicts>['rows'][number];

export interface EventFilter {
  tenantId: number;
  apiKeyId: number;
  sincronizado?: boolean | undefined;
  limit: number;
  offset: number;
}

/** One page of the event log with its cloud result and this key's mark, in event order. */
export function findEvents(db: Db, f: EventFilter) {
  const k = db.kysely;
  let q = withPush(k)
    .leftJoin('event_marks as m', (j) => j.onRef('m.event_id', '=', 'e.id').on('m.api_key_id', '=', f.apiKeyId))
    .select(eventColumns)
    .select('m.sincronizado_em')
    .where('e.tenant_id', '=', f.tenantId);
  if (f.sincronizado === true) q = q.where('m.sincronizado_em', 'is not', null);
  if (f.sincronizado === false) q = q.where('m.sincronizado_em', 'is', null);
  return all(db, q.orderBy('e.id').limit(f.limit).offset(f.offset));
}

/** An event as the routes word it; its key's mark only in the event log. */
export type EventRow = Omit<ReturnType<typeof findEvents>[number], 'sincronizado_em'> & {
  sincronizado_em?: string | null;
};

/** Marks events for one key; the first marking time is kept. Call in the transaction that read the page. */
export function markEvents(db: Db, apiKeyId: number, eventIds: readonly number[], nowIso: string): void {
  const k = db.kysely;
  if (eventIds.length === 0) return;
  run(
    db,
    k
      .insertInto('event_marks')
      .orIgnore()
      .columns(['api_key_id', 'event_id', 'sincronizado_em'])
      .expression(
        k
          .selectFrom('events')
          .select([sql<number>`${apiKeyId}`.as('k'), 'id', sql<string>`${nowIso}`.as('at')])
          .where('id', 'in', inList(eventIds)),
      ),
  );
}
