import { afterEach, describe, expect, it } from 'vitest';
import { ADDITIONAL_COLUMNS, PERSON_COLUMNS, type DayData } from '../../src/handheld/handheld.schemas.js';
import { qrHash } from '../../src/handheld/qr-hash.js';
import type { TestBox } from '../support/box.js';
import { makeOrder } from '../support/fixtures.js';
import { checkin } from '../support/http.js';
import { HANDHELDS, handheldBox, pair, type Handheld } from '../support/handheld.js';

// The day data a handheld decides on offline (docs/handheld.md, "Os dados do dia").

let box: TestBox;
afterEach(() => box.close());
const TODAY = '2026-11-21';

const person = (data: DayData, code: string) => {
  const row = data.pessoas.find((r) => r[0] === qrHash(code));
  return row && Object.fromEntries(PERSON_COLUMNS.map((c, i) => [c, row[i]]));
};

async function setUp(names = false) {
  const started = await handheldBox({ handheld: { ...HANDHELDS, names } });
  box = started.box;
  box.importOrders([
    makeOrder({ numero: '20261121-0001', prefix: 'HOJE', dataUso: TODAY, people: 3 }),
    makeOrder({ numero: '20261121-0002', prefix: 'ONTEM', dataUso: '2026-11-20', people: 1 }),
    makeOrder({ numero: '20261121-0003', prefix: 'ABERTO', tipo: 'dayuse_sem_data', dataUso: '2026-12-31', people: 1 }),
    makeOrder({
      numero: '20261121-0004',
      prefix: 'CANC',
      dataUso: TODAY,
      people: 1,
      status: 'cancelado',
      adicionais: undefined,
    }),
  ]);
  box.importOrders(
    [makeOrder({ numero: '20261121-0009', prefix: 'OUTRO', dataUso: TODAY, people: 2 })],
    box.otherTenantId,
  );
  const device = await pair(box, started.supervisor, 'coletor-1');
  return device;
}

const fetchData = async (device: Handheld, since?: string) => {
  const res = await device.get(`/api/handheld/dados${since ? `?desde=${encodeURIComponent(since)}` : ''}`);
  expect(res.statusCode, res.body).toBe(200);
  return res.json().data as DayData;
};

describe('the whole day', () => {
  it("holds today's and open-dated orders of the device's tenant, QRs hashed, no names by default", async () => {
    const device = await setUp();
    const res = await device.get('/api/handheld/dados');
    for (const plain of ['HOJE-1', 'ABERTO-1', 'CANC-1', 'Pessoa 1']) expect(res.body).not.toContain(plain);
    const data = res.json().data as DayData;
    expect(data).toMatchObject({ data_local: TODAY, completo: true, gerado_em: box.clock.nowIso() });
    expect(data.pedidos.map((o) => o[0]).sort()).toEqual(['20261121-0001', '20261121-0003', '20261121-0004']);
    expect(data.pedidos.find((o) => o[0] === '20261121-0004')).toEqual([
      '20261121-0004',
      'cancelado',
      qrHash('20261121-0004'),
    ]);
    expect(data.pessoas).toHaveLength(5);
    // One kind of ticket among the three orders (two slices: dated, then open-dated): its names go once.
    expect(data.lotes).toEqual([[expect.stringMatching(/^[\w-]{8}$/), 'Passaporte Dia', 'Adulto']]);
    expect(person(data, 'HOJE-2')).toEqual({
      qr: qrHash('HOJE-2'),
      pedido: '20261121-0001',
      lote: data.lotes[0]![0],
      data_uso: TODAY,
      tipo_ingresso: 'dayuse',
      checkin_em: null,
      nome: null,
    });
    expect(person(data, 'ONTEM-1')).toBeUndefined();
    expect(person(data, 'OUTRO-1')).toBeUndefined();
  });

  it('names go to the devices only with GATE_HANDHELD_NOMES', async () => {
    const device = await setUp(true);
    expect(person(await fetchData(device), 'HOJE-1')?.nome).toBe('Pessoa 1');
  });

  it("a 14-character additional's units left are its units not reversed", async () => {
    const started = await handheldBox();
    box = started.box;
    const order = makeOrder({ numero: '20261121-0005', prefix: 'ADI', dataUso: TODAY, people: 1 });
    box.importOrders([
      {
        ...order,
        adicionais: [
          {
            adicional_id: 'a1',
            nome: 'Pulseira',
            quantidade: 2,
            preco_unitario: 10,
            subtotal: 20,
            pessoa_ingresso_id: null,
            combo_id: null,
            combo_item_id: null,
            is_brinde: false,
            codigo_integracao: 'P1',
            adicional_qr_code: 'ADIC0000000001',
          },
        ],
      },
    ]);
    const device = await pair(box, started.supervisor, 'coletor-1');
    expect((await checkin(box, { qr_code: 'ADIC0000000001' })).status).toBe(200);
    const row = (await fetchData(device)).adicionais[0]!;
    expect(Object.fromEntries(ADDITIONAL_COLUMNS.map((c, i) => [c, row[i]]))).toEqual({
      qr: qrHash('ADIC0000000001'),
      pedido: '20261121-0005',
      quantidade: 2,
      usos: [box.clock.nowIso()],
    });
  });
});

describe('what changed since', () => {
  it('a delta carries only the orders moved or written since the cursor, with their state now', async () => {
    const device = await setUp();
    // Orders written in the same millisecond as a cursor are sent again (a write in that millisecond after the
    // cursor must not be missed): the park's clock moves on.
    box.clock.advance(1000);
    const first = await fetchData(device);
    const empty = await fetchData(device, first.cursor);
    expect(empty).toMatchObject({ completo: false, pessoas: [], pedidos: [] });

    box.clock.advance(1000);
    expect((await checkin(box, { qr_code: 'HOJE-2' })).status).toBe(200);
    const delta = await fetchData(device, empty.cursor);
    expect(delta.completo).toBe(false);
    expect(delta.pedidos.map((o) => o[0])).toEqual(['20261121-0001']);
    expect(person(delta, 'HOJE-2')?.checkin_em).toBe(box.clock.nowIso());
    expect(delta.pessoas).toHaveLength(3);

    // An order cancelled by the sync reaches the device in the next delta.
    box.clock.advance(1000);
    box.importOrders([
      makeOrder({
        numero: '20261121-0003',
        prefix: 'ABERTO',
        tipo: 'dayuse_sem_data',
        dataUso: '2026-12-31',
        people: 1,
        status: 'cancelado',
      }),
    ]);
    const next = await fetchData(device, delta.cursor);
    expect(next.pedidos).toEqual([['20261121-0003', 'cancelado', qrHash('20261121-0003')]]);
  });

  it('a cursor of another day, or one that cannot be read, gets the whole day', async () => {
    const device = await setUp();
    const first = await fetchData(device);
    box.clock.advance(24 * 3600_000);
    const tomorrow = await fetchData(device, first.cursor);
    expect(tomorrow).toMatchObject({ completo: true, data_local: '2026-11-22' });
    expect((await fetchData(device, 'lixo')).completo).toBe(true);
    const tooLong = await device.get(`/api/handheld/dados?desde=${'x'.repeat(200)}`);
    expect(tooLong.statusCode).toBe(400);
    expect(tooLong.json().error.code).toBe('VALIDATION_ERROR');
  });
});
