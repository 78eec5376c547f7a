import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as checkinAnswers from '../../src/checkin/checkin.answers.js';
import * as checkinDocs from '../../src/checkin/checkin.docs.js';
import * as movementDocs from '../../src/checkin/movement.docs.js';
import * as clientsDocs from '../../src/clients/clients.docs.js';
import * as combosDocs from '../../src/combos/combos.docs.js';
import { consoleDocs } from '../../src/console/console.docs.js';
import { siteConsoleDocs } from '../../src/console/site.docs.js';
import { createOperator } from '../../src/operators/operators.repo.js';
import { COOKIE } from '../../src/console/sessions.js';
import * as gatesDocs from '../../src/gate/gates.docs.js';
import { handheldConsoleDocs, handheldDocs } from '../../src/handheld/handheld.docs.js';
import * as boxDocs from '../../src/status/status.docs.js';
import { errorCatalogue, type ErrorCode } from '../../src/http/errors.js';
import { errorEnvelopeSchema, SECURITY_SCHEMES, type OperationDocs } from '../../src/http/openapi.js';
import * as vouchersDocs from '../../src/orders/vouchers.docs.js';
import * as siteDocs from '../../src/site/site.docs.js';
import * as syncDocs from '../../src/sync/sync.docs.js';
import { createTestBox, type TestBox } from '../support/box.js';
import { makeOrder } from '../support/fixtures.js';
import { HANDHELDS } from '../support/handheld.js';

// The OpenAPI description at /docs against the routes the box really registers, the error catalogue
// and what the routes really answer.

interface Op {
  summary?: string;
  description?: string;
  tags?: string[];
  security?: Record<string, string[]>[];
  parameters?: { name: string; in: string }[];
  responses: Record<
    string,
    {
      description: string;
      content?: Record<string, { schema?: Schema; examples?: Record<string, { value: unknown }> }>;
    }
  >;
}
type Schema = { properties?: Record<string, Schema>; enum?: unknown[] };
type Spec = {
  info: { description: string };
  paths: Record<string, Record<string, Op>>;
  components: { securitySchemes: Record<string, unknown> };
};

let box: TestBox;
let spec: Spec;
let ops: { method: string; path: string; op: Op }[];
let consoleAuth: { cookie: string; 'x-csrf-token': string };

/** Every route fastify serves, from its route tree: `METHOD /path` with `{param}`. */
function registeredRoutes(app: TestBox['app']): string[] {
  const routes: string[] = [];
  const stack: string[] = [];
  for (const line of app.printRoutes({ commonPrefix: false }).split('\n')) {
    const at = line.indexOf('── ');
    if (at < 0) continue;
    const depth = Math.floor(at / 4);
    const m = /^(.*?)(?: \(([^)]*)\))?$/.exec(line.slice(at + 3).trim())!;
    stack.length = depth;
    stack.push(m[1]!);
    const path = stack.join('').replace(/:(\w+)/g, '{$1}');
    for (const method of m[2]?.split(', ') ?? []) routes.push(`${method} ${path}`);
  }
  return routes;
}

const opAt = (method: string, path: string) => spec.paths[path]?.[method.toLowerCase()];
const exampleCodes = (op: Op, status: string) =>
  Object.values(op.responses[status]?.content?.['application/json']?.examples ?? {}).map(
    (e) => (e.value as { error: { code: string } }).error.code,
  );

/** The answer's error is documented for the operation: under its status, with an example of its code. */
function expectDocumented(method: string, path: string, res: { statusCode: number; json(): unknown }) {
  const body = res.json() as { error?: { code: string } };
  expect(body.error, `${method} ${path} answered ${res.statusCode} without an error`).toBeDefined();
  const op = opAt(method, path)!;
  expect(
    exampleCodes(op, String(res.statusCode)),
    `${method} ${path}: ${res.statusCode} ${body.error!.code}`,
  ).toContain(body.error!.code);
}

const fill = (path: string) => path.replace(/\{\w+\}/g, '1');

