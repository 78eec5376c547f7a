import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTestBox, type TestBox } from '../support/box.js';
import { makeOrder } from '../support/fixtures.js';
import { checkin } from '../support/http.js';

let box: TestBox;
beforeEach(async () => {
  box = await createTestBox();
});
afterEach(() => box.close());

async function list(query = '', key = box.keys.vouchers, prefix = '/api/v1') {
  const res = await box.app.inject({
    method: 'GET',
    url: `${prefix}/api-vouchers${query}`,
    headers: { 'x-api-key': key },
  });
  return { status: res.statusCode, body: res.json() };
}
const numeros = (body: { data: { pedidos: { numero_pedido: string }[] } }) =>
  body.data.pedidos.map((p) => p.numero_pedido);

describe('vouchers listing', () => {
  it('returns every order, cancelled and refunded included, without a pagination block', async () => {
    box.importOrders([
      makeOrder({ numero: '20261120-0001' }),
      makeOrder({ numero: '20261120-0002', status: 'cancelado' }),
      makeOrder({ numero: '20261120-0003', status: 'reembolsado' }),
    ]);
    const res = await list('?marcar_sincronizado=false', box.keys.vouchers, '/v1');
    expect(res.status).toBe(200);
    expect(numeros(res.body)).toEqual(['20261120-0001', '20261120-0002', '20261120-0003']);
    expect(res.body.data.pedidos.map((p: { status: string }) => p.status)).toEqual([
      'pago',
      'cancelado',
      'reembolsado',
    ]);
    expect(res.body.data.pagination).toBeUndefined();
    expect(res.body.pagination).toBeUndefined();
  });

  it('marks per API key: a later call returns only newer orders, another key still sees them', async () => {
    box.importOrders([makeOrder({ numero: '20261120-0010' })]);
    const first = await list('?sincronizado=false');
    expect(numeros(first.body)).toEqual(['20261120-0010']);
    expect(first.body.data.pedidos[0].sincronizado).toBe(true);
    expect(first.body.data.pedidos[0].lotes[0].sincronizado_em).toBe('2026-11-21T13:00:00.000Z');
    const second = await list('?sincronizado=false');
    expect(second.body.data.pedidos).toEqual([]);
    expect(second.body.data.mensagem).toMatch(/Nenhum/);
    box.importOrders([makeOrder({ numero: '20261120-0011' })]);
    expect(numeros((await list('?sincronizado=false')).body)).toEqual(['20261120-0011']);
    expect(numeros((await list('?sincronizado=false', box.keys.vouchers2)).body)).toEqual([
      '20261120-0010',
      '20261120-0011',
    ]);
    const synced = await list('?sincronizado=true');
    expect(synced.body.data.pedidos[0]).toMatchObject({ numero_pedido: '20261120-0010', sincronizado: true });
    expect(synced.body.data.pedidos[0].lotes[0]).toMatchObject({
      sincronizado: true,
      sincronizado_em: '2026-11-21T13:00:00.000Z',
    });
  });

  it('marcar_sincronizado=false only reads, and sincronizado_em keeps the first marking', async () => {
    box.importOrders([makeOrder({ numero: '20261120-0020' })]);
    await list('?marcar_sincronizado=false');
    expect(numeros((await list('?sincronizado=false&marcar_sincronizado=false')).body)).toEqual(['20261120-0020']);
    await list();
    box.clock.advance(3_600_000);
    await list();
    const res = await list('?marcar_sincronizado=false');
    expect(res.body.data.pedidos[0].lotes[0].sincronizado_em).toBe('2026-11-21T13:00:00.000Z');
  });

  it('unsynchronises a cancelled order for every key, so it reappears with the new status', async () => {
    box.importOrders([makeOrder({ numero: '20261120-0030' })]);
    await list();
    await list('', box.keys.vouchers2);
    box.importOrders([makeOrder({ numero: '20261120-0030', status: 'cancelado' })]);
    for (const key of [box.keys.vouchers, box.keys.vouchers2]) {
      const res = await list('?sincronizado=false', key);
      expect(
        res.body.data.pedidos.map((p: { numero_pedido: string; status: string }) => [p.numero_pedido, p.status]),
      ).toEqual([['20261120-0030', 'cancelado']]);
    }
  });

  it('filters by numero_pedido, data_uso and checkin_realizado; pages with limit and offset', async () => {
    box.importOrders([
      makeOrder({ numero: '20261120-0040', prefix: 'E0', people: 1 }),
      makeOrder({ numero: '20261120-0041', prefix: 'E1', dataUso: '2026-11-22' }),
      makeOrder({ numero: '20261120-0042', prefix: 'E2' }),
    ]);
    await checkin(box, { qr_code: 'E0-1' });
    const q = (s: string) => list(`?marcar_sincronizado=false&${s}`).then((r) => numeros(r.body));
    expect(await q('numero_pedido=20261120-0041')).toEqual(['20261120-0041']);
    expect(await q('data_uso=2026-11-22')).toEqual(['20261120-0041']);
    expect(await q('checkin_realizado=true')).toEqual(['20261120-0040']);
    expect(await q('checkin_realizado=false')).toEqual(['20261120-0041', '20261120-0042']);
    expect(await q('limit=2')).toEqual(['20261120-0040', '20261120-0041']);
    expect(await q('limit=2&offset=2')).toEqual(['20261120-0042']);
    expect(await q('order=desc')).toEqual(['20261120-0042', '20261120-0041', '20261120-0040']);
    // What .NET and others send: True/False, DESC; and a trailing slash.
    expect(await q('order=DESC&checkin_realizado=True')).toEqual(['20261120-0040']);
    const slash = await box.app.inject({
      method: 'GET',
      url: '/api/v1/api-vouchers/?marcar_sincronizado=FALSE',
      headers: { 'x-api-key': box.keys.vouchers },
    });
    expect(slash.json().data.pedidos).toHaveLength(3);
    expect(await q('limit=5000')).toHaveLength(3);
    expect(await q('limit=99999999999999999999')).toHaveLength(3);
    expect(await q('offset=99999999999999999999')).toEqual([]);
  });

  it('orders by pago_em when asked', async () => {
    const late = makeOrder({ numero: '20261120-0050' });
    late.pago_em = '2026-11-20T18:00:00.000Z';
    const early = makeOrder({ numero: '20261120-0051' });
    early.pago_em = '2026-11-19T18:00:00.000Z';
    box.importOrders([late, early]);
    expect(numeros((await list('?order_by=pago_em&marcar_sincronizado=false')).body)).toEqual([
      '20261120-0051',
      '20261120-0050',
    ]);
  });

  it('orders by the instant, not the text, when the cloud sends offsets (stored and shown in UTC)', async () => {
    const times = {
      '20261118-0001': '2026-11-18T09:00:00-03:00',
      '20261118-0002': '2026-11-18T11:00:00Z',
      '20261118-0003': '2026-11-18T10:30:00.000Z',
    };
    box.importOrders(
      Object.entries(times).map(([numero, at]) =>
        Object.assign(makeOrder({ numero }), { pago_em: at, created_at: at }),
      ),
    );
    for (const by of ['pago_em', 'created_at']) {
      const body = (await list(`?order_by=${by}&order=asc&marcar_sincronizado=false`)).body;
      expect(numeros(body)).toEqual(['20261118-0003', '20261118-0002', '20261118-0001']);
    }
    const first = (await list('?numero_pedido=20261118-0001&marcar_sincronizado=false')).body.data.pedidos[0];
    expect(first.pago_em).toBe('2026-11-18T12:00:00.000Z');
  });

  it('rejects bad filter values with VALIDATION_ERROR and needs vouchers:read', async () => {
    for (const qs of [
      '?limit=abc',
      '?limit=0',
      '?offset=-1',
      '?order_by=nome',
      '?sincronizado=talvez',
      '?data_uso=21/11/2026',
    ]) {
      const res = await list(qs);
      expect([qs, res.status, res.body.error.code]).toEqual([qs, 400, 'VALIDATION_ERROR']);
    }
    expect((await list('', box.keys.checkin)).body.error.code).toBe('PERMISSION_DENIED');
    const missing = await box.app.inject({ method: 'GET', url: '/api/v1/api-vouchers' });
    expect(missing.json().error.code).toBe('MISSING_API_KEY');
  });

  it('never shows another tenant’s orders', async () => {
    box.importOrders([makeOrder({ numero: '20261120-0060' })], box.otherTenantId);
    const res = await list();
    expect(res.body.data.pedidos).toEqual([]);
    expect(res.body.data.mensagem).toBeTruthy();
  });
});

