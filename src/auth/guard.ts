import type { FastifyRequest } from 'fastify';
import type { Caller } from './api-keys.js';

/**
 * Authenticates in preValidation, before body and query validation, so a request without a valid key
 * gets the auth error and not a validation error. The caller is kept per request without decorating.
 */
export function guard(check: (request: FastifyRequest) => Caller) {
  const callers = new WeakMap<FastifyRequest, Caller>();
  return {
    preValidation: async (request: FastifyRequest) => {
      callers.set(request, check(request));
    },
    callerOf: (request: FastifyRequest): Caller => callers.get(request)!,
  };
}
