import { z } from 'zod';
import type { RouteRegistrar } from '../app.js';
import type { CheckinCaller, CheckinService } from '../checkin/checkin.service.js';
import type { Clock } from '../clock.js';
import type { Db } from '../db/open.js';
import { AppError, errorCatalogue } from '../http/errors.js';
import type { ConsoleView, Leitura } from './console.view.js';
import {
  MAX_ATTEMPTS,
  operatorByName,
  recordFailure,
  recordSuccess,
  UNKNOWN_OPERATOR_HASH,
  verifySecret,
} from '../operators/operators.repo.js';
import { searchOrders } from './search.repo.js';
import { demoRetiredSql } from '../tenants/tenants.repo.js';
import {
  cookieToken,
  setSessionCookie,
  type ConsoleGuard,
  type ConsoleSession,
  type ConsoleSessions,
} from './sessions.js';

export interface ConsoleDeps {
  db: Db;
  clock: Clock;
  checkin: CheckinService;
  sessions: ConsoleSessions;
  guard: ConsoleGuard;
  view: ConsoleView;
}

const text = (max: number) => z.string().trim().min(1, 'obrigatório').max(max, `no máximo ${max} caracteres`);
const signInBody = z.object({
  nome: text(80),
  segredo: z.string().min(1, 'obrigatório').max(200),
  tenant: text(64).optional(),
  estacao: text(64).optional(),
});
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

/** Sign-in, the scan view and the help desk (docs/console.md). */
export const consoleRoutes =
  (deps: ConsoleDeps): RouteRegistrar =>
  (app) => {
    const { db, clock, checkin, sessions, guard, view } = deps;
    // The demo tenant is not offered beside a park: its operators are refused, like its keys (docs/cli.md, "demo").
    const tenants = db.statement(
      `SELECT id, slug, nome FROM tenants
      WHERE NOT ${demoRetiredSql('slug')}
      ORDER BY id`,
    );

    const sessaoData = (
      s: Pick<ConsoleSession, 'operatorId' | 'nome' | 'papel' | 'tenantSlug' | 'tenantNome' | 'estacao' | 'csrf'>,
    ) => ({
      operador: { id: s.operatorId, nome: s.nome, papel: s.papel },
      tenant: { slug: s.tenantSlug, nome: s.tenantNome },
      estacao: s.estacao,
      csrf: s.csrf,
      expira_apos_min: sessions.idleMinutes,
    });

    app.post(
      '/api/console/entrar',
      { schema: { tags, summary: 'Entrar no console (operador e PIN ou senha)', body: signInBody } },
      async (request, reply) => {
        const body = request.body;
        const all = tenants.all() as { id: number; slug: string; nome: string }[];
        const tenant = body.tenant ? all.find((t) => t.slug === body.tenant) : all.length === 1 ? all[0] : undefined;
        if (!tenant && !body.tenant)
          throw new AppError(
            'VALIDATION_ERROR',
            { campos: [{ campo: 'body.tenant', mensagem: 'informe o tenant' }] },
            'Parâmetros inválidos: body.tenant: informe o tenant',
          );
        const operator = tenant ? operatorByName(db, tenant.id, body.nome) : undefined;
        const now = clock.now();
        if (operator?.locked_until && Date.parse(operator.locked_until) > now.getTime())
          throw new AppError('CONTA_BLOQUEADA', { bloqueada_ate: operator.locked_until });
        // The same scrypt whether the name exists or not: a name is not told apart by timing.
        const matches = await verifySecret(body.segredo, operator?.secret_hash ?? UNKNOWN_OPERATOR_HASH);
        if (!operator || operator.disabled_at || !matches) {
          if (operator && !operator.disabled_at) {
            const lockedUntil = await db.writes.run(() => recordFailure(db, operator.id, now));
            request.log.warn({ operador: operator.id, bloqueado: lockedUntil !== null }, 'console: senha errada');
            if (lockedUntil) throw new AppError('CONTA_BLOQUEADA', { bloqueada_ate: lockedUntil });
            throw new AppError('CREDENCIAIS_INVALIDAS', {
              tentativas_restantes: MAX_ATTEMPTS - operator.failed_attempts - 1,
            });
          }
          throw new AppError('CREDENCIAIS_INVALIDAS');
        }
        const estacao = body.estacao ?? 'console';
        const started = await db.writes.run(() => {
          recordSuccess(db, operator.id);
          return sessions.start(operator.id, estacao);
        });
        setSessionCookie(reply, started.token);
        request.log.info({ operador: operator.id, estacao }, 'console: operador entrou');
        return {
          success: true,
          data: sessaoData({
            operatorId: operator.id,
            nome: operator.nome,
            papel: operator.papel,
            tenantSlug: tenant!.slug,
            tenantNome: tenant!.nome,
            estacao,
            csrf: started.csrf,
          }),
        };
      },
    );

    app.get(
      '/api/console/sessao',
      { onRequest: guard.anyone, schema: { tags, summary: 'A sessão do cookie' } },
      async (request) => ({ success: true, data: sessaoData(guard.sessionOf(request)) }),
    );

    app.post(
      '/api/console/sair',
      { onRequest: guard.anyone, schema: { tags, summary: 'Sair' } },
      async (request, reply) => {
        const token = cookieToken(request);
        if (token) await db.writes.run(() => sessions.end(token));
        setSessionCookie(reply, null);
        return { success: true, data: {} };
      },
    );

    app.post(
      '/api/console/leitura',
      { onRequest: guard.anyone, schema: { tags, summary: 'Uma leitura da estação de escaneamento', body: scanBody } },
      async (request) => {
        const s = guard.sessionOf(request);
        const reply = await checkin.checkIn({ qr_code: request.body.codigo, ...actorOf(s) }, callerOf(s), {
          batch: false,
        });
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
        const reply = await checkin.checkIn({ ...request.body, ...actorOf(s) }, callerOf(s), { batch: false });
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
        const { motivo, ...target } = request.body;
        const reply = await checkin.reverse({ ...target, ...actorOf(s), motivo }, callerOf(s), { batch: false });
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
