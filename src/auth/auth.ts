import type { FastifyRequest } from 'fastify';
import type { Clock } from '../clock.js';
import type { Db } from '../db/open.js';
import { AppError } from '../http/errors.js';
import { createKeyVerifier, hasAnyPermission, type Caller } from './api-keys.js';

export const CHECKIN_PERMISSIONS = ['vouchers:checkin', 'checkin', 'all'];

export interface Auth {
  /** X-API-Key endpoints (check-in, vouchers, clients): MISSING_API_KEY, INVALID_API_KEY, PERMISSION_DENIED. */
  apiKey(request: FastifyRequest, permissions: readonly string[]): Caller;
  /** X-Integration-Key endpoints (combos): AUTH_ERROR for anything wrong. */
  integrationKey(request: FastifyRequest, permission: string): Caller;
}

export function createAuth({ db, clock }: { db: Db; clock: Clock }): Auth {
  const verifyApiKey = createKeyVerifier(db);
  const header = (request: FastifyRequest, name: string) => {
    const value = request.headers[name];
    return (Array.isArray(value) ? value[0] : value)?.trim() ?? '';
  };
  return {
    apiKey(request, permissions) {
      const key = header(request, 'x-api-key');
      if (!key) throw new AppError('MISSING_API_KEY');
      const caller = verifyApiKey(key, clock.nowIso());
      if (!caller) throw new AppError('INVALID_API_KEY');
      if (!hasAnyPermission(caller, permissions))
        throw new AppError('PERMISSION_DENIED', { permissoes_necessarias: permissions });
      return caller;
    },
    integrationKey(request, permission) {
      const key = header(request, 'x-integration-key');
      const caller = key ? verifyApiKey(key, clock.nowIso()) : null;
      if (!caller || !hasAnyPermission(caller, [permission])) throw new AppError('AUTH_ERROR');
      return caller;
    },
  };
}
