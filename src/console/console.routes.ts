import { z } from 'zod';
import type { RouteRegistrar } from '../app.js';
import { asHttp } from '../checkin/checkin.errors.js';
import type { CheckinCaller, CheckinService } from '../checkin/checkin.service.js';
import type { Clock } from '../clock.js';
import type { Db } from '../db/open.js';
import { AppError, errorCatalogue } from '../http/errors.js';
import type { ConsoleView, Leitura } from './console.view.js';
import { searchOrders } from './search.repo.js';
import { sessionRoutes } from './session.routes.js';
import type { ConsoleGuard, ConsoleSession, ConsoleSessions } from './sessions.js';

export interface ConsoleDeps {
  db: Db;
  clock: Clock;
  checkin: CheckinService;
  sessions: ConsoleSessions;
  guard: ConsoleGuard;
  view: ConsoleView;
}

const text = (max: number) => z.string().trim().min(1, 'obrigatório').max(max, `no máximo ${max} caracteres`);
const scanBody = z.object({ codigo: text(256) });
const targetBody = z.object({ qr_code: text(256).optional(), numero_pedido: text(32).optional() });
const reversalBody = targetBody.extend({
  motivo: z.string().trim().min(3, 'informe o motivo (3 a 200 caracteres)').max(200, 'no máximo 200 caracteres'),
});

const tags = ['console'];

/** The console as the check-in service's caller: source `console`, the station as terminal, the operator's name. */
const callerOf = (s: ConsoleSession): CheckinCaller => ({
  tenantId: s.tenantId,
  apiKeyId: null,
  keyName: `console:${s.nome}`,
  source: 'console',
});
const actorOf = (s: ConsoleSession) => ({ terminal: s.estacao, operador: s.nome });
/** A console request in the check-in service's words: the station as terminal, the operator's name. */
const inputOf = (s: ConsoleSession, body: { qr_code?: string; numero_pedido?: string; motivo?: string }) => ({
  code: body.qr_code,
  orderNumber: body.numero_pedido,
  reason: body.motivo,
  terminal: s.estacao,
  operator: s.nome,
});

/** Sign-in, the scan view and the help desk (docs/console.md). */
export const consoleRoutes =
  (deps: ConsoleDeps): RouteRegistrar =>
  (app) => {
    sessionRoutes(deps)(app);
    deskRoutes(deps)(app);
  };

/** The scan view and the help desk. */
const deskRoutes =
  ({ db, clock, checkin, guard, view }: ConsoleDeps): RouteRegistrar =>
  (app) => {
    app.post(
      '/api/console/leitura',
      { onRequest: guard.anyone, schema: { tags, summary: 'Uma leitura da estação de escaneamento', body: scanBody } },
      async (request) => {
        const s = guard.sessionOf(request);
        const input = inputOf(s, { qr_code: request.body.codigo });
        const reply = await asHttp(checkin.checkIn(input, callerOf(s), { batch: false }));
        if (reply.batch) throw new AppError('VALIDATION_ERROR');
        const data: Leitura = view.leitura(
          { action: 'checkin', tenantId: s.tenantId, source: 'console', ...actorOf(s), result: reply.result },
          clock.nowIso(),
        );
        return { success: true, data };
      },
    );

    app.get(
      '/api/console/busca',
      {
        onRequest: guard.anyone,
        schema: { tags, summary: 'Busca por pedido, QR, nome, CPF ou e-mail', querystring: z.object({ q: text(100) }) },
      },
      async (request) => ({
        success: true,
        data: { resultados: searchOrders(db, guard.sessionOf(request).tenantId, request.query.q) },
      }),
    );

    app.get(
      '/api/console/pedidos/:numero',
      {
        onRequest: guard.anyone,
        schema: { tags, summary: 'Um pedido com o estado de cada pessoa', params: z.object({ numero: text(32) }) },
      },
      async (request) => {
        const found = view.pedido(guard.sessionOf(request).tenantId, request.params.numero);
        if (!found) throw new AppError('ORDER_NOT_FOUND', { numero_pedido: request.params.numero });
        return { success: true, data: found };
      },
    );

    /** A refusal as the error envelope, with the plain sentence the scan view shows. */
    const refused = (
      s: ConsoleSession,
      code: keyof typeof errorCatalogue,
      details: Record<string, unknown> | undefined,
    ) => new AppError(code, details, view.refusalText(code, details ?? {}, s.tenantId));

    app.post(
      '/api/console/checkin',
      {
        onRequest: guard.anyone,
        schema: { tags, summary: 'Check-in de uma pessoa, grupo, pedido ou adicional', body: targetBody },
      },
      async (request) => {
        const s = guard.sessionOf(request);
        const reply = await asHttp(checkin.checkIn(inputOf(s, request.body), callerOf(s), { batch: false }));
        if (reply.batch) throw new AppError('VALIDATION_ERROR');
        if (!reply.result.ok) throw refused(s, reply.result.code, reply.result.details);
        const leitura = view.leitura(
          { action: 'checkin', tenantId: s.tenantId, source: 'console', ...actorOf(s), result: reply.result },
          clock.nowIso(),
        );
        const numero = request.body.numero_pedido ?? leitura.numero_pedido;
        return { success: true, data: { leitura, pedido: numero ? view.pedido(s.tenantId, numero) : null } };
      },
    );

    app.post(
      '/api/console/estorno',
      {
        onRequest: guard.supervisor,
        schema: { tags, summary: 'Estorno no mesmo dia, com motivo (supervisor)', body: reversalBody },
      },
      async (request) => {
        const s = guard.sessionOf(request);
        const reply = await asHttp(checkin.reverse(inputOf(s, request.body), callerOf(s), { batch: false }));
        if (reply.batch) throw new AppError('VALIDATION_ERROR');
        if (!reply.result.ok) throw refused(s, reply.result.code, reply.result.details);
        const numero = reply.result.numeroPedido;
        request.log.info({ numero_pedido: numero, pessoas: reply.result.people.length }, 'console: estorno');
        return {
          success: true,
          data: {
            mensagem: `Check-in estornado: ${reply.result.people.length} pessoa(s).`,
            pedido: view.pedido(s.tenantId, numero),
          },
        };
      },
    );
  };
