import type { Db } from '../db/open.js';
import { all, inList, run } from '../db/query.js';
import type { PushResult } from '../db/schema.js';
import type { SiteRejectReason } from './site.answers.js';

// The site's tables (migrations/0013_site.ts): synchronous, short statements, run inside the write queue's
// transactions (the claim's commit, an applied batch) or read for the status.

/** A movement this box made, as it is published. */
export interface OwnMovement {
  id: number;
  site_id: string;
  occurred_at: string;
  action: 'checkin' | 'estorno' | 'entrada' | 'reentrada' | 'saida';
  mode: string;
  code: string;
  qr_code: string | null;
  person_id: number | null;
  terminal: string | null;
  operador: string | null;
  source: string;
  details: string | null;
  sem_site: number;
}

const MOVEMENT_COLUMNS =
  'id, site_id, occurred_at, action, mode, code, qr_code, person_id, terminal, operador, source, details, sem_site';

interface SiteStateRow {
  tenant_id: number;
  applied_seq: number;
  applied_id: string | null;
  runs: string;
}

export function siteState(db: Db, tenantId: number): SiteStateRow {
  const read = () =>
    db.statement('SELECT * FROM site_state WHERE tenant_id = ?').get(tenantId) as SiteStateRow | undefined;
  const found = read();
  if (found) return found;
  db.statement('INSERT INTO site_state (tenant_id) VALUES (?)').run(tenantId);
  return read()!;
}

const KEPT_RUNS = 50;

/** Adds this run to the database's runs; returns the earlier ones. */
export function startRun(db: Db, tenantId: number, runId: string): Set<string> {
  const earlier = JSON.parse(siteState(db, tenantId).runs) as string[];
  const runs = [...earlier, runId].slice(-KEPT_RUNS);
  run(
    db,
    db.kysely
      .updateTable('site_state')
      .set({ runs: JSON.stringify(runs) })
      .where('tenant_id', '=', tenantId),
  );
  return new Set(earlier);
}

export const subjectSeq = (db: Db, tenantId: number, subject: string): number =>
  (
    db.statement('SELECT seq FROM site_subjects WHERE tenant_id = ? AND subject = ?').get(tenantId, subject) as
      { seq: number } | undefined
  )?.seq ?? 0;

/** The newest sequence applied on a subject; never goes back. */
export function advanceSubject(db: Db, tenantId: number, subject: string, seq: number): void {
  db.statement(
    `INSERT INTO site_subjects (tenant_id, subject, seq) VALUES (?, ?, ?)
     ON CONFLICT (tenant_id, subject) DO UPDATE SET seq = max(seq, excluded.seq)`,
  ).run(tenantId, subject, seq);
}

export function setApplied(db: Db, tenantId: number, seq: number, fingerprint: string): void {
  db.statement('UPDATE site_state SET applied_seq = ?, applied_id = ? WHERE tenant_id = ? AND applied_seq < ?').run(
    seq,
    fingerprint,
    tenantId,
    seq,
  );
}

/** The ok movements written after event `after`: what a decision would claim or publish. */
export const movementsAfter = (db: Db, tenantId: number, after: number): OwnMovement[] =>
  db
    .statement(
      `SELECT ${MOVEMENT_COLUMNS} FROM events
        WHERE tenant_id = ? AND id > ? AND result = 'ok' AND (person_id IS NOT NULL OR additional_id IS NOT NULL)
        ORDER BY id`,
    )
    .all(tenantId, after) as OwnMovement[];

/** Refusals that another box's movement may have made stale: the ticket used there, or reversed there. */
const STALE_REFUSALS = ['TICKET_ALREADY_USED', 'SEM_CHECKIN', 'JA_ESTORNADO'];
/** At most this many tickets are looked up on the hub for one refusal (a large group). */
const STALE_TICKETS = 20;

