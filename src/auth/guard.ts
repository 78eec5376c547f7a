import type { FastifyRequest } from 'fastify';
import type { Caller } from './api-keys.js';

/**
 * Authenticates in onRequest, before the body is read, parsed or validated, so a request without a
 * valid key gets the auth error and not INVALID_JSON, 415, 413 or a validation error: it learns nothing
 * about the route. The caller (an API key's, or a handheld's device) is kept per request without decorating.
 */
export function guard<C extends object = Caller>(check: (request: FastifyRequest) => C) {
  const callers = new WeakMap<FastifyRequest, C>();
  return {
    onRequest: async (request: FastifyRequest) => {
      callers.set(request, check(request));
    },
    callerOf: (request: FastifyRequest): C => callers.get(request)!,
  };
}

export type Guard<C extends object = Caller> = ReturnType<typeof guard<C>>;
