import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestBox, type TestBox } from '../support/box.js';
import { makeOrder } from '../support/fixtures.js';

// Property-based: whatever a client sends to any endpoint (body, query, headers), the box never
// answers 5xx, and every error comes in the spec's envelope with no stack trace or internal path.

let box: TestBox;
beforeAll(async () => {
  box = await createTestBox();
  box.importOrders([makeOrder({ numero: '20261121-0001', prefix: 'FZ', people: 3 })]);
});
afterAll(async () => box?.close());

const ROUTES: [string, string][] = [
  ['POST', '/api/v1/api-qrcode-checkin'],
  ['PATCH', '/api/v1/api-qrcode-checkin'],
  ['POST', '/v1/api-qrcode-checkin'],
  ['GET', '/api/v1/api-vouchers'],
  ['GET', '/api/v1/api-clientes'],
  ['GET', '/api/integration/combos'],
  ['GET', '/api/integration/combos/x'],
  ['GET', '/api/integration/combos/x/availability'],
  ['POST', '/api/local/saida'],
  ['GET', '/api/local/ocupacao'],
  ['GET', '/api/local/gates'],
  ['GET', '/api/local/eventos'],
  ['GET', '/api/local/sync'],
  ['GET', '/api/local/site'],
  ['GET', '/health'],
  ['GET', '/health/live'],
  ['GET', '/health/ready'],
  ['GET', '/metrics'],
];
const value = fc.oneof(
  fc.string(),
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.string(), { maxLength: 3 }),
  fc.constantFrom('FZ-1', '20261121-0001', 'FZ-1,FZ-2'),
);
const body = fc.oneof(
  fc
    .dictionary(fc.constantFrom('qr_code', 'numero_pedido', 'terminal', 'operador', 'area', 'x'), value, { maxKeys: 4 })
    .map((o) => JSON.stringify(o)),
  fc.jsonValue().map((v) => JSON.stringify(v)),
  fc.string(),
);
const query = fc.dictionary(
  fc.constantFrom(
    'limit',
    'offset',
    'sincronizado',
    'marcar_sincronizado',
    'data_uso',
    'order_by',
    'order',
    'destaque',
    'slug',
    'date_from',
    'date_to',
    'cpf',
    'desde',
    'format',
  ),
  fc.string({ maxLength: 12 }),
  { maxKeys: 4 },
);
const keys = () => [
  box.keys.all,
  box.keys.checkin,
  box.keys.vouchers,
  box.keys.combos,
  'gk_000000000000_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx',
  'lixo',
];

describe('fuzzing every endpoint', () => {
  it('never a 5xx, always the envelope on errors, never a stack or a path', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...ROUTES),
        body,
        query,
        fc.nat(5),
        fc.constantFrom('application/json', 'text/plain', 'application/x-www-form-urlencoded'),
        async ([method, url], payload, q, k, type) => {
          const search = new URLSearchParams(q).toString();
          const key = keys()[k]!;
          const res = await box.app.inject({
            method: method as 'GET',
            url: search ? `${url}?${search}` : url,
            headers: {
              'x-api-key': key,
              'x-integration-key': key,
              ...(method === 'GET' ? {} : { 'content-type': type }),
            },
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
      { numRuns: 400, seed: 20261123 },
    );
  }, 60_000);
});
