import type { StorageHealth } from '../../db/storage.js';
import type { Db } from '../../db/open.js';
import { all, defineQuery } from '../../db/query.js';
import type { LaneEventKind } from '../../db/schema.js';
import type { Log } from '../../lib/log.js';
import type { LaneEvent } from './lane-types.js';

// The lanes' own log (migrations/0003_lane_events.ts). Written through the connection's group-commit
// queue (db.writes): a scan never waits on it, and a burst of events shares one fsync.

export interface LaneEventInput {
  lane: string;
  kind: LaneEventKind;
  at: string;
  code?: string | null;
  details?: Record<string, unknown>;
}

export interface LaneEventRow {
  id: number;
  ocorrido_em: string;
  pista: string;
  tipo: LaneEventKind;
  codigo: string | null;
  detalhes: Record<string, unknown> | null;
}

export interface LaneEventLog {
  append(e: LaneEventInput): Promise<void>;
  list(q: {
    afterId?: number | undefined;
    lane?: string | undefined;
    kind?: LaneEventKind | undefined;
    limit: number;
  }): LaneEventRow[];
}

/** The lane core's events as rows of the log. */
export function laneEventRow(e: LaneEvent): LaneEventInput {
  switch (e.type) {
    case 'granted':
      return {
        lane: e.lane,
        at: e.at,
        kind: 'liberada',
        code: e.code,
        details: { movimento: e.movement, ...(e.withoutEntry ? { sem_entrada: true } : {}) },
      };
    case 'denied':
      return { lane: e.lane, at: e.at, kind: 'negada', code: e.code, details: { motivo: e.refusal, sinal: e.reason } };
    case 'passed':
      return { lane: e.lane, at: e.at, kind: 'passagem', code: e.code };
    case 'not_passed':
      return {
        lane: e.lane,
        at: e.at,
        kind: 'nao_passou',
        code: e.code,
        details: { causa: e.cause === 'timeout' ? 'tempo_esgotado' : 'falha_no_rele', estornado: e.reversed },
      };
    case 'tailgating':
      return { lane: e.lane, at: e.at, kind: 'carona' };
  }
}

const insertLaneEvent = defineQuery(
  (
    k,
    p: {
      tenant_id: number;
      occurred_at: string;
      lane: string;
      kind: LaneEventKind;
      code: string | null;
      details: string | null;
    },
  ) =>
    k.insertInto('lane_events').values({
      tenant_id: p.tenant_id,
      occurred_at: p.occurred_at,
      lane: p.lane,
      kind: p.kind,
      code: p.code,
      details: p.details,
    }),
);

export function createLaneEventLog({
  db,
  tenantId,
  log,
  storage,
}: {
  db: Db;
  tenantId: number;
  log: Log;
  storage?: StorageHealth | undefined;
}): LaneEventLog {
  return {
    append(e) {
      const row = {
        tenant_id: tenantId,
        occurred_at: e.at,
        lane: e.lane,
        kind: e.kind,
        code: e.code ?? null,
        details: e.details ? JSON.stringify(e.details) : null,
      };
      return db.writes
        .run(() => void insertLaneEvent.run(db, row))
        .then(
          () => storage?.recovered(),
          (err: unknown) => {
            if (!storage?.record(err)) log.error({ err, lane: e.lane, kind: e.kind }, 'lane event not recorded');
          },
        );
    },
    list({ afterId, lane, kind, limit }) {
      let q = db.kysely
        .selectFrom('lane_events')
        .selectAll()
        .where('tenant_id', '=', tenantId)
        .orderBy('id')
        .limit(limit);
      if (afterId !== undefined) q = q.where('id', '>', afterId);
      if (lane !== undefined) q = q.where('lane', '=', lane);
      if (kind !== undefined) q = q.where('kind', '=', kind);
      return all(db, q).map((r) => ({
        id: r.id,
        ocorrido_em: r.occurred_at,
        pista: r.lane,
        tipo: r.kind,
        codigo: r.code,
        detalhes: r.details === null ? null : (JSON.parse(r.details) as Record<string, unknown>),
      }));
    },
  };
}
