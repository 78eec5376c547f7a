import { afterEach, describe, expect, it } from 'vitest';
import { createTestBox, type TestBox } from '../support/box.js';
import { makeOrder } from '../support/fixtures.js';
import { checkin, events, reverse } from '../support/http.js';

let box: TestBox;
afterEach(() => box.close());

describe('single reversal', () => {
  it('reverses a same-day check-in, records who did it, and lets the person in again', async () => {
    box = await createTestBox();
    box.importOrders([makeOrder({ numero: '20261120-0001', prefix: 'A' })]);
    await checkin(box, { qr_code: 'A-1', terminal: 'c1' });
    box.clock.advance(5 * 60_000);
    const res = await reverse(
      box,
      { qr_code: 'A-1', terminal: 'c2', operador: 'Beto' },
      box.keys.checkin,
      '/v1/api-qrcode-checkin',
    );
    expect(res.status).toBe(200);
    expect(res.body.data.pedido).toEqual({
      numero_pedido: '20261120-0001',
      pessoa: {
        qr_code: 'A-1',
        nome: 'Pessoa 1',
        estornado_em: '2026-11-21T13:05:00.000Z',
        estorno_dispositivo: 'c2',
        estorno_operador: 'Beto',
      },
    });
    const again = await reverse(box, { qr_code: 'A-1' });
    expect(again.status).toBe(423);
    expect(again.body.error).toMatchObject({
      code: 'JA_ESTORNADO',
      details: {
        qr_code: 'A-1',
        estornado_em: '2026-11-21T13:05:00.000Z',
        estorno_operador: 'Beto',
        estorno_terminal: 'c2',
      },
    });
    expect((await checkin(box, { qr_code: 'A-1' })).status).toBe(200);
    expect(events(box).map((e) => `${e.action}:${e.result}`)).toEqual([
      'checkin:ok',
      'estorno:ok',
      'estorno:JA_ESTORNADO',
      'checkin:ok',
    ]);
  });

  it('answers SEM_CHECKIN, TICKET_NOT_FOUND and TENANT_MISMATCH', async () => {
    box = await createTestBox();
    box.importOrders([makeOrder({ prefix: 'B' })]);
    box.importOrders([makeOrder({ numero: '20261120-0901', prefix: 'OTHER' })], box.otherTenantId);
    const none = await reverse(box, { qr_code: 'B-1' });
    expect([none.status, none.body.error.code, none.body.error.details]).toEqual([
      422,
      'SEM_CHECKIN',
      { qr_code: 'B-1' },
    ]);
    expect((await reverse(box, { qr_code: 'NOPE' })).body.error.code).toBe('TICKET_NOT_FOUND');
    const mismatch = await reverse(box, { qr_code: 'OTHER-1' });
    expect([mismatch.status, mismatch.body.error.code]).toEqual([403, 'TENANT_MISMATCH']);
    // Order numbers are sequential: another tenant's answers exactly as one that exists nowhere.
    const theirs = await reverse(box, { qr_code: '20261120-0901' });
    const nobodys = await reverse(box, { qr_code: '20261120-0902' });
    expect([theirs.status, theirs.body.error.code]).toEqual([404, 'TICKET_NOT_FOUND']);
    expect(theirs.body.error.message).toBe(nobodys.body.error.message);
    expect((await reverse(box, { numero_pedido: '20261120-0901' })).body.error.code).toBe('ORDER_NOT_FOUND');
  });

  it('applies the input rules and auth of POST', async () => {
    box = await createTestBox();
    expect((await reverse(box, { qr_code: 'A', numero_pedido: '20261120-0001' })).body.error.code).toBe(
      'AMBIGUOUS_INPUT',
    );
    expect((await reverse(box, {})).body.error.code).toBe('MISSING_FIELD');
    expect((await reverse(box, { qr_code: 'A' }, null)).body.error.code).toBe('MISSING_API_KEY');
    expect((await reverse(box, { qr_code: 'A' }, box.keys.vouchers)).body.error.code).toBe('PERMISSION_DENIED');
  });
});

describe('same calendar day, in the tenant time zone', () => {
  it('refuses after local midnight even when the UTC date is the same', async () => {
    box = await createTestBox({ now: '2026-11-21T02:50:00.000Z' }); // 20 Nov 23:50 in São Paulo
    box.importOrders([makeOrder({ prefix: 'N', dataUso: '2026-11-20' })]);
    expect((await checkin(box, { qr_code: 'N-1' })).status).toBe(200);
    box.clock.set('2026-11-21T03:10:00.000Z'); // 21 Nov 00:10 local, same UTC day
    const res = await reverse(box, { qr_code: 'N-1' });
    expect(res.status).toBe(422);
    expect(res.body.error).toMatchObject({
      code: 'ESTORNO_NAO_PERMITIDO',
      details: { qr_code: 'N-1', data_checkin: '2026-11-20', data_atual: '2026-11-21' },
    });
  });

  it('allows until local midnight even when the UTC date has changed', async () => {
    box = await createTestBox({ now: '2026-11-21T23:00:00.000Z' }); // 21 Nov 20:00 local
    box.importOrders([makeOrder({ prefix: 'L', dataUso: '2026-11-21' })]);
    await checkin(box, { qr_code: 'L-1' });
    box.clock.set('2026-11-22T02:59:00.000Z'); // 21 Nov 23:59 local, 22 Nov in UTC
    expect((await reverse(box, { qr_code: 'L-1' })).status).toBe(200);
  });

  it('follows the configured zone: in UTC the same instants give the opposite answers', async () => {
    box = await createTestBox({ now: '2026-11-21T23:00:00.000Z', timeZone: 'UTC' });
    box.importOrders([makeOrder({ prefix: 'U', dataUso: '2026-11-21' })]);
    await checkin(box, { qr_code: 'U-1' });
    box.clock.set('2026-11-22T02:59:00.000Z');
    expect((await reverse(box, { qr_code: 'U-1' })).body.error.code).toBe('ESTORNO_NAO_PERMITIDO');
  });
});