describe('order payload (2.1–2.7)', () => {
  it('shapes money, labels and additionals as the spec says', async () => {
    const order = makeOrder({
      numero: '20261120-0070',
      people: 1,
      adicionais: [
        {
          adicional_id: 'ad',
          nome: 'Boné',
          quantidade: 2,
          preco_unitario: 25.5,
          subtotal: 51,
          pessoa_ingresso_id: null,
          combo_id: null,
          combo_item_id: null,
          is_brinde: false,
          codigo_integracao: '',
          adicional_qr_code: 'BONE0000000001',
        },
      ],
    });
    order.pagamento.valores = {
      total_bruto: 151,
      desconto_promocao: { nome: 'Leve 2', tipo: 'FIXED', detalhes: 'R$ 10 off', valor: 10 },
      subtotal: 141,
      desconto_pagamento: { nome: 'Pix', forma: 'pix', percentual: 5, valor: 7.05 },
      acrescimo_pagamento: null,
      total_desconto: 17.05,
      valor_estornado: 20,
      total_pago: 113.95,
    };
    order.lotes[0]!.dados = [{ qr_code: 'LBL-1', 'Nome completo': 'Ana Souza', Documento: '', Camiseta: 'M' }];
    box.importOrders([order, makeOrder({ numero: '20261120-0071' })]);
    const res = await list('?marcar_sincronizado=false');
    const [p, plain] = res.body.data.pedidos;
    expect(p.pagamento.valores).toEqual({
      total_bruto: 151,
      total_desconto: 17.05,
      total_pago: 113.95,
      desconto_promocao: { nome: 'Leve 2', tipo: 'FIXED', detalhes: 'R$ 10 off', valor: 10 },
      subtotal: 141,
      desconto_pagamento: { nome: 'Pix', forma: 'pix', percentual: 5, valor: 7.05 },
      acrescimo_pagamento: null,
      valor_estornado: 20,
    });
    expect(p.lotes[0].dados).toEqual([{ qr_code: 'LBL-1', 'Nome completo': 'Ana Souza', Camiseta: 'M' }]);
    expect(p.adicionais[0]).toEqual({
      adicional_id: 'ad',
      nome: 'Boné',
      quantidade: 2,
      preco_unitario: 25.5,
      subtotal: 51,
      pessoa_ingresso_id: null,
      combo_id: null,
      combo_item_id: null,
      is_brinde: false,
      codigo_integracao: '',
      adicional_qr_code: 'BONE0000000001',
    });
    expect(p.cliente).toMatchObject({ cpf: '12345678909', endereco: { cidade: 'São Paulo' } });
    expect(Object.keys(p)).toEqual([
      'numero_pedido',
      'status',
      'pago_em',
      'origem',
      'pagamento',
      'cupom',
      'cliente',
      'lotes',
      'total_pessoas',
      'total_lotes',
      'sincronizado',
      'adicionais',
    ]);
    expect('adicionais' in plain).toBe(false);
    expect(p.lotes[0].checkin_dispositivo).toBeUndefined();
  });
});
