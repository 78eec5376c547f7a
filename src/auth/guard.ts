import type { FastifyRequest } from 'fastify';
import type { Caller } from './api-keys.js';

/**
 * Authenticates in onRequest, before the body is read, parsed or validated, so a request without a
 * valid key gets the auth error and not INVALID_JSON, 415, 413 or a validation error: it learns nothing
 * about the route. The caller is kept per request without decorating.
 */
export function guard(check: (request: FastifyRequest) => Caller) {
  const callers = new WeakMap<FastifyRequest, Caller>();
  return {
    onRequest: async (request: FastifyRequest) => {
      callers.set(request, check(request));
    },
    callerOf: (request: FastifyRequest): Caller => callers.get(request)!,
  };
}
