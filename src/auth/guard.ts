import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import type { Caller } from './api-keys.js';

/**
 * Authenticates in onRequest, before the body is read, parsed or validated, so a request without a
 * valid key gets the auth error and not INVALID_JSON, 415, 413 or a validation error: it learns nothing
 * about the route. The caller (an API key's, or a handheld's device) is kept per request without decorating.
 * A callback hook, not an async one: no promise per request on the check-in's path.
 */
export function guard<C extends object = Caller>(check: (request: FastifyRequest) => C) {
  const callers = new WeakMap<FastifyRequest, C>();
  return {
    onRequest: (request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction) => {
      let caller: C;
      try {
        caller = check(request);
      } catch (error) {
        done(error as Error);
        return;
      }
      callers.set(request, caller);
      done();
    },
    callerOf: (request: FastifyRequest): C => callers.get(request)!,
  };
}

export type Guard<C extends object = Caller> = ReturnType<typeof guard<C>>;