/** The tickets refused after event `after` for a state another box may have changed: a person's, a group's people. */
export function staleRefusals(
  db: Db,
  tenantId: number,
  after: number,
): { kind: 'person' | 'additional'; qr: string }[] {
  const rows = db
    .statement(
      `SELECT CASE WHEN e.additional_id IS NULL THEN 'person' ELSE 'additional' END AS kind,
              coalesce(g.qr_code, e.qr_code) AS qr
         FROM events e
         LEFT JOIN orders o ON e.person_id IS NULL AND e.additional_id IS NULL
                           AND o.tenant_id = e.tenant_id AND o.numero_pedido = e.numero_pedido
         LEFT JOIN people g ON g.order_id = o.id
        WHERE e.tenant_id = ? AND e.id > ? AND e.result IN (${STALE_REFUSALS.map(() => '?').join(', ')})
        LIMIT ${STALE_TICKETS}`,
    )
    .all(tenantId, after, ...STALE_REFUSALS) as { kind: 'person' | 'additional'; qr: string | null }[];
  return rows.filter((r): r is { kind: 'person' | 'additional'; qr: string } => r.qr !== null);
}

export const newestEventId = (db: Db): number =>
  (db.statement('SELECT coalesce(max(id), 0) AS id FROM events').get() as { id: number }).id;

/** One of this box's movements, under the id it was claimed or will be published with. */
export function markMovement(
  db: Db,
  tenantId: number,
  movement: { id: number; occurred_at: string },
  mark: { siteId: string; seq: number | null; withoutSite: boolean },
): void {
  db.statement(
    'INSERT INTO site_moves (event_id, tenant_id, site_id, seq, sem_site, occurred_at) VALUES (?, ?, ?, ?, ?, ?)',
  ).run(movement.id, tenantId, mark.siteId, mark.seq, mark.withoutSite ? 1 : 0, movement.occurred_at);
}

export const setPublished = (db: Db, siteId: string, seq: number) =>
  db.statement('UPDATE site_moves SET seq = ? WHERE site_id = ? AND seq IS NULL').run(seq, siteId).changes === 1;

/** One of this box's own movements by its site id. */
export const ownBySiteId = (db: Db, siteId: string) =>
  db.statement('SELECT event_id, seq FROM site_moves WHERE site_id = ?').get(siteId) as
    { event_id: number; seq: number | null } | undefined;

/** This box's movements not yet on the hub, oldest first. */
export const backlog = (db: Db, tenantId: number, limit: number): OwnMovement[] =>
  all(
    db,
    db.kysely
      .selectFrom('site_moves as s')
      .innerJoin('events as e', 'e.id', 's.event_id')
      .select([
        'e.id',
        's.site_id',
        'e.occurred_at',
        'e.action',
        'e.mode',
        'e.code',
        'e.qr_code',
        'e.person_id',
        'e.terminal',
        'e.operador',
        'e.source',
        'e.details',
        's.sem_site',
      ])
      .where('s.tenant_id', '=', tenantId)
      .where('s.seq', 'is', null)
      .orderBy('s.event_id')
      .limit(limit),
  );

/** Rows one write of forgetting the hub changes at most: a few ms of the event loop. */
const FORGET_SLICE = 2_000;

/**
 * The hub lost what this box had applied, a slice at a time (forgetHub): its subjects' sequences go, and this
 * box's own movements of the last `since` go back in the backlog, to publish again. How many rows it changed; 0:
 * nothing left.
 */
export function forgetHubSlice(db: Db, tenantId: number, since: string): { subjects: number; moves: number } {
  const subjects = db
    .statement(
      `DELETE FROM site_subjects WHERE tenant_id = ?
         AND subject IN (SELECT subject FROM site_subjects WHERE tenant_id = ? LIMIT ?)`,
    )
    .run(tenantId, tenantId, FORGET_SLICE).changes;
  const moves = db
    .statement(
      `UPDATE site_moves SET seq = NULL WHERE event_id IN
         (SELECT event_id FROM site_moves WHERE tenant_id = ? AND occurred_at >= ? AND seq IS NOT NULL LIMIT ?)`,
    )
    .run(tenantId, since, FORGET_SLICE).changes;
  return { subjects, moves };
}

/**
 * After the slices: the stream's position goes last, so that a box stopped half-way finds the hub's loss again at
 * its next connection and finishes.
 */
