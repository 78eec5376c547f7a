import { z } from 'zod';
import type { App, RouteRegistrar } from '../app.js';
import type { Clock } from '../clock.js';
import type { Db } from '../db/open.js';
import { AppError } from '../http/errors.js';
import { dateString } from '../lib/wire.js';
import { toCsv } from '../lib/csv.js';
import { CONFLICT_KINDS, findConflicts } from '../sync/sync.repo.js';
import { CONFLICT_COLUMNS, conflictPayload } from '../sync/conflicts.payload.js';
import type { ConsolePanels } from './console.panels.js';
import type { Feed } from './feed.js';
import { createOperator, disableOperator, listOperators, PAPEIS } from '../operators/operators.repo.js';
import type { ConsoleGuard } from './sessions.js';

export interface SupervisorDeps {
  db: Db;
  clock: Clock;
  guard: ConsoleGuard;
  panels: ConsolePanels;
  feed: Feed;
}

const tags = ['console'];
const idParams = z.object({ id: z.coerce.number({ message: 'deve ser um número' }).int().min(1) });
const csvOf = (format: string | undefined) => format === 'csv';

/** The supervisor's panels: lanes and alarms, sync and conflicts, operators, the day's report (docs/console.md). */
export const supervisorRoutes =
  (deps: SupervisorDeps): RouteRegistrar =>
  (app) => {
    laneRoutes(app, deps);
    syncRoutes(app, deps);
    operatorRoutes(app, deps);
    reportRoutes(app, deps);
  };

/** The lanes, the last scans, today's entries and the alarms; acknowledging one. */
function laneRoutes(app: App, { db, guard, panels, feed }: SupervisorDeps): void {
  const onRequest = guard.supervisor;
  app.get(
    '/api/console/pistas',
    { onRequest, schema: { tags, summary: 'Pistas, últimas leituras, entradas de hoje e alarmes (supervisor)' } },
    async (request) => ({
      success: true,
      data: panels.pistas(guard.sessionOf(request).tenantId),
    }),
  );

  app.post(
    '/api/console/alarmes/:id/reconhecer',
    { onRequest, schema: { tags, summary: 'Reconhecer um alarme (supervisor)', params: idParams } },
    async (request) => {
      const s = guard.sessionOf(request);
      const alarme = await db.writes.run(() => panels.acknowledge(s.tenantId, request.params.id, s.operatorId));
      if (!alarme) throw new AppError('NOT_FOUND', { id: request.params.id }, 'Alarme não encontrado.');
      feed.publish({ tenantId: s.tenantId, kind: 'alarme_reconhecido', data: alarme });
      return { success: true, data: alarme };
    },
  );
}

const conflictsQuery = z.object({
  tipo: z.enum(CONFLICT_KINDS as [string, ...string[]], { message: `use ${CONFLICT_KINDS.join(', ')}` }).optional(),
  formato: z.enum(['json', 'csv'], { message: 'use json ou csv' }).optional(),
});

/** The sync state and the conflicts with the cloud, JSON or CSV. */
function syncRoutes(app: App, { db, clock, guard, panels }: SupervisorDeps): void {
  const onRequest = guard.supervisor;
  app.get(
    '/api/console/sync',
    { onRequest, schema: { tags, summary: 'Sincronização com a nuvem (supervisor)' } },
    async (request) => ({
      success: true,
      data: panels.sync(guard.sessionOf(request).tenantId),
    }),
  );

  app.get(
    '/api/console/conflitos',
    {
      onRequest,
      schema: { tags, summary: 'Conflitos com a nuvem, JSON ou CSV (supervisor)', querystring: conflictsQuery },
    },
    async (request, reply) => {
      const q = request.query;
      const { rows, total } = findConflicts(db, {
        tenantId: guard.sessionOf(request).tenantId,
        kind: q.tipo as (typeof CONFLICT_KINDS)[number] | undefined,
        limit: 100_000,
        offset: 0,
      });
      const conflitos = rows.map((r) => conflictPayload(r, clock.localDate));
      if (csvOf(q.formato))
        return reply
          .type('text/csv; charset=utf-8')
          .header('content-disposition', 'attachment; filename="conflitos.csv"')
          .send(toCsv(conflitos, CONFLICT_COLUMNS));
      return { success: true, data: { conflitos, total } };
    },
  );
}

