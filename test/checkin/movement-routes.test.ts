import { afterEach, describe, expect, it } from 'vitest';
import { laneConfigSchema } from '../../src/gate/lanes/lane-config.js';
import { createTestBox, type TestBox } from '../support/box.js';
import { makeOrder } from '../support/fixtures.js';
import { checkin } from '../support/http.js';

// The movement doors over HTTP: POST /api/local/saida, GET /api/local/ocupacao, and occupancy on /api/local/gates.

let box: TestBox;
afterEach(async () => box?.close());

const exitReq = async (payload: unknown, key = box.keys.checkin) => {
  const res = await box.app.inject({
    method: 'POST',
    url: '/api/local/saida',
    headers: { 'x-api-key': key },
    payload: payload as object,
  });
  return { status: res.statusCode, body: res.json() };
};
const get = async (url: string, key = box.keys.all) =>
  (await box.app.inject({ method: 'GET', url, headers: { 'x-api-key': key } })).json();

describe('movement routes', () => {
  it('POST /api/local/saida: an exit for someone inside, an exit without entry by the default policy, never a check-in', async () => {
    box = await createTestBox();
    box.importOrders([makeOrder({ numero: '20261121-0007', prefix: 'HH', people: 2 })]);
    expect((await checkin(box, { qr_code: 'HH-1' })).status).toBe(200);
    const out = await exitReq({ qr_code: 'HH-1', terminal: 'portao-2', operador: 'Ana' });
    expect(out).toEqual({
      status: 200,
      body: {
        success: true,
        data: {
          message: 'Saída registrada: 1 pessoa(s).',
          movimento: 'saida',
          sem_entrada: false,
          area: 'parque',
          em: '2026-11-21T13:00:00.000Z',
          numero_pedido: '20261121-0007',
          pessoas: [{ qr_code: 'HH-1', nome: expect.any(String) }],
        },
      },
    });
    const without = await exitReq({ qr_code: 'HH-2' });
    expect(without.body.data).toMatchObject({
      movimento: 'saida',
      sem_entrada: true,
      pessoas: [],
      message: 'Saída liberada sem entrada registrada hoje.',
    });
    expect(box.db.sqlite.prepare("select checkin_em from people where qr_code = 'HH-2'").pluck().get()).toBeNull();
    const eventos = (await get('/api/local/eventos?marcar_sincronizado=false')).data.eventos;
    // In the central office's log with their kind, as the box's own facts (never sent to the cloud).
    expect(
      eventos
        .filter((e: { acao: string }) => e.acao !== 'checkin')
        .map((e: any) => [e.acao, e.codigo, e.terminal, e.detalhes, e.nuvem.situacao]),
    ).toEqual([
      ['saida', 'HH-1', 'portao-2', { area: 'parque' }, 'somente_local'],
      ['saida', 'HH-2', null, { area: 'parque', sem_entrada: true }, 'somente_local'],
    ]);
  });

  it('refusals in the envelope: SEM_ENTRADA under negar (from the lanes file), a missing code, a key without check-in', async () => {
    box = await createTestBox({
      lanes: {
        config: laneConfigSchema.parse({
          saidaSemEntrada: 'negar',
          lanes: [
            {
              name: 'x',
              direction: 'saida',
              operador: 'o',
              scanners: [{ path: '/tmp/nowhere-movement' }],
              relay: { driver: 'lcus', path: '/tmp/nowhere-movement-relay' },
            },
          ],
        }),
      },
    });
    box.importOrders([makeOrder({ prefix: 'NG', people: 1 })]);
    expect(await exitReq({ qr_code: 'NG-1' })).toEqual({
      status: 422,
      body: {
        success: false,
        error: {
          code: 'SEM_ENTRADA',
          message: 'Saída sem entrada registrada hoje.',
          details: { qr_code: 'NG-1', area: 'parque' },
        },
      },
    });
    expect((await exitReq({})).body.error.code).toBe('VALIDATION_ERROR');
    expect((await exitReq({ qr_code: 'NG-1' }, box.keys.vouchers)).body.error.code).toBe('PERMISSION_DENIED');
  });

  it('GET /api/local/ocupacao and /api/local/gates: people inside per area, with the capacity of the lanes file', async () => {
    box = await createTestBox({
      lanes: {
        config: laneConfigSchema.parse({
          areas: { parque: { capacidade: 100 }, piscina: { capacidade: 2 } },
          lanes: [
            {
              name: 'p1',
              direction: 'entrada',
              area: 'piscina',
              operador: 'o',
              scanners: [{ path: '/tmp/nowhere-ocupacao' }],
              relay: { driver: 'lcus', path: '/tmp/nowhere-ocupacao-relay' },
            },
          ],
        }),
      },
    });
    box.importOrders([makeOrder({ prefix: 'OC', people: 3 })]);
    for (const qr of ['OC-1', 'OC-2']) await checkin(box, { qr_code: qr });
    const areas = [
      { area: 'parque', dentro: 2, capacidade: 100, livres: 98 },
      { area: 'piscina', dentro: 0, capacidade: 2, livres: 2 },
    ];
    expect(await get('/api/local/ocupacao')).toEqual({ success: true, data: { areas } });
    const gates = (await get('/api/local/gates')).data;
    expect(gates.ocupacao).toEqual(areas);
    expect(gates.pistas[0]).toMatchObject({ nome: 'p1', area: 'piscina' });
  });
});