beforeAll(async () => {
  // Handhelds on: their routes are documented like every other (docs/handheld.md).
  box = await createTestBox({ handheld: HANDHELDS });
  await createOperator(box.db, {
    tenantId: box.tenantId,
    nome: 'Sara',
    papel: 'supervisor',
    segredo: '4321',
    nowIso: box.clock.nowIso(),
  });
  const signed = await box.app.inject({
    method: 'POST',
    url: '/api/console/entrar',
    payload: { nome: 'Sara', segredo: '4321', tenant: 'parque' },
  });
  consoleAuth = {
    cookie: String(signed.headers['set-cookie']).split(';')[0]!,
    'x-csrf-token': signed.json().data.csrf,
  };
  const res = await box.app.inject({ method: 'GET', url: '/docs/json' });
  expect(res.statusCode).toBe(200);
  spec = res.json();
  ops = Object.entries(spec.paths).flatMap(([path, byMethod]) =>
    Object.entries(byMethod).map(([method, op]) => ({ method: method.toUpperCase(), path, op })),
  );
});
afterAll(() => box.close());

describe('/docs lists every operation once', () => {
  it('documents every registered route but the /v1 aliases and the static pages, and each alias is served', () => {
    const routes = registeredRoutes(box.app);
    const isStatic = (r: string) => /^\w+ \/(docs|console|m)\b/.test(r);
    const aliases = routes.filter((r) => / \/v1\//.test(r));
    const expected = routes.filter((r) => !isStatic(r) && !aliases.includes(r)).sort();
    const documented = ops.map((o) => `${o.method} ${o.path}`);
    expect(documented.sort()).toEqual(expected);
    expect(new Set(documented).size).toBe(documented.length);
    expect(documented.filter((d) => d.includes(' /v1/'))).toEqual([]);
    // The alias of each integration operation is still served, and the description says it exists.
    const integration = documented.filter((d) => / \/api\/(v1|integration)\//.test(d));
    expect(integration.length).toBeGreaterThanOrEqual(7);
    expect(aliases.sort()).toEqual(
      integration.map((d) => d.replace(' /api/v1/', ' /v1/').replace(' /api/integration/', ' /v1/integration/')).sort(),
    );
    expect(spec.info.description).toMatch(/`\/v1\/\.\.\.`/);
  });

  it('gives every operation a summary, a description and a tag, and nothing that points outside the repository', () => {
    for (const { method, path, op } of ops) {
      expect(op.summary?.length, `${method} ${path}`).toBeGreaterThan(2);
      expect(op.description?.length, `${method} ${path}`).toBeGreaterThan(40);
      expect(op.tags?.length, `${method} ${path}`).toBe(1);
    }
    const texts: string[] = [];
    const walk = (v: unknown, key = ''): void => {
      if (typeof v === 'string' && ['description', 'summary'].includes(key)) texts.push(v);
      else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) walk(x, k);
    };
    walk(spec);
    expect(texts.length).toBeGreaterThan(100);
    for (const t of texts)
      expect(t).not.toMatch(/\.\.\/|shared\/|https?:\/\/|ticketing-integration-api|\bspec\b|\(\d+\.\d+\)/i);
  });

  it('names the console cookie the console really reads', () => {
    expect(spec.components.securitySchemes.consoleSession).toMatchObject({ in: 'cookie', name: COOKIE });
    expect(Object.keys(spec.components.securitySchemes).sort()).toEqual(Object.keys(SECURITY_SCHEMES).sort());
  });
});

describe('responses', () => {
  it('answers 200 and each error status with the envelope, one example per code, its message the catalogue’s', () => {
    for (const { method, path, op } of ops) {
      const where = `${method} ${path}`;
      expect(Object.keys(op.responses[200]?.content ?? {}).length, where).toBeGreaterThan(0);
      for (const [status, response] of Object.entries(op.responses).filter(([s]) => s !== '200')) {
        const media = response.content?.['application/json'];
        const listed = media?.schema?.properties?.error?.properties?.code?.enum as ErrorCode[];
        expect(listed.length, `${where} ${status}`).toBeGreaterThan(0);
        for (const code of listed) {
          expect(String(errorCatalogue[code].status), `${where}: ${code}`).toBe(status);
          expect(response.description, `${where}: ${code}`).toContain(code);
        }
        const examples = Object.values(media!.examples!).map((e) => errorEnvelopeSchema.parse(e.value));
        expect(new Set(examples.map((e) => e.error.code)), `${where} ${status}`).toEqual(new Set(listed));
        for (const e of examples) expect(e.error.message).toBe(errorCatalogue[e.error.code].message);
      }
    }
  });

  it('documents, at the catalogue’s status, every code each route declares', () => {
    const modules = [
      checkinDocs,
      movementDocs,
      clientsDocs,
      combosDocs,
      gatesDocs,
      boxDocs,
      vouchersDocs,
      syncDocs,
      siteDocs,
    ];
    const declared = [
      ...modules.flatMap((m) =>
        Object.values(m).filter(
          (v): v is OperationDocs => typeof v === 'object' && v !== null && 'ok' in v && 'description' in v,
        ),
      ),
      ...Object.values(consoleDocs),
      ...Object.values(siteConsoleDocs),
      ...Object.values(handheldDocs),
      ...Object.values(handheldConsoleDocs),
    ];
    expect(declared.length).toBe(ops.length);
    for (const docs of declared) {
      const found = ops.filter((o) => o.op.description === docs.description);
      expect(found.length, docs.description.slice(0, 60)).toBe(1);
      const { method, path, op } = found[0]!;
      for (const code of [...(docs.errors ?? []), 'INTERNAL_ERROR' as const])
        expect(exampleCodes(op, String(errorCatalogue[code].status)), `${method} ${path}: ${code}`).toContain(code);
      for (const example of Object.values(docs.ok.examples ?? {}))
        expect(docs.ok.schema?.safeParse(example.value).error, `${method} ${path}`).toBeUndefined();
    }
  });

  it('writes schemas OpenAPI 3.0 readers accept: `nullable` only next to a `type`', () => {
    const loose: string[] = [];
    const walk = (v: unknown, at: string): void => {
      if (!v || typeof v !== 'object') return;
      if ((v as { nullable?: boolean }).nullable && !('type' in v)) loose.push(at);
      for (const [k, x] of Object.entries(v)) if (k !== 'examples' && k !== 'example') walk(x, `${at}.${k}`);
    };
    walk(spec.paths, 'paths');
    expect(loose).toEqual([]);
  });

  it('validates the check-in and reversal examples against the zod payload schemas', () => {
    const post = opAt('POST', '/api/v1/api-qrcode-checkin')!.responses[200]!.content!['application/json']!.examples!;
    expect(Object.keys(post).sort()).toEqual(['adicional', 'combo', 'lote', 'pedido', 'pessoa']);
    for (const e of Object.values(post))
      expect(checkinAnswers.checkinAnswerSchema.safeParse(e.value).error).toBeUndefined();
    const patch = opAt('PATCH', '/api/v1/api-qrcode-checkin')!.responses[200]!.content!['application/json']!.examples!;
    for (const e of Object.values(patch))
      expect(checkinAnswers.reversalAnswerSchema.safeParse(e.value).error).toBeUndefined();
  });
});

describe('what the routes answer is what /docs says', () => {
  const headers = (op: Op, credentials: 'none' | 'wrong' | 'unpermitted' | 'valid'): Record<string, string> => {
    const schemes = (op.security ?? []).flatMap((s) => Object.keys(s));
    if (credentials === 'none') return {};
    if (schemes.includes('consoleSession'))
      return credentials === 'valid' ? consoleAuth : { cookie: `${COOKIE}=x`, 'x-csrf-token': 'x' };
    // A key with only the other header's permission lacks what the operation needs.
    const integration = schemes.includes('integrationKey');
    const key = {
      wrong: 'gk_nao-e-uma-chave',
      unpermitted: integration ? box.keys.clientes : box.keys.combos,
      valid: box.keys.all,
    }[credentials];
    return integration ? { 'x-integration-key': key } : { 'x-api-key': key };
  };
  const call = (method: string, path: string, h: Record<string, string>, payload?: string, type = 'application/json') =>
    box.app.inject({
      method: method as 'GET',
      url: fill(path),
      remoteAddress: '192.0.2.10',
      headers: payload === undefined ? h : { ...h, 'content-type': type },
      ...(payload === undefined ? {} : { payload }),
    });

  it('refuses a guarded operation without credentials, and only those /docs marks as guarded', async () => {
    for (const { method, path, op } of ops) {
      const res = await call(method, path, {}, method === 'GET' ? undefined : '{}');
      // From another address: /metrics, open to the box itself, is guarded too.
      const guarded = res.statusCode === 401 || res.statusCode === 403;
      expect(guarded, `${method} ${path} answered ${res.statusCode}`).toBe(op.security !== undefined);
      if (guarded) expectDocumented(method, path, res);
    }
  });

  it('documents the refusal of a wrong key and of a key without the permission, naming the permissions it needs', async () => {
    for (const { method, path, op } of ops.filter((o) =>
      o.op.security?.some((s) => 'apiKey' in s || 'integrationKey' in s),
    )) {
      expectDocumented(
        method,
        path,
        await call(method, path, headers(op, 'wrong'), method === 'GET' ? undefined : '{}'),
      );
      const res = await call(method, path, headers(op, 'unpermitted'), method === 'GET' ? undefined : '{}');
      expectDocumented(method, path, res);
      if (res.json().error.code === 'PERMISSION_DENIED') {
        const documented = Object.values(op.responses[403]!.content!['application/json']!.examples!).map(
          (e) => e.value as { error: { code: string; details?: unknown } },
        );
        expect(
          documented.find((e) => e.error.code === 'PERMISSION_DENIED')!.error.details,
          `${method} ${path}`,
        ).toEqual(res.json().error.details);
      }
    }
  });

  it('documents the body errors of every operation that takes a body, and a bad limit of every listing', async () => {
    for (const { method, path, op } of ops.filter((o) => o.method !== 'GET')) {
      expectDocumented(method, path, await call(method, path, headers(op, 'valid'), 'qr_code=1', 'text/plain'));
      expectDocumented(method, path, await call(method, path, headers(op, 'valid'), '{"qr_code":'));
      expectDocumented(
        method,
        path,
        await call(method, path, headers(op, 'valid'), JSON.stringify({ x: 'y'.repeat(1024 * 1024) })),
      );
    }
    const listings = ops.filter((o) => o.op.parameters?.some((p) => p.in === 'query' && p.name === 'limit'));
    expect(listings.length).toBeGreaterThanOrEqual(6);
    for (const { method, path, op } of listings) {
      const res = await box.app.inject({
        method: 'GET',
        url: `${fill(path)}?limit=abc`,
        headers: headers(op, 'valid'),
      });
      expect(res.statusCode, `${method} ${path}`).toBe(400);
      expectDocumented(method, path, res);
    }
  });

  it('documents what a box that cannot write answers, at the check-in and at /health', async () => {
    const local = await createTestBox();
    local.importOrders([makeOrder({ prefix: 'RO' })]);
    local.db.sqlite.pragma('query_only = ON');
    const refused = await local.app.inject({
      method: 'POST',
      url: '/api/v1/api-qrcode-checkin',
      headers: { 'x-api-key': local.keys.checkin },
      payload: { qr_code: 'RO-1' },
    });
    const health = await local.app.inject({ method: 'GET', url: '/health' });
    await local.close();
    expect([refused.statusCode, health.statusCode]).toEqual([503, 503]);
    expectDocumented('POST', '/api/v1/api-qrcode-checkin', refused);
    expectDocumented('GET', '/health', health);
  });

  it('serves the same description on a real listener, with the alias answering as the documented path', async () => {
    const address = await box.app.listen({ port: 0, host: '127.0.0.1' });
    const docs = await fetch(`${address}/docs/json`).then((r) => r.json());
    expect(docs).toEqual(spec);
    const ui = await fetch(`${address}/docs/static/index.html`);
    expect(ui.status).toBe(200);
    const alias = await fetch(`${address}/v1/api-vouchers?marcar_sincronizado=false`, {
      headers: { 'x-api-key': box.keys.vouchers },
    });
    expect([alias.status, ((await alias.json()) as { success: boolean }).success]).toEqual([200, true]);
  });
});