const newOperator = z.object({
  nome: z.string().trim().min(1, 'obrigatório').max(80, 'no máximo 80 caracteres'),
  papel: z.enum(PAPEIS, { message: 'use atendente ou supervisor' }),
});

/** The tenant's operators: the list, a new one with its one-time PIN, disabling one. */
function operatorRoutes(app: App, { db, clock, guard }: SupervisorDeps): void {
  const onRequest = guard.supervisor;
  app.get(
    '/api/console/operadores',
    { onRequest, schema: { tags, summary: 'Operadores do tenant (supervisor)' } },
    async (request) => {
      const now = clock.now().getTime();
      const operadores = listOperators(db, guard.sessionOf(request).tenantId).map((o) => ({
        id: o.id,
        nome: o.nome,
        papel: o.papel,
        ativo: o.disabled_at === null,
        bloqueado_ate: o.locked_until && Date.parse(o.locked_until) > now ? o.locked_until : null,
        criado_em: o.created_at,
      }));
      return { success: true, data: { operadores } };
    },
  );

  app.post(
    '/api/console/operadores',
    {
      onRequest,
      schema: { tags, summary: 'Criar um operador; responde o PIN de uso único (supervisor)', body: newOperator },
    },
    async (request) => {
      const s = guard.sessionOf(request);
      let created: { id: number; pin: string | null };
      try {
        created = await createOperator(db, {
          tenantId: s.tenantId,
          nome: request.body.nome,
          papel: request.body.papel,
          nowIso: clock.nowIso(),
        });
      } catch (error) {
        throw new AppError(
          'VALIDATION_ERROR',
          { campos: [{ campo: 'body.nome', mensagem: (error as Error).message }] },
          `Parâmetros inválidos: body.nome: ${(error as Error).message}`,
        );
      }
      request.log.info({ operador: created.id, por: s.operatorId }, 'console: operador criado');
      return {
        success: true,
        data: {
          operador: { id: created.id, nome: request.body.nome.trim(), papel: request.body.papel },
          pin: created.pin,
        },
      };
    },
  );

  app.post(
    '/api/console/operadores/:id/desativar',
    {
      onRequest,
      schema: { tags, summary: 'Desativar um operador e encerrar suas sessões (supervisor)', params: idParams },
    },
    async (request) => {
      const s = guard.sessionOf(request);
      const done = await db.writes.run(() => disableOperator(db, s.tenantId, request.params.id, clock.nowIso()));
      if (!done) throw new AppError('NOT_FOUND', { id: request.params.id }, 'Operador não encontrado.');
      return { success: true, data: { id: request.params.id, ativo: false } };
    },
  );
}

const reportQuery = z.object({
  data: dateString.optional(),
  formato: z.enum(['json', 'csv'], { message: 'use json ou csv' }).optional(),
});

/** The report's CSV: one line per hour and terminal with entries, then one per refusal code. */
function reportCsv(r: ReturnType<ConsolePanels['report']>): string {
  const rows = [
    ...r.por_hora.map((h) => ({
      secao: 'entradas',
      hora: h.hora,
      terminal: h.terminal,
      codigo: '',
      total: h.entradas,
    })),
    ...r.recusas.map((x) => ({ secao: 'recusas', hora: '', terminal: '', codigo: x.code, total: x.total })),
  ];
  return toCsv(rows, ['secao', 'hora', 'terminal', 'codigo', 'total']);
}

/** The day's report (tenant-local day, default today), JSON or CSV. */
function reportRoutes(app: App, { clock, guard, panels }: SupervisorDeps): void {
  app.get(
    '/api/console/relatorio',
    {
      onRequest: guard.supervisor,
      schema: {
        tags,
        summary: 'Relatório do dia: entradas por hora e pista, recusas por motivo (supervisor)',
        querystring: reportQuery,
      },
    },
    async (request, reply) => {
      const r = panels.report(guard.sessionOf(request).tenantId, request.query.data ?? clock.today());
      if (!csvOf(request.query.formato)) return { success: true, data: r };
      return reply
        .type('text/csv; charset=utf-8')
        .header('content-disposition', `attachment; filename="relatorio-${r.data}.csv"`)
        .send(reportCsv(r));
    },
  );
}
