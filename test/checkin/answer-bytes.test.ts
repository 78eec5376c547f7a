import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { PedidoInput } from '../../src/orders/order.schemas.js';
import { createTestBox, type TestBox } from '../support/box.js';
import { makeOrder } from '../support/fixtures.js';
import { CHECKIN } from '../support/http.js';

// The check-in answers, byte for byte. Integrators parse these bodies and some compare them as text
// (field order, number formatting, escaping): a change in how the answer is built (issue 14's speed
// work) must not change a byte. The golden file was written by the code before that work; rewrite it
// only for an intended change of the answer: GOLDEN_UPDATE=1 npx vitest run test/checkin/answer-bytes.
const GOLDEN = path.join(import.meta.dirname, 'answer-bytes.golden.json');
const example = JSON.parse(fs.readFileSync('docs/examples/importacao.json', 'utf8')) as { pedidos: PedidoInput[] };

let box: TestBox;
beforeAll(async () => {
  // The example's day: its first three orders are valid today, the fourth tomorrow.
  box = await createTestBox({ now: '2026-12-05T13:00:00.000Z' });
  box.importOrders([
    ...example.pedidos,
    makeOrder({ numero: '20261206-0002', dataUso: '2026-12-06', prefix: 'AMANHA', people: 1 }),
    makeOrder({ numero: '20261204-0002', dataUso: '2026-12-04', prefix: 'ONTEM', people: 1 }),
  ]);
});
afterAll(() => box?.close());

/** Every kind of answer of both methods, in an order that also meets each refusal once. */
const steps: [method: 'POST' | 'PATCH' | 'GET', body: Record<string, unknown>, key?: 'checkin' | 'vouchers' | 'all'][] =
  [
    ['POST', { qr_code: 'EX0001A1', terminal: 'catraca-1', operador: 'Ana' }],
    ['POST', { qr_code: 'EX0001A1', terminal: 'catraca-2' }],
    ['POST', { qr_code: 'AD202612050001', terminal: 'quiosque' }],
    ['POST', { qr_code: 'AD202612050001' }],
    // A key that marked the vouchers it read sees them synchronised in its check-in answers.
    ['GET', { numero_pedido: '20261205-0001' }, 'all'],
    ['POST', { qr_code: 'EX0001A2' }, 'all'],
    ['POST', { qr_code: '20261205-0003', terminal: 'catraca-1', operador: 'Bruno "Bê" Souza' }],
    ['POST', { qr_code: '20261205-0003' }],
    ['POST', { numero_pedido: '20261205-0001', terminal: 'balcao' }],
    ['POST', { numero_pedido: '20261205-0001' }],
    ['POST', { qr_code: 'EX0002A1,EX2001A1,NAOEXISTE,EX0002A1,AD202612050003,EX0003A1', terminal: 'erp' }],
    ['POST', { qr_code: 'EX2001A1' }],
    ['POST', { qr_code: 'NAOEXISTE' }],
    ['POST', { qr_code: 'AMANHA-1' }],
    ['POST', { qr_code: 'ONTEM-1' }],
    ['POST', { qr_code: 'EX0001A2', numero_pedido: '20261205-0001' }],
    ['POST', {}],
    ['POST', { qr_code: 'EX0001A2' }, 'vouchers'],
    ['PATCH', { qr_code: 'EX0001A1', terminal: 'catraca-1', operador: 'Ana' }],
    ['PATCH', { qr_code: 'EX0001A1' }],
    ['PATCH', { qr_code: 'EX2001A1' }],
    ['PATCH', { qr_code: '20261205-0003', terminal: 'sup' }],
    ['PATCH', { qr_code: 'AD202612050001', terminal: 'quiosque' }],
    ['PATCH', { numero_pedido: '20261205-0001', operador: 'Carla' }],
    ['PATCH', { numero_pedido: '20261205-0001' }],
    ['PATCH', { qr_code: 'EX0002A1,EX0001I1,NAOEXISTE' }],
    ['POST', { qr_code: 'EX0001A1', terminal: 'catraca-1' }],
  ];

it('every check-in and reversal answer is byte for byte the recorded one', async () => {
  const answers: { request: string; status: number; body: string }[] = [];
  for (const [method, body, key = 'checkin'] of steps) {
    const headers = { 'x-api-key': box.keys[key] };
    const res =
      method === 'GET'
        ? await box.app.inject({ method, url: '/api/v1/api-vouchers', query: body as Record<string, string>, headers })
        : await box.app.inject({ method, url: CHECKIN, headers, payload: body });
    answers.push({ request: `${method} ${JSON.stringify(body)}`, status: res.statusCode, body: res.body });
  }
  if (process.env.GOLDEN_UPDATE === '1') fs.writeFileSync(GOLDEN, `${JSON.stringify(answers, null, 1)}\n`);
  const golden = JSON.parse(fs.readFileSync(GOLDEN, 'utf8')) as typeof answers;
  expect(answers.map((a) => a.request)).toEqual(golden.map((g) => g.request));
  answers.forEach((a, i) => {
    expect({ request: a.request, status: a.status }).toEqual({
      request: golden[i]!.request,
      status: golden[i]!.status,
    });
    expect(a.body, a.request).toBe(golden[i]!.body);
  });
  // The run met every kind of answer it is meant to pin.
  const kinds = golden.map(
    (g) => JSON.parse(g.body) as { success: boolean; data?: Record<string, unknown>; error?: { code: string } },
  );
  expect(new Set(kinds.filter((k) => !k.success).map((k) => k.error!.code))).toEqual(
    new Set([
      'TICKET_ALREADY_USED',
      'TICKET_NOT_VALID_YET',
      'TICKET_EXPIRED',
      'TICKET_CANCELLED',
      'TICKET_NOT_FOUND',
      'AMBIGUOUS_INPUT',
      'MISSING_FIELD',
      'PERMISSION_DENIED',
      'JA_ESTORNADO',
      'SEM_CHECKIN',
    ]),
  );
  expect(kinds.filter((k) => k.data?.resultados).length).toBe(2);
});
