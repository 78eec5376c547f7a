import { describe, expect, it } from 'vitest';
import { asJson, batchAnswer } from '../../src/checkin/checkin.payload.js';
import type { CheckinResult } from '../../src/checkin/result.js';
import { batchMessage } from '../../src/checkin/checkin.payload.js';
import { AppError } from '../../src/http/errors.js';
import { createByteSlots } from '../../src/lib/byte-slots.js';

// A batch's answer (4.1 rule 3) is written in slices into an answer slot, or, when it does not fit or
// no slot is free, into a buffer of its own: the same bytes either way, those JSON.stringify gives.

const granted = (code: string) => ({ ok: true, target: 'person', code }) as CheckinResult;
const items = [
  // A person's answer carries the code as its own qr_code: it keeps its place.
  {
    code: 'A-1',
    result: granted('A-1'),
    view: asJson({
      message: 'Check-in realizado com sucesso.',
      qr_code: 'A-1',
      checkin_em: '2026-11-21T13:00:00.000Z',
      pedido: { numero_pedido: '20261121-0001' },
    }),
  },
  // A group's answer has none: qr_code comes after its data.
  {
    code: '20261121-0002',
    result: granted('20261121-0002'),
    view: asJson({
      message: 'Check-in do combo realizado: 2 de 2 pessoa(s).',
      combo_qr_code: '20261121-0002',
      total_checkins: 2,
    }),
  },
  {
    code: 'NAO-EXISTE',
    result: { ok: false, code: 'TICKET_NOT_FOUND', details: { qr_code: 'NAO-EXISTE' } } as CheckinResult,
    view: undefined,
  },
  { code: 'ção-1', result: granted('ção-1'), view: asJson({ message: 'ok', qr_code: 'ção-1' }) },
];
// What JSON.stringify of { success, data } gives, items as `{ ...data, qr_code, success, status }`.
const expected = JSON.stringify({
  success: true,
  data: {
    message: batchMessage(3, 1, 'check-in(s)'),
    total_enviados: 4,
    total_sucesso: 3,
    total_falha: 1,
    resultados: [
      {
        message: 'Check-in realizado com sucesso.',
        qr_code: 'A-1',
        checkin_em: '2026-11-21T13:00:00.000Z',
        pedido: { numero_pedido: '20261121-0001' },
        success: true,
        status: 200,
      },
      {
        message: 'Check-in do combo realizado: 2 de 2 pessoa(s).',
        combo_qr_code: '20261121-0002',
        total_checkins: 2,
        qr_code: '20261121-0002',
        success: true,
        status: 200,
      },
      {
        qr_code: 'NAO-EXISTE',
        success: false,
        status: 404,
        error: new AppError('TICKET_NOT_FOUND', { qr_code: 'NAO-EXISTE' }).toBody(),
      },
      { message: 'ok', qr_code: 'ção-1', success: true, status: 200 },
    ],
  },
});

describe('a batch answer', () => {
  it('is the same bytes in a slot, when it does not fit, and when every slot is in use', async () => {
    const slots = createByteSlots(1, 64 * 1024);
    const inSlot = await batchAnswer(items, 'check-in(s)', slots);
    expect(inSlot.bytes.buffer).toBe(slots.shared);
    const noSlotFree = await batchAnswer(items, 'check-in(s)', slots);
    expect(noSlotFree.bytes.buffer).not.toBe(slots.shared);
    inSlot.done();
    const tooSmall = await batchAnswer(items, 'check-in(s)', createByteSlots(1, 200));
    for (const answer of [inSlot, noSlotFree, tooSmall]) expect(answer.bytes.toString('utf8')).toBe(expected);
  });
});