export const forgetApplied = (db: Db, tenantId: number) =>
  db.statement('UPDATE site_state SET applied_seq = 0, applied_id = NULL WHERE tenant_id = ?').run(tenantId);

export function park(db: Db, tenantId: number, seq: number, code: string, body: string, at: string): void {
  db.statement('INSERT OR IGNORE INTO site_parked (tenant_id, seq, code, body, parked_at) VALUES (?, ?, ?, ?, ?)').run(
    tenantId,
    seq,
    code,
    body,
    at,
  );
}

export const parked = (db: Db, tenantId: number, limit: number) =>
  all(
    db,
    db.kysely
      .selectFrom('site_parked')
      .select(['seq', 'body'])
      .where('tenant_id', '=', tenantId)
      .orderBy('seq')
      .limit(limit),
  );

export const unpark = (db: Db, tenantId: number, seq: number) =>
  run(db, db.kysely.deleteFrom('site_parked').where('tenant_id', '=', tenantId).where('seq', '=', seq));

export function reject(
  db: Db,
  tenantId: number,
  seq: number,
  reason: SiteRejectReason,
  detail: string | null,
  at: string,
) {
  db.statement('INSERT INTO site_rejects (tenant_id, seq, reason, detail, at) VALUES (?, ?, ?, ?, ?)').run(
    tenantId,
    seq,
    reason,
    detail,
    at,
  );
}

export const backlogCount = (db: Db, tenantId: number): number =>
  (
    db.statement('SELECT count(*) AS n FROM site_moves WHERE tenant_id = ? AND seq IS NULL').get(tenantId) as {
      n: number;
    }
  ).n;

/** The counts the site's status shows. */
export function siteCounts(db: Db, tenantId: number, todayStart: string) {
  const count = (q: string, ...args: unknown[]) => (db.statement(q).get(...args) as { n: number }).n;
  return {
    backlog: backlogCount(db, tenantId),
    parked: count('SELECT count(*) AS n FROM site_parked WHERE tenant_id = ?', tenantId),
    // As the conflicts feed lists them: both entries still in the log (`gate archive` moves old ones out).
    conflicts: count(
      `SELECT count(*) AS n FROM site_conflicts c JOIN events e ON e.id = c.event_id
         JOIN events o ON o.id = c.other_event_id WHERE c.tenant_id = ?`,
      tenantId,
    ),
    withoutSiteToday: count(
      'SELECT count(*) AS n FROM site_moves WHERE tenant_id = ? AND sem_site = 1 AND occurred_at >= ?',
      tenantId,
      todayStart,
    ),
    rejects: db
      .statement('SELECT reason, count(*) AS n FROM site_rejects WHERE tenant_id = ? GROUP BY reason')
      .all(tenantId) as { reason: SiteRejectReason; n: number }[],
  };
}

/** This box's movements the cloud settled (their push got its answer) that the other boxes were not told of yet. */
export const settledUnannounced = (db: Db, tenantId: number, limit: number) =>
  all(
    db,
    db.kysely
      .selectFrom('site_moves as s')
      .innerJoin('sync_push as p', 'p.event_id', 's.event_id')
      .select(['s.event_id', 's.site_id', 'p.resultado'])
      .where('s.tenant_id', '=', tenantId)
      .where('s.nuvem_anunciada', '=', 0)
      .where('p.status', '=', 'concluido')
      .orderBy('s.event_id')
      .limit(limit),
  );

export const markAnnounced = (db: Db, eventIds: readonly number[]) =>
  run(db, db.kysely.updateTable('site_moves').set({ nuvem_anunciada: 1 }).where('event_id', 'in', inList(eventIds)));

export function recordSettled(db: Db, settled: readonly (readonly [string, PushResult])[], at: string): void {
  const insert = db.sqlite.prepare(
    'INSERT OR IGNORE INTO site_settled (site_id, resultado, settled_at) VALUES (?, ?, ?)',
  );
  for (const [id, resultado] of settled) insert.run(id, resultado, at);
}
