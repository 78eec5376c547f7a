import { Ajv } from 'ajv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestBox, type TestBox } from '../support/box.js';

// What an OpenAPI reader or generator needs from /docs beyond the shapes: an operationId per operation (a client
// generator names its methods by it; Spectral's oas ruleset asks for it), and query parameters whose schema
// accepts what the box accepts: docs/api.md promises case-insensitive booleans (`True` from .NET, `FALSE`).

type Param = { name: string; in: string; schema: Record<string, unknown> };
type Op = { operationId?: string; parameters?: Param[]; security?: Record<string, string[]>[] };

let box: TestBox;
let ops: { method: string; path: string; op: Op }[];
beforeAll(async () => {
  box = await createTestBox();
  const spec = (await box.app.inject({ method: 'GET', url: '/docs/json' })).json() as {
    paths: Record<string, Record<string, Op>>;
  };
  ops = Object.entries(spec.paths).flatMap(([path, byMethod]) =>
    Object.entries(byMethod).map(([method, op]) => ({ method: method.toUpperCase(), path, op })),
  );
});
afterAll(() => box.close());

describe('/docs for OpenAPI tools', () => {
  it('gives every operation an operationId, each one different', () => {
    expect(ops.length).toBeGreaterThan(30);
    const missing = ops.filter((o) => !o.op.operationId).map((o) => `${o.method} ${o.path}`);
    expect(missing).toEqual([]);
    const ids = ops.map((o) => o.op.operationId);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('describes the boolean query parameters as the box reads them: any case, 1 and 0', async () => {
    const ajv = new Ajv({ strict: false });
    const booleans = ops.flatMap(({ method, path, op }) =>
      (op.parameters ?? [])
        .filter((p) => p.in === 'query')
        .map((p) => ({ method, path, op, name: p.name, accepts: ajv.compile(p.schema) }))
        // A boolean: true and false but not any word (a free text parameter takes both too).
        .filter((p) => p.accepts('true') && p.accepts('false') && !p.accepts('talvez')),
    );
    // sincronizado and marcar_sincronizado of three listings, checkin_realizado, destaque.
    expect(booleans.length).toBeGreaterThanOrEqual(7);
    const headers = (op: Op): Record<string, string> =>
      op.security?.some((s) => 'integrationKey' in s)
        ? { 'x-integration-key': box.keys.combos }
        : { 'x-api-key': box.keys.all };
    for (const { method, path, op, name, accepts } of booleans) {
      for (const value of ['True', 'FALSE', '1', '0', 'tRuE', 'sim', '2']) {
        const res = await box.app.inject({
          method: method as 'GET',
          url: `${path}?${name}=${encodeURIComponent(value)}${name === 'marcar_sincronizado' ? '' : '&marcar_sincronizado=false'}`,
          headers: headers(op),
        });
        const boxAccepts = res.statusCode !== 400;
        expect(accepts(value), `${method} ${path} ${name}=${value}: the box answered ${res.statusCode}`).toBe(
          boxAccepts,
        );
      }
    }
  });
});
