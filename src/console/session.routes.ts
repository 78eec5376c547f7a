import { z } from 'zod';
import type { RouteRegistrar } from '../app.js';
import type { Clock } from '../clock.js';
import type { Db } from '../db/open.js';
import { AppError } from '../http/errors.js';
import type { Log } from '../lib/log.js';
import { demoRetiredSql } from '../tenants/tenants.repo.js';
import {
  MAX_ATTEMPTS,
  operatorByName,
  recordFailure,
  recordSuccess,
  UNKNOWN_OPERATOR_HASH,
  verifySecret,
  type OperatorRow,
} from '../operators/operators.repo.js';
import {
  cookieToken,
  setSessionCookie,
  type ConsoleGuard,
  type ConsoleSession,
  type ConsoleSessions,
} from './sessions.js';

export interface SessionRouteDeps {
  db: Db;
  clock: Clock;
  sessions: ConsoleSessions;
  guard: ConsoleGuard;
}

const text = (max: number) => z.string().trim().min(1, 'obrigatório').max(max, `no máximo ${max} caracteres`);
const signInBody = z.object({
  nome: text(80),
  segredo: z.string().min(1, 'obrigatório').max(200),
  tenant: text(64).optional(),
  estacao: text(64).optional(),
});
type SignInBody = z.infer<typeof signInBody>;
interface TenantRow {
  id: number;
  slug: string;
  nome: string;
}

const tags = ['console'];

/** The session's JSON (docs/console.md, `Sessao`). */
const sessaoData = (
  s: Pick<ConsoleSession, 'operatorId' | 'nome' | 'papel' | 'tenantSlug' | 'tenantNome' | 'estacao' | 'csrf'>,
  idleMinutes: number,
) => ({
  operador: { id: s.operatorId, nome: s.nome, papel: s.papel },
  tenant: { slug: s.tenantSlug, nome: s.tenantNome },
  estacao: s.estacao,
  csrf: s.csrf,
  expira_apos_min: idleMinutes,
});

/** The tenant a sign-in names; on a box with one tenant it may be left out. */
function tenantOf(all: TenantRow[], body: SignInBody): TenantRow | undefined {
  const tenant = body.tenant ? all.find((t) => t.slug === body.tenant) : all.length === 1 ? all[0] : undefined;
  if (!tenant && !body.tenant)
    throw new AppError(
      'VALIDATION_ERROR',
      { campos: [{ campo: 'body.tenant', mensagem: 'informe o tenant' }] },
      'Parâmetros inválidos: body.tenant: informe o tenant',
    );
  return tenant;
}

/**
 * The operator whose secret matched, or the refusal: a wrong secret counts towards the lock, an unknown or disabled
 * name answers like a wrong secret.
 */
async function provenOperator(
  db: Db,
  operator: OperatorRow | undefined,
  segredo: string,
  now: Date,
  log: Log,
): Promise<OperatorRow> {
  if (operator?.locked_until && Date.parse(operator.locked_until) > now.getTime())
    throw new AppError('CONTA_BLOQUEADA', { bloqueada_ate: operator.locked_until });
  // The same scrypt whether the name exists or not: a name is not told apart by timing.
  const matches = await verifySecret(segredo, operator?.secret_hash ?? UNKNOWN_OPERATOR_HASH);
  if (operator && !operator.disabled_at && matches) return operator;
  if (operator && !operator.disabled_at) {
    const lockedUntil = await db.writes.run(() => recordFailure(db, operator.id, now));
    log.warn({ operador: operator.id, bloqueado: lockedUntil !== null }, 'console: senha errada');
    if (lockedUntil) throw new AppError('CONTA_BLOQUEADA', { bloqueada_ate: lockedUntil });
    throw new AppError('CREDENCIAIS_INVALIDAS', {
      tentativas_restantes: MAX_ATTEMPTS - operator.failed_attempts - 1,
    });
  }
  throw new AppError('CREDENCIAIS_INVALIDAS');
}

/** Signing in and out, and the cookie's session (docs/console.md, "Sessions, CSRF, roles"). */
export const sessionRoutes =
  ({ db, clock, sessions, guard }: SessionRouteDeps): RouteRegistrar =>
  (app) => {
    // The demo tenant is not offered beside a park: its operators are refused, like its keys (docs/cli.md, "demo").
    const tenants = db.statement(
      `SELECT id, slug, nome FROM tenants
      WHERE NOT ${demoRetiredSql('slug')}
      ORDER BY id`,
    );

    app.post(
      '/api/console/entrar',
      { schema: { tags, summary: 'Entrar no console (operador e PIN ou senha)', body: signInBody } },
      async (request, reply) => {
        const body = request.body;
        const tenant = tenantOf(tenants.all() as TenantRow[], body);
        const found = tenant ? operatorByName(db, tenant.id, body.nome) : undefined;
        const now = clock.now();
        const operator = await provenOperator(db, found, body.segredo, now, request.log);
        const estacao = body.estacao ?? 'console';
        const started = await db.writes.run(() => {
          recordSuccess(db, operator.id);
          return sessions.start(operator.id, estacao);
        });
        setSessionCookie(reply, started.token);
        request.log.info({ operador: operator.id, estacao }, 'console: operador entrou');
        const session = {
          operatorId: operator.id,
          nome: operator.nome,
          papel: operator.papel,
          tenantSlug: tenant!.slug,
          tenantNome: tenant!.nome,
          estacao,
          csrf: started.csrf,
        };
        return { success: true, data: sessaoData(session, sessions.idleMinutes) };
      },
    );

    app.get(
      '/api/console/sessao',
      { onRequest: guard.anyone, schema: { tags, summary: 'A sessão do cookie' } },
      async (request) => ({ success: true, data: sessaoData(guard.sessionOf(request), sessions.idleMinutes) }),
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
  };
