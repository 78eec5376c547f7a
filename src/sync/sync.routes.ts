import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { App, RouteRegistrar } from '../app.js';
import type { Auth } from '../auth/auth.js';
import { guard, type Guard } from '../auth/guard.js';
import { addDays, type Clock } from '../clock.js';
import type { Db } from '../db/open.js';
import { AppError } from '../http/errors.js';
import { pageLimit, pageOffset, queryBoolean } from '../http/validation.js';
import { dateString } from '../lib/wire.js';
import { CONFLICT_COLUMNS, conflictPayload } from './conflicts.payload.js';
import { toCsv } from '../lib/csv.js';
import { conflictsDocs, eventsDocs, syncStatusDocs } from './sync.docs.js';
import type { EventsAnswer, SyncEvent } from './sync.answers.js';
import {
  CONFLICT_KINDS,
  eventsWaiting,
  findConflicts,
  findEvents,
  markEvents,
  PUSH_RESULTS,
  syncSummary,
  type EventRow,
} from './sync.repo.js';
import { NO_HOLDS } from './push.js';
import type { SyncInfo } from './worker.js';

const conflictsQuery = z.object({
  desde: dateString.optional().describe('Primeiro dia (YYYY-MM-DD, fuso do parque)'),
  ate: dateString.optional().describe('Último dia, inclusive'),
  tipo: z.enum(CONFLICT_KINDS as [string, ...string[]], { message: `use ${CONFLICT_KINDS.join(', ')}` }).optional(),
  format: z.enum(['json', 'csv'], { message: 'use json ou csv' }).optional(),
  limit: pageLimit(100_000, 1000),
  offset: pageOffset,
});

const eventsQuery = z.object({
  sincronizado: queryBoolean.optional(),
  marcar_sincronizado: queryBoolean.default(true),
  limit: pageLimit(1000, 100),
  offset: pageOffset,
});

const parseDetails = (json: string | null) => (json === null ? null : (JSON.parse(json) as Record<string, unknown>));

/** Where the event stands with the cloud: pendente, one of the results, or nao_enviado (refusals; no cloud). */
function situacao(r: EventRow, synced: boolean): string {
  // Exits, re-entries and area entries are the box's own facts: the cloud's API has no place for them.
  if (r.action !== 'checkin' && r.action !== 'estorno') return 'somente_local';
  // Made at another box of the site: that box pushes it (docs/site.md, "The cloud").
  if (r.site_box) return 'outra_caixa';
  if (r.push_status === 'concluido') return r.resultado ?? 'outro';
  if (r.push_status === 'pendente' || (r.result === 'ok' && synced)) return 'pendente';
  return 'nao_enviado';
}

function eventoPayload(r: EventRow, synced: boolean) {
  return {
    id: r.id,
    ocorrido_em: r.occurred_at,
    acao: r.action,
    modo: r.mode,
    codigo: r.code,
    qr_code: r.qr_code,
    numero_pedido: r.numero_pedido,
    resultado: r.result,
    chave_api: r.key_name,
    terminal: r.terminal,
    operador: r.operador,
    origem: r.source,
    detalhes: parseDetails(r.details),
    // Why the box's clock was suspect when the event was written; the cloud's API has no field for it.
    relogio_suspeito: r.relogio_suspeito,
    // On a site, a movement made at another box names it; this box's own events carry no such field.
    ...(r.site_box ? { caixa: r.site_box } : {}),
    nuvem: {
      situacao: situacao(r, synced),
      tentativas: r.attempts ?? 0,
      enviado_em: r.first_sent_at,
      resolvido_em: r.settled_at,
      codigo: r.cloud_code,
      mensagem: r.cloud_message,
      em: r.cloud_em,
    },
  };
}

const earliest = (a: string | null, b: string | null) => (a === null ? b : b === null || a <= b ? a : b);

const wantsCsv = (request: FastifyRequest, format: string | undefined) =>
  format === 'csv' || (format === undefined && /\btext\/csv\b/i.test(String(request.headers.accept ?? '')));

type SyncRouteDeps = { db: Db; clock: Clock; auth: Auth; sync: SyncInfo | undefined };

/** What each route below works with: its deps, the key check and whether the caller's tenant is the synced one. */
interface SyncRoutes extends SyncRouteDeps {
  onRequest: Guard['onRequest'];
  callerOf: Guard['callerOf'];
  isSynced(tenantId: number): boolean;
}

const common = { tags: ['local'], security: [{ apiKey: [] }] };

/** The `data` of GET /api/local/sync. */
function syncStatus(r: SyncRoutes, tenantId: number) {
  const s = syncSummary(r.db, tenantId);
  const synced = r.isSynced(tenantId);
  const holds = (synced ? r.sync!.holds?.() : undefined) ?? NO_HOLDS;
  const resultados = Object.fromEntries(
    PUSH_RESULTS.map((p) => [p, s.byResult.find((b) => b.resultado === p)?.n ?? 0]),
  );
  return {
    nuvem_configurada: synced,
    online: synced ? r.sync!.state.online() : null,
    ultima_comunicacao_em: s.state?.last_contact_at ?? null,
    ultimo_pull_ok_em: s.state?.last_pull_ok_at ?? null,
    ultimo_push_ok_em: s.state?.last_push_ok_at ?? null,
    ultima_atualizacao_em: s.state?.last_refresh_ok_at ?? null,
    ultima_atualizacao_completa_em: s.state?.last_full_refresh_ok_at ?? null,
    ultimo_erro: s.state?.last_error ? { mensagem: s.state.last_error, em: s.state.last_error_at } : null,
    fila: {
      pendentes: eventsWaiting(s, synced),
      em_nova_tentativa: s.queue?.retrying ?? 0,
      evento_mais_antigo_em: s.queue?.oldest ?? null,
      // A held event is tried again when its hold ends at the latest (or sooner, once the other box is settled).
      proxima_tentativa_em: earliest(s.queue?.next ?? null, holds.next),
      aguardando_outra_caixa: holds.count,
      aguardando_outra_caixa_ate: holds.last,
    },
    resultados,
    registros_rejeitados: {
      total: s.rejectCount,
      recentes: s.rejects.map((j) => ({ tipo: j.kind, referencia: j.ref, motivo: j.reason, em: j.at })),
    },
  };
}

