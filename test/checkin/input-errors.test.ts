import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestBox, type TestBox } from '../support/box.js';
import { checkin, reverse } from '../support/http.js';

// The check-in core throws its input mistakes as data (CheckinInputError: kind, field, limit, got);
// the HTTP door words them. What an API client reads must stay exactly what it always was.
let box: TestBox;
beforeAll(async () => {
  box = await createTestBox();
});
afterAll(() => box.close());

const invalid = (campo: string, mensagem: string) => ({
  success: false,
  error: {
    code: 'VALIDATION_ERROR',
    message: `Parâmetros inválidos: ${campo}: ${mensagem}`,
    details: { campos: [{ campo, mensagem }] },
  },
});

const codes = (n: number) => Array.from({ length: n }, (_, i) => `X-${i}`).join(',');

describe('input mistakes on the wire', () => {
  it.each([
    [
      'both fields',
      { qr_code: 'X', numero_pedido: '20261119-0001' },
      400,
      { success: false, error: { code: 'AMBIGUOUS_INPUT', message: 'Envie qr_code ou numero_pedido, não ambos.' } },
    ],
    [
      'neither field',
      { qr_code: ' , ,' },
      400,
      { success: false, error: { code: 'MISSING_FIELD', message: 'Informe qr_code ou numero_pedido.' } },
    ],
    [
      'too many codes',
      { qr_code: codes(1001) },
      400,
      invalid('body.qr_code', 'no máximo 1000 códigos por requisição (recebidos 1001)'),
    ],
    [
      'a code too long in a batch',
      { qr_code: `A-1,${'Q'.repeat(300)}` },
      400,
      invalid('body.qr_code', 'cada código tem no máximo 256 caracteres (o 2º tem 300)'),
    ],
    [
      'an order number too long',
      { numero_pedido: '9'.repeat(257) },
      400,
      invalid('body.numero_pedido', 'no máximo 256 caracteres'),
    ],
  ])('%s: check-in and reversal answer the same', async (_name, payload, status, body) => {
    for (const call of [checkin, reverse]) {
      const res = await call(box, payload);
      expect(res.status).toBe(status);
      expect(res.body).toEqual(body);
    }
  });
});
