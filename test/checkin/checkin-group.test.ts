import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTestBox, type TestBox } from '../support/box.js';
import { makeOrder } from '../support/fixtures.js';
import { checkin } from '../support/http.js';

let box: TestBox;
beforeEach(async () => {
  box = await createTestBox();
});
afterEach(() => box.close());

const comboOrder = (numero: string, prefix: string, people = 3) =>
  makeOrder({
    numero,
    prefix,
    people,
    adicionais: [
      {
        adicional_id: 'a1',
        nome: 'Pipoca',
        quantidade: 1,
        preco_unitario: 10,
        subtotal: 10,
        combo_id: 'c1',
        is_brinde: false,
        codigo_integracao: '',
        adicional_qr_code: null,
      },
    ],
  });

describe('combo group QR (YYYYMMDD-NNNN)', () => {
  it('checks in every participant at once, in the combo response shape', async () => {
    box.importOrders([comboOrder('20261120-0100', 'G')]);
    const res = await checkin(box, { qr_code: '20261120-0100', terminal: 't9', operador: 'Ana' });
    expect(res.status).toBe(200);
    const d = res.body.data;
    expect(d).toMatchObject({ combo_qr_code: '20261120-0100', total_checkins: 3, total_pessoas: 3 });
    expect(d.pedido).toMatchObject({
      numero_pedido: '20261120-0100',
      pago_em: '2026-11-20T15:00:00.000Z',
      origem: 'online',
      total: 300,
    });
    expect(d.pedido.lotes[0].pessoas).toEqual(
      [1, 2, 3].map((i) => ({
        qr_code: `G-${i}`,
        nome: `Pessoa ${i}`,
        checkin_realizado: true,
        checkin_em: '2026-11-21T13:00:00.000Z',
        checkin_dispositivo: 't9',
        checkin_operador: 'Ana',
      })),
    );
    expect(d.pedido.adicionais).toEqual([{ nome: 'Pipoca', quantidade: 1, preco_unitario: 10, subtotal: 10 }]);
  });

  it('checks in the rest when some were already in, and refuses when all are', async () => {
    box.importOrders([comboOrder('20261120-0101', 'H')]);
    await checkin(box, { qr_code: 'H-2' });
    const rest = await checkin(box, { qr_code: '20261120-0101' });
    expect(rest.body.data).toMatchObject({ total_checkins: 2, total_pessoas: 3 });
    const again = await checkin(box, { qr_code: '20261120-0101' });
    expect(again.status).toBe(409);
    expect(again.body.error).toMatchObject({
      code: 'TICKET_ALREADY_USED',
      details: { combo_qr_code: '20261120-0101', total_pessoas: 3 },
    });
  });

  it('refuses the group QR of a cancelled order and of another tenant', async () => {
    box.importOrders([makeOrder({ numero: '20261120-0102', prefix: 'I', status: 'cancelado' })]);
    box.importOrders([makeOrder({ numero: '20261120-0103', prefix: 'J' })], box.otherTenantId);
    expect((await checkin(box, { qr_code: '20261120-0102' })).body.error.code).toBe('TICKET_CANCELLED');
    expect((await checkin(box, { qr_code: '20261120-0103' })).body.error.code).toBe('TICKET_NOT_FOUND');
  });
});