function statusRoute(app: App, r: SyncRoutes) {
  app.get(
    '/api/local/sync',
    {
      onRequest: r.onRequest,
      schema: { ...common, summary: 'Estado da sincronização com a nuvem', docs: syncStatusDocs },
    },
    async (request) => ({ success: true, data: syncStatus(r, r.callerOf(request).tenantId) }),
  );
}

function conflictsRoute(app: App, r: SyncRoutes) {
  const { db, clock } = r;
  app.get(
    '/api/local/conflicts',
    {
      onRequest: r.onRequest,
      schema: {
        ...common,
        summary: 'Eventos que a nuvem não aceitou (JSON ou CSV)',
        querystring: conflictsQuery,
        docs: conflictsDocs,
      },
    },
    async (request, reply) => {
      const caller = r.callerOf(request);
      const q = request.query;
      if (q.desde && q.ate && q.ate < q.desde)
        throw new AppError(
          'VALIDATION_ERROR',
          { campos: [{ campo: 'querystring.ate', mensagem: 'deve ser igual ou posterior a desde' }] },
          'Parâmetros inválidos: querystring.ate: deve ser igual ou posterior a desde',
        );
      const { rows, total } = findConflicts(db, {
        tenantId: caller.tenantId,
        from: q.desde ? clock.startOfLocalDate(q.desde).toISOString() : undefined,
        to: q.ate ? clock.startOfLocalDate(addDays(q.ate, 1)).toISOString() : undefined,
        kind: q.tipo as (typeof CONFLICT_KINDS)[number] | undefined,
        limit: q.limit,
        offset: q.offset,
      });
      const conflitos = rows.map((row) => conflictPayload(row, clock.localDate));
      if (wantsCsv(request, q.format))
        return reply
          .type('text/csv; charset=utf-8')
          .header('content-disposition', 'attachment; filename="conflitos.csv"')
          .header('x-total-count', String(total))
          .send(toCsv(conflitos, CONFLICT_COLUMNS));
      return {
        success: true,
        data: {
          conflitos,
          total,
          ...(conflitos.length === 0 ? { mensagem: 'Nenhum conflito com a nuvem para os filtros informados.' } : {}),
        },
      };
    },
  );
}

function eventsRoute(app: App, r: SyncRoutes) {
  const { db, clock } = r;
  app.get(
    '/api/local/eventos',
    {
      onRequest: r.onRequest,
      schema: {
        ...common,
        summary: 'Log de eventos com o resultado na nuvem e marcação por chave',
        querystring: eventsQuery,
        docs: eventsDocs,
      },
    },
    async (request) => {
      const caller = r.callerOf(request);
      const q = request.query;
      const synced = r.isSynced(caller.tenantId);
      // Select, mark and read in one transaction: the page shows the marks this call made (as vouchers do).
      const rows = db.sqlite
        .transaction(() => {
          const page = findEvents(db, {
            tenantId: caller.tenantId,
            apiKeyId: caller.apiKeyId,
            sincronizado: q.sincronizado,
            limit: q.limit,
            offset: q.offset,
          });
          if (!q.marcar_sincronizado) return page;
          const now = clock.nowIso();
          markEvents(
            db,
            caller.apiKeyId,
            page.filter((row) => row.sincronizado_em === null).map((row) => row.id),
            now,
          );
          return page.map((row) => ({ ...row, sincronizado_em: row.sincronizado_em ?? now }));
        })
        .immediate();
      const eventos: SyncEvent[] = rows.map((row) => ({
        ...eventoPayload(row, synced),
        sincronizado: row.sincronizado_em !== null,
        sincronizado_em: row.sincronizado_em,
      }));
      const data: EventsAnswer['data'] = { eventos, total: eventos.length };
      if (eventos.length === 0)
        data.mensagem =
          q.sincronizado === false
            ? 'Nenhum evento novo para sincronizar com esta chave.'
            : 'Nenhum evento encontrado para os filtros informados.';
      return { success: true, data } satisfies EventsAnswer;
    },
  );
}

/** GET /api/local/sync, /api/local/conflicts and /api/local/eventos: the central office's view (docs/sync.md). */
export const syncRoutes =
  (deps: SyncRouteDeps): RouteRegistrar =>
  (app) => {
    const { onRequest, callerOf } = guard((request) => deps.auth.apiKey(request, ['local:read']));
    const isSynced = (tenantId: number) => deps.sync !== undefined && deps.sync.tenantId === tenantId;
    const r: SyncRoutes = { ...deps, onRequest, callerOf, isSynced };
    statusRoute(app, r);
    conflictsRoute(app, r);
    eventsRoute(app, r);
  };
