import fc from 'fast-check';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createOperator } from '../../src/operators/operators.repo.js';
import { createTestBox, type TestBox } from '../support/box.js';
import { makeOrder } from '../support/fixtures.js';

// Property-based, as test/http/fuzz.test.ts for the API: whatever a signed-in console (or a page
// without its session or CSRF token) sends to a console route, never a 5xx, always the envelope on
// errors, never a stack or a path.

let box: TestBox;
let session: { cookie: string; csrf: string };

beforeAll(async () => {
  box = await createTestBox();
  box.importOrders([makeOrder({ numero: '20261121-0001', prefix: 'FZ', people: 3, dataUso: '2026-11-21' })]);
  await createOperator(box.db, {
    tenantId: box.tenantId,
    nome: 'Sofia',
    papel: 'supervisor',
    segredo: '4321',
    nowIso: box.clock.nowIso(),
  });
  const res = await box.app.inject({
    method: 'POST',
    url: '/api/console/entrar',
    payload: { nome: 'Sofia', segredo: '4321', tenant: 'parque' },
  });
  session = { cookie: String(res.headers['set-cookie']).split(';')[0]!, csrf: res.json().data.csrf };
});
afterAll(async () => box?.close());

const ROUTES: [string, string][] = [
  ['POST', '/api/console/leitura'],
  ['GET', '/api/console/busca'],
  ['GET', '/api/console/pedidos/20261121-0001'],
  ['GET', '/api/console/pedidos/%E0%A4%A'],
  ['POST', '/api/console/checkin'],
  ['POST', '/api/console/estorno'],
  ['GET', '/api/console/pistas'],
  ['POST', '/api/console/alarmes/1/reconhecer'],
  ['POST', '/api/console/alarmes/x/reconhecer'],
  ['GET', '/api/console/sync'],
  ['GET', '/api/console/site'],
  ['GET', '/api/console/site/modo'],
  ['GET', '/api/console/conflitos'],
  ['GET', '/api/console/operadores'],
  ['POST', '/api/console/operadores/abc/desativar'],
  ['GET', '/api/console/relatorio'],
  ['GET', '/api/console/sessao'],
  ['POST', '/api/console/entrar'],
];
const value = fc.oneof(
  fc.string(),
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.string(), { maxLength: 3 }),
  fc.constantFrom('FZ-1', '20261121-0001', 'FZ-1,FZ-2', 'Sofia', '"ana" OR *', 'NEAR(a b)'),
);
const body = fc.oneof(
  fc
    .dictionary(
      fc.constantFrom('codigo', 'qr_code', 'numero_pedido', 'motivo', 'nome', 'segredo', 'papel', 'tenant', 'estacao'),
      value,
      { maxKeys: 4 },
    )
    .map((o) => JSON.stringify(o)),
  fc.jsonValue().map((v) => JSON.stringify(v)),
  fc.string(),
);
const query = fc.dictionary(
  fc.constantFrom('q', 'data', 'formato', 'tipo'),
  fc.oneof(
    fc.string({ maxLength: 12 }),
    fc.constantFrom('"ana" OR *', 'ana*', '123.456.789-09', 'a@b', '2026-02-30', 'csv'),
  ),
  { maxKeys: 3 },
);

it('never a 5xx, always the envelope on errors, never a stack or a path', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.constantFrom(...ROUTES),
      body,
      query,
      fc.constantFrom('full', 'no-csrf', 'none'),
      async ([method, url], payload, q, auth) => {
        const search = new URLSearchParams(q).toString();
        const headers: Record<string, string> = {
          ...(auth !== 'none' ? { cookie: session.cookie } : {}),
          ...(auth === 'full' ? { 'x-csrf-token': session.csrf } : {}),
        };
        const res = await box.app.inject({
          method: method as 'GET',
          url: search ? `${url}?${search}` : url,
          headers: { ...headers, ...(method === 'GET' ? {} : { 'content-type': 'application/json' }) },
          ...(method === 'GET' ? {} : { payload }),
        });
        expect(res.statusCode, `${method} ${url}?${search} ${payload}`).toBeLessThan(500);
        expect(res.body).not.toMatch(/\bat [\w.<>]+ \(|\/work\/|node_modules|src\//);
        if (res.statusCode >= 400)
          expect(res.json()).toMatchObject({
            success: false,
            error: { code: expect.any(String), message: expect.any(String) },
          });
      },
    ),
    { numRuns: 400, seed: 20261124 },
  );
}, 60_000);