describe('batch (comma-separated codes)', () => {
  it('processes each distinct code once, in order, with HTTP 200 and a result per code', async () => {
    box.importOrders([makeOrder({ prefix: 'K', people: 2 }), comboOrder('20261120-0104', 'L', 2)]);
    await checkin(box, { qr_code: 'K-2' });
    const res = await checkin(box, { qr_code: 'K-1, K-2,NOPE,K-1,20261120-0104' });
    expect(res.status).toBe(200);
    const d = res.body.data;
    expect(d).toMatchObject({ total_enviados: 4, total_sucesso: 2, total_falha: 2 });
    expect(d.message).toMatch(/2 .*sucesso.*2 .*falha/);
    expect(
      d.resultados.map((r: { qr_code: string; success: boolean; status: number }) => [r.qr_code, r.success, r.status]),
    ).toEqual([
      ['K-1', true, 200],
      ['K-2', false, 409],
      ['NOPE', false, 404],
      ['20261120-0104', true, 200],
    ]);
    expect(d.resultados[0].pedido.numero_pedido).toBeDefined();
    expect(d.resultados[0].message).toMatch(/sucesso/);
    expect(d.resultados[1].error).toMatchObject({ code: 'TICKET_ALREADY_USED', details: { qr_code: 'K-2' } });
    expect(d.resultados[3]).toMatchObject({ combo_qr_code: '20261120-0104', total_checkins: 2 });
  });

  it('takes a long batch (60 UUID-sized codes) and refuses more than 1,000 codes before touching anything', async () => {
    box.importOrders([makeOrder({ prefix: 'U', people: 2 })]);
    const unknown = Array.from({ length: 58 }, (_, i) => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`);
    const long = await checkin(box, { qr_code: ['U-1', ...unknown, 'U-2'].join(',') });
    expect(long.status).toBe(200);
    expect(long.body.data).toMatchObject({ total_enviados: 60, total_sucesso: 2, total_falha: 58 });
    const tooMany = Array.from({ length: 1001 }, (_, i) => `X-${i}`).join(',');
    const refused = await checkin(box, { qr_code: `${tooMany}` });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({
      code: 'VALIDATION_ERROR',
      details: { campos: [{ campo: 'body.qr_code', mensagem: expect.stringMatching(/1000 códigos/) }] },
    });
    const before = box.db.sqlite.prepare('select count(*) from events').pluck().get();
    expect(
      (await checkin(box, { qr_code: Array.from({ length: 1000 }, (_, i) => `X-${i}`).join(',') })).body.data
        .total_falha,
    ).toBe(1000);
    expect(box.db.sqlite.prepare('select count(*) from events').pluck().get()).toBe((before as number) + 1000);
  });

  it('refuses a code longer than any ticket before storing anything; the event log keeps at most 256 characters of a code', async () => {
    const events = () => box.db.sqlite.prepare('select count(*) from events').pluck().get() as number;
    const before = events();
    for (const payload of [
      { qr_code: 'Q'.repeat(257) },
      { qr_code: `A-1,${'Q'.repeat(100_000 - 4)}` },
      { numero_pedido: '9'.repeat(257) },
    ]) {
      const res = await checkin(box, payload);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('VALIDATION_ERROR');
    }
    expect((await checkin(box, { qr_code: 'Q'.repeat(257) })).body.error.details.campos[0].mensagem).toMatch(
      /no máximo 256 caracteres/,
    );
    expect(events()).toBe(before);
    expect((await checkin(box, { qr_code: 'Q'.repeat(256) })).body.error.code).toBe('TICKET_NOT_FOUND');
    const stored = box.db.sqlite
      .prepare("select length(code) + length(coalesce(details, '')) from events order by id desc limit 1")
      .pluck()
      .get() as number;
    expect(stored).toBeLessThan(600);
  });

  it('a body that is not an object is named body', async () => {
    for (const payload of ['[1]', '"S-1"', '42']) {
      const res = await box.app.inject({
        method: 'POST',
        url: '/api/v1/api-qrcode-checkin',
        headers: { 'x-api-key': box.keys.checkin, 'content-type': 'application/json' },
        payload,
      });
      expect(res.statusCode).toBe(400);
      expect(res.json().error.details.campos.map((c: { campo: string }) => c.campo)).toEqual(['body']);
    }
  });

  it('reads a comma as part of one code when the door says it is a single scan', async () => {
    box.importOrders([makeOrder({ prefix: 'S', people: 2 })]);
    const lane = { tenantId: box.tenantId, apiKeyId: null, keyName: null, source: 'lane' };
    expect(await box.checkin.checkIn({ code: 'S-1,S-2' }, lane, { batch: false })).toMatchObject({
      batch: false,
      result: { ok: false, code: 'TICKET_NOT_FOUND', details: { qr_code: 'S-1,S-2' } },
    });
    expect((await checkin(box, { qr_code: 'S-1' })).status).toBe(200); // nothing of it was checked in
    expect(await box.checkin.reverse({ code: 'S-1,S-2' }, lane, { batch: false })).toMatchObject({
      result: { ok: false, code: 'TICKET_NOT_FOUND' },
    });
  });

  it('uses the single-code shape when only one distinct code is sent', async () => {
    box.importOrders([makeOrder({ prefix: 'M' })]);
    const res = await checkin(box, { qr_code: 'M-1,M-1, ' });
    expect(res.status).toBe(200);
    expect(res.body.data.resultados).toBeUndefined();
    expect(res.body.data.pedido).toBeDefined();
    const fail = await checkin(box, { qr_code: 'M-1,M-1' });
    expect(fail.status).toBe(409);
  });
});

describe('order mode (numero_pedido)', () => {
  it('checks in every pending person of a paid order and leaves additionals alone', async () => {
    box.importOrders([
      makeOrder({
        numero: '20261120-0200',
        prefix: 'N',
        people: 3,
        adicionais: [
          {
            adicional_id: 'a',
            nome: 'Água',
            quantidade: 1,
            preco_unitario: 5,
            subtotal: 5,
            codigo_integracao: '',
            adicional_qr_code: 'AGUA0000000001',
          },
        ],
      }),
    ]);
    await checkin(box, { qr_code: 'N-1' });
    const res = await checkin(box, { numero_pedido: '20261120-0200', terminal: 'balcao' });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ numero_pedido: '20261120-0200', total_checkins: 2, total_pessoas: 3 });
    const pedido = res.body.data.pedido;
    expect(Object.keys(pedido).sort()).toEqual(['cliente', 'lotes', 'numero_pedido', 'status']);
    expect(pedido.lotes[0]).toMatchObject({ checkin_realizado: true, checkin_dispositivo: 'balcao' });
    expect(pedido.lotes[0].dados).toHaveLength(3);
    // The additional's own QR still has its unit.
    expect((await checkin(box, { qr_code: 'AGUA0000000001' })).status).toBe(200);
    const again = await checkin(box, { numero_pedido: '20261120-0200' });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('TICKET_ALREADY_USED');
  });

  it('refuses orders not paid, without people, unknown or of another tenant', async () => {
    box.importOrders([
      makeOrder({ numero: '20261120-0201', status: 'reembolsado' }),
      makeOrder({ numero: '20261120-0202', people: 0 }),
    ]);
    box.importOrders([makeOrder({ numero: '20261120-0203' })], box.otherTenantId);
    const cases: [string, number, string][] = [
      ['20261120-0201', 422, 'ORDER_NOT_PAID'],
      ['20261120-0202', 422, 'NO_PEOPLE'],
      ['20261120-9999', 404, 'ORDER_NOT_FOUND'],
      ['20261120-0203', 404, 'ORDER_NOT_FOUND'],
    ];
    for (const [numero, status, code] of cases) {
      const res = await checkin(box, { numero_pedido: numero });
      expect([numero, res.status, res.body.error.code]).toEqual([numero, status, code]);
    }
  });

  it('only checks in people whose ticket is for today, and says so when none is', async () => {
    const order = makeOrder({ numero: '20261120-0204', prefix: 'P', people: 1, dataUso: '2026-11-21' });
    order.lotes.push({ ...order.lotes[0]!, data_uso: '2026-11-22', dados: [{ qr_code: 'P-tomorrow' }] });
    box.importOrders([order, makeOrder({ numero: '20261120-0205', dataUso: '2026-11-23' })]);
    const res = await checkin(box, { numero_pedido: '20261120-0204' });
    expect(res.body.data).toMatchObject({ total_checkins: 1, total_pessoas: 2 });
    const future = await checkin(box, { numero_pedido: '20261120-0205' });
    expect(future.status).toBe(422);
    expect(future.body.error.code).toBe('TICKET_NOT_VALID_YET');
  });
});