describe('combo, order and batch reversal', () => {
  it('reverses every participant of a group QR with a check-in', async () => {
    box = await createTestBox();
    box.importOrders([makeOrder({ numero: '20261120-0300', prefix: 'G', people: 3 })]);
    await checkin(box, { qr_code: 'G-1,G-3' });
    const res = await reverse(box, { qr_code: '20261120-0300', operador: 'Caio' });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      combo_qr_code: '20261120-0300',
      total_estornados: 2,
      pedido: { numero_pedido: '20261120-0300' },
    });
    expect(res.body.data.pedido.pessoas.map((p: { qr_code: string }) => p.qr_code)).toEqual(['G-1', 'G-3']);
    expect(res.body.data.pedido.pessoas[0]).toMatchObject({
      estorno_operador: 'Caio',
      estornado_em: '2026-11-21T13:00:00.000Z',
    });
  });

  it('order mode: SEM_CHECKIN when nobody ever checked in, JA_ESTORNADO only when all were reversed', async () => {
    box = await createTestBox();
    box.importOrders([makeOrder({ numero: '20261120-0301', prefix: 'O', people: 2 })]);
    expect((await reverse(box, { numero_pedido: '20261120-0301' })).body.error.code).toBe('SEM_CHECKIN');
    await checkin(box, { qr_code: 'O-1' });
    await reverse(box, { qr_code: 'O-1' });
    // One reversed, one never checked in: not "all reversed".
    expect((await reverse(box, { numero_pedido: '20261120-0301' })).body.error.code).toBe('SEM_CHECKIN');
    await checkin(box, { numero_pedido: '20261120-0301' });
    const res = await reverse(box, { numero_pedido: '20261120-0301' });
    expect(res.body.data).toMatchObject({ numero_pedido: '20261120-0301', total_estornados: 2 });
    const all = await reverse(box, { numero_pedido: '20261120-0301' });
    expect([all.status, all.body.error.code]).toEqual([423, 'JA_ESTORNADO']);
    expect((await reverse(box, { numero_pedido: '20261120-9999' })).body.error.code).toBe('ORDER_NOT_FOUND');
  });

  it('order mode reverses only the check-ins of today', async () => {
    box = await createTestBox({ now: '2026-11-20T13:00:00.000Z' });
    const order = makeOrder({ numero: '20261120-0302', prefix: 'D', people: 1, dataUso: '2026-11-20' });
    order.lotes.push({ ...order.lotes[0]!, data_uso: '2026-11-21', dados: [{ qr_code: 'D-next', Nome: 'Zé' }] });
    box.importOrders([order]);
    await checkin(box, { qr_code: 'D-1' });
    box.clock.set('2026-11-21T13:00:00.000Z');
    const late = (await reverse(box, { numero_pedido: '20261120-0302' })).body.error;
    expect(late).toMatchObject({
      code: 'ESTORNO_NAO_PERMITIDO',
      details: { numero_pedido: '20261120-0302', data_checkin: '2026-11-20' },
    });
    expect(late.details.qr_code).toBeUndefined();
    await checkin(box, { qr_code: 'D-next' });
    const res = await reverse(box, { numero_pedido: '20261120-0302' });
    expect(res.body.data.pedido.pessoas.map((p: { qr_code: string }) => p.qr_code)).toEqual(['D-next']);
  });

  it('batch reversal answers one result per code with HTTP 200', async () => {
    box = await createTestBox();
    box.importOrders([makeOrder({ prefix: 'Q', people: 2 })]);
    await checkin(box, { qr_code: 'Q-1' });
    const res = await reverse(box, { qr_code: 'Q-1,Q-2,Q-1' });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ total_enviados: 2, total_sucesso: 1, total_falha: 1 });
    expect(res.body.data.resultados[0]).toMatchObject({
      qr_code: 'Q-1',
      success: true,
      status: 200,
      pedido: { pessoa: { qr_code: 'Q-1' } },
    });
    expect(res.body.data.resultados[1]).toMatchObject({
      qr_code: 'Q-2',
      success: false,
      status: 422,
      error: { code: 'SEM_CHECKIN' },
    });
  });

  it('reverses the last unit of an additional on the same day', async () => {
    box = await createTestBox();
    box.importOrders([
      makeOrder({
        prefix: 'AD',
        adicionais: [
          {
            adicional_id: 'x',
            nome: 'Sorvete',
            quantidade: 1,
            preco_unitario: 9,
            subtotal: 9,
            codigo_integracao: '',
            adicional_qr_code: 'SORV0000000001',
          },
        ],
      }),
    ]);
    expect((await reverse(box, { qr_code: 'SORV0000000001' })).body.error.code).toBe('SEM_CHECKIN');
    await checkin(box, { qr_code: 'SORV0000000001' });
    expect((await reverse(box, { qr_code: 'SORV0000000001' })).body.data.adicional.unidades_restantes).toBe(1);
    expect((await reverse(box, { qr_code: 'SORV0000000001' })).body.error.code).toBe('JA_ESTORNADO');
    expect((await checkin(box, { qr_code: 'SORV0000000001' })).status).toBe(200);
  });
});
