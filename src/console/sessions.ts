import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Clock } from '../clock.js';
import type { Db } from '../db/open.js';
import { AppError } from '../http/errors.js';
import { demoRetiredSql } from '../tenants/tenants.repo.js';
import type { Papel } from '../operators/operators.repo.js';

// Console sessions: a random token in an httpOnly, SameSite=Strict cookie; the database keeps only
// its SHA-256, with the operator, the station and a CSRF token that every state-changing request
// must echo in X-CSRF-Token. A session ends after `idleMinutes` without a request.

export const COOKIE = 'gate_console';

export interface ConsoleSession {
  id: number;
  operatorId: number;
  nome: string;
  papel: Papel;
  tenantId: number;
  tenantSlug: string;
  tenantNome: string;
  estacao: string;
  csrf: string;
}

const sha256 = (token: string) => createHash('sha256').update(token).digest('hex');

/** Last-seen times are written at most this often per session: a console polls and streams all shift long. */
const TOUCH_EVERY_MS = 60_000;

export function createConsoleSessions({ db, clock, idleMinutes }: { db: Db; clock: Clock; idleMinutes: number }) {
  const insert = db.statement(
    'INSERT INTO console_sessions (token_hash, operator_id, csrf, estacao, created_at, last_seen_at) VALUES (?, ?, ?, ?, ?, ?)',
  );
  const find = db.statement(
    `SELECT s.id, s.operator_id AS operatorId, s.csrf, s.estacao, s.last_seen_at AS lastSeen, o.nome, o.papel, o.tenant_id AS tenantId,
            t.slug AS tenantSlug, t.nome AS tenantNome
       FROM console_sessions s JOIN operators o ON o.id = s.operator_id JOIN tenants t ON t.id = o.tenant_id
      WHERE s.token_hash = ? AND o.disabled_at IS NULL
        -- The demo's operators, like its keys, stop working once a park exists (docs/cli.md, "demo").
        AND NOT ${demoRetiredSql('t.slug')}`,
  );
  const touch = db.statement('UPDATE console_sessions SET last_seen_at = ? WHERE id = ?');
  const remove = db.statement('DELETE FROM console_sessions WHERE token_hash = ?');
  const expire = db.statement('DELETE FROM console_sessions WHERE last_seen_at < ?');
  const signedInTenants = db.statement(
    'SELECT DISTINCT o.tenant_id AS id FROM console_sessions s JOIN operators o ON o.id = s.operator_id',
  );
  const idleMs = idleMinutes * 60_000;

  return {
    idleMinutes,
    /** A new session for an operator who just proved their secret: the cookie's token and the CSRF token. */
    start(operatorId: number, estacao: string): { token: string; csrf: string } {
      const token = randomBytes(32).toString('base64url');
      const csrf = randomBytes(24).toString('base64url');
      const now = clock.nowIso();
      expire.run(new Date(clock.now().getTime() - idleMs).toISOString());
      insert.run(sha256(token), operatorId, csrf, estacao, now, now);
      return { token, csrf };
    },
    /**
     * The live session of a token, its idle time renewed (unless `renew` is false: a stream's ping is not use); null
     * when unknown, ended or idle too long.
     */
    find(token: string, renew = true): ConsoleSession | null {
      const row = find.get(sha256(token)) as
        (Omit<ConsoleSession, 'estacao'> & { estacao: string | null; lastSeen: string }) | undefined;
      if (!row) return null;
      const now = clock.now().getTime();
      const idle = now - Date.parse(row.lastSeen);
      if (idle > idleMs) {
        remove.run(sha256(token));
        return null;
      }
      if (renew && idle > TOUCH_EVERY_MS) touch.run(new Date(now).toISOString(), row.id);
      return {
        id: row.id,
        operatorId: row.operatorId,
        nome: row.nome,
        papel: row.papel,
        tenantId: row.tenantId,
        tenantSlug: row.tenantSlug,
        tenantNome: row.tenantNome,
        estacao: row.estacao ?? 'console',
        csrf: row.csrf,
      };
    },
    end(token: string): void {
      remove.run(sha256(token));
    },
    /** Tenants with a console signed in: the live monitor samples only these. */
    tenants: () => (signedInTenants.all() as { id: number }[]).map((r) => r.id),
  };
}

export type ConsoleSessions = ReturnType<typeof createConsoleSessions>;

/** The session token the request's cookie carries; null when there is none or it cannot be read. */
export function cookieToken(request: FastifyRequest): string | null {
  const header = request.headers.cookie;
  if (!header) return null;
  for (const part of header.split(';')) {
    const at = part.indexOf('=');
    if (at > 0 && part.slice(0, at).trim() === COOKIE) return decodeCookieValue(part.slice(at + 1).trim());
  }
  return null;
}

/**
 * A cookie value with broken percent-encoding (`%zz`) is no session, like a wrong token: anyone on the LAN can send
 * one, so it must not reach the error handler as an unexpected error (issue 22, 6.1).
 */
function decodeCookieValue(value: string): string | null {
  try {
    return decodeURIComponent(value);
  } catch {
    return null;
  }
}

export function setSessionCookie(reply: FastifyReply, token: string | null): void {
  const value = token === null ? `${COOKIE}=; Max-Age=0` : `${COOKIE}=${token}`;
  // Served over HTTPS (GATE_TLS_CERT): the browser then never sends the session over plain HTTP.
  const secure = reply.request.protocol === 'https' ? '; Secure' : '';
  reply.header('set-cookie', `${value}; Path=/; HttpOnly; SameSite=Strict${secure}`);
}

const sameText = (a: string, b: string) => a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));

/**
 * onRequest hooks for console routes (before the body is read, as for API keys): the session of the
 * cookie, the CSRF token on every method but GET, and the role when one is required.
 */
export function consoleGuard(sessions: ConsoleSessions) {
  const byRequest = new WeakMap<FastifyRequest, ConsoleSession>();
  const check = (request: FastifyRequest, role: Papel | null) => {
    const token = cookieToken(request);
    const session = token ? sessions.find(token) : null;
    if (!session) throw new AppError('SESSAO_INVALIDA');
    if (request.method !== 'GET') {
      const sent = request.headers['x-csrf-token'];
      if (typeof sent !== 'string' || !sameText(sent, session.csrf)) throw new AppError('CSRF_INVALIDO');
    }
    if (role === 'supervisor' && session.papel !== 'supervisor') throw new AppError('PAPEL_INSUFICIENTE');
    byRequest.set(request, session);
  };
  return {
    anyone: async (request: FastifyRequest) => check(request, null),
    supervisor: async (request: FastifyRequest) => check(request, 'supervisor'),
    sessionOf: (request: FastifyRequest): ConsoleSession => byRequest.get(request)!,
  };
}

export type ConsoleGuard = ReturnType<typeof consoleGuard>;
