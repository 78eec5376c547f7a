import type { FastifyRequest } from 'fastify';
import type { Kysely } from 'kysely';
import type { Clock } from '../clock.js';
import type { Sqlite } from '../db/open.js';
import type { DB } from '../db/schema.js';
import { AppError } from '../http/errors.js';
import { hasAnyPermission, verifyApiKey, type Caller } from './api-keys.js';

export const CHECKIN_PERMISSIONS = ['vouchers:checkin', 'checkin', 'all'];

export interface Auth {
  /** X-API-Key endpoints (check-in, vouchers, clients): MISSING_API_KEY, INVALID_API_KEY, PERMISSION_DENIED. */
  apiKey(request: FastifyRequest, permissions: readonly string[]): Caller;
  /** X-Integration-Key endpoints (combos): AUTH_ERROR for anything wrong. */
  integrationKey(request: FastifyRequest, permission: string): Caller;
}

export function createAuth({ sqlite, kysely, clock }: { sqlite: Sqlite; kysely: Kysely<DB>; clock: Clock }): Auth {
  const header = (request: FastifyRequest, name: string) => {
    const value = request.headers[name];
    return (Array.isArray(value) ? value[0] : value)?.trim() ?? '';
  };
  return {
    apiKey(request, permissions) {
      const key = header(request, 'x-api-key');
      if (!key) throw new AppError('MISSING_API_KEY');
      const caller = verifyApiKey(sqlite, kysely, key, clock.nowIso());
      if (!caller) throw new AppError('INVALID_API_KEY');
      if (!hasAnyPermission(caller, permissions)) throw new AppError('PERMISSION_DENIED', { permissoes_necessarias: permissions });
      return caller;
    },
    integrationKey(request, permission) {
      const key = header(request, 'x-integration-key');
      const caller = key ? verifyApiKey(sqlite, kysely, key, clock.nowIso()) : null;
      if (!caller || !hasAnyPermission(caller, [permission])) throw new AppError('AUTH_ERROR');
      return caller;
    },
  };
}
