import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestBox } from '../support/box.js';
import { makeOrder } from '../support/fixtures.js';
import { handheldBox, pair, type Handheld } from '../support/handheld.js';

// Property-based: whatever a device (or anyone) sends to the handheld endpoints, the box never answers 5xx, every
// error is in the spec's envelope without a stack or a path, and an upload answers one item per item sent.

let box: TestBox;
let device: Handheld;
beforeAll(async () => {
  const started = await handheldBox();
  box = started.box;
  box.importOrders([makeOrder({ numero: '20261121-0001', prefix: 'FZ', dataUso: '2026-11-21', people: 3 })]);
  device = await pair(box, started.supervisor, 'coletor-fuzz');
});
afterAll(async () => box?.close());

const ROUTES: [string, string][] = [
  ['POST', '/api/handheld/parear'],
  ['GET', '/api/handheld/dados'],
  ['POST', '/api/handheld/checkin'],
  ['POST', '/api/handheld/movimentos'],
  ['PUT', '/api/handheld/estado'],
];
const value = fc.oneof(
  fc.string(),
  fc.integer(),
  fc.boolean(),
  fc.constant(null),
  fc.constantFrom('FZ-1', '20261121-0001', '2026-11-21T13:00:00.000Z', 'ok', 'TICKET_ALREADY_USED', 'abcdefgh12'),
);
const item = fc.dictionary(
  fc.constantFrom('id', 'codigo', 'acao', 'resultado', 'decidido_em', 'operador', 'dados_de', 'x'),
  value,
  { maxKeys: 8 },
);
const body = fc.oneof(
  fc
    .record({ enviado_em: value, itens: fc.array(fc.oneof(item, value), { maxLength: 5 }) }, { requiredKeys: [] })
    .map((o) => JSON.stringify(o)),
  fc
    .dictionary(fc.constantFrom('token', 'nome', 'versao_app', 'id', 'codigo', 'operador', 'fila', 'dados_em'), value, {
      maxKeys: 5,
    })
    .map((o) => JSON.stringify(o)),
  fc.jsonValue().map((v) => JSON.stringify(v)),
  fc.string(),
);

describe('handheld endpoints under arbitrary input', () => {
  it('never a 5xx, always the envelope, never a stack; one answer per uploaded item', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...ROUTES),
        body,
        fc.constantFrom('device', 'none', 'garbage'),
        fc.string({ maxLength: 30 }),
        async ([method, url], payload, auth, desde) => {
          const headers: Record<string, string> = { 'content-type': 'application/json' };
          if (auth === 'device') headers['x-handheld-key'] = device.key;
          if (auth === 'garbage') headers['x-handheld-key'] = `hk_${desde}`;
          const res = await box.app.inject({
            method: method as 'GET',
            url: method === 'GET' ? `${url}?desde=${encodeURIComponent(desde)}` : url,
            headers,
            ...(method === 'GET' ? {} : { payload }),
          });
          expect(res.statusCode, res.body).toBeLessThan(500);
          expect(res.body).not.toMatch(/at .*\.(ts|js):\d+|\/work\/|node_modules/);
          const json = res.json();
          if (res.statusCode >= 400)
            expect(json).toMatchObject({ success: false, error: { code: expect.any(String) } });
          if (res.statusCode === 200 && url === '/api/handheld/movimentos')
            expect(json.data.itens).toHaveLength((JSON.parse(payload) as { itens: unknown[] }).itens.length);
        },
      ),
      { numRuns: 300 },
    );
  });
});
