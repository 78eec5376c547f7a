import type { FastifySchema, RouteOptions } from 'fastify';
import { ResponseSerializationError } from 'fastify-type-provider-zod';
import type { z } from 'zod';
import { routeKey, type OperationDocs } from './operation-docs.js';

// Each answer's one zod schema (the feature's *.answers.ts, named by the route's docs) is also the route's
// `schema.response` for 200: fastify checks every object a route answers with it before sending, and /docs
// shows the same object. Routes that send pre-made bytes (check-in answers, the vouchers listing, CSV, the
// event stream) are not serialised by fastify, and the long listings are not checked at run time (Answer.checked):
// their answers are checked by test/http/answer-schemas.test.ts.

/**
 * Sets `response[200]` of a route from its docs (its own or buildApp's table) when the route declares none: the
 * answer's schema is named once, in the docs, for both readers.
 */
export function responseFromDocs(routeDocs: Record<string, OperationDocs> | undefined) {
  return (route: RouteOptions) => {
    const schema = (route.schema ?? {}) as FastifySchema & { docs?: OperationDocs };
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    const docs = schema.docs ?? routeDocs?.[routeKey(String(methods[0]), route.url)];
    if (!docs?.ok.schema || docs.ok.checked === false || schema.response) return;
    route.schema = { ...schema, response: { 200: docs.ok.schema } };
  };
}

/**
 * The serializer of a zod response schema: the answer is checked against the schema (a strict object refuses a
 * field the builder added or dropped), then the builder's own object is sent. fastify-type-provider-zod's
 * serializer sends the schema's parse output instead, which reorders keys into the schema's order and runs the
 * import schemas' transforms (order.schemas.ts): an answer's bytes would then follow every edit of a schema.
 */
export const answerSerializerCompiler =
  ({ schema, method, url }: { schema: unknown; method: string; url: string }) =>
  (data: unknown) => {
    const result = (schema as z.ZodType).safeParse(data);
    if (!result.success) throw new ResponseSerializationError(method, url, { cause: result.error });
    return JSON.stringify(data);
  };
