import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTestBox, type TestBox } from '../support/box.js';
import { comboPaths, makeAvailability, makeCombo, seedAvailability, seedCombos, uuid } from './combo-data.js';

let box: TestBox;
beforeEach(async () => {
  box = await createTestBox();
  seedCombos(box, [makeCombo(1, { slug: 'familia' })]);
});
afterEach(async () => {
  await box.close();
});

const get = (url: string, key = box.keys.combos) =>
  box.app.inject({ method: 'GET', url, headers: { 'x-integration-key': key } });
const dateEntry = (date: string, adults: number, children: number, minStock: number) => ({
  date,
  available: minStock > 0,
  min_stock: minStock,
  items_availability: [
    { tipo_ingresso_nome: 'Passaporte Dia', lote_nome: 'Adulto', quantidade_necessaria: 2, estoque_disponivel: adults },
    {
      tipo_ingresso_nome: 'Passaporte Dia',
      lote_nome: 'Infantil',
      quantidade_necessaria: 1,
      estoque_disponivel: children,
    },
  ],
});

describe.each(comboPaths)('GET %s/combos/:id/availability', (base) => {
  it('intersects the items: min_stock is the scarcest item in whole combos', async () => {
    seedAvailability(
      box,
      makeAvailability(uuid(1), { '2026-11-21': [10, 3], '2026-11-22': [1, 5], '2026-11-24': [4, 0] }),
    );
    // 23rd: the cloud reported the adults only, so the children's stock is unknown and counts as 0.
    seedAvailability(box, {
      combo_id: uuid(1),
      dates: [
        {
          date: '2026-11-23',
          items_availability: [
            {
              tipo_ingresso_nome: 'Passaporte Dia',
              lote_nome: 'Adulto',
              quantidade_necessaria: 2,
              estoque_disponivel: 50,
            },
          ],
        },
      ],
    });

    const res = await get(`${base}/combos/${uuid(1)}/availability?date_from=2026-11-21&date_to=2026-11-25`);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      success: true,
      data: {
        combo_id: uuid(1),
        combo_nome: 'Combo 1',
        modo_qrcode: 'unico',
        total_ingressos: 3,
        requer_data: true,
        dates: [
          dateEntry('2026-11-21', 10, 3, 3),
          dateEntry('2026-11-22', 1, 5, 0),
          dateEntry('2026-11-23', 50, 0, 0),
          dateEntry('2026-11-24', 4, 0, 0),
          dateEntry('2026-11-25', 0, 0, 0),
        ],
      },
      timestamp: '2026-11-21T13:00:00.000Z',
    });
  });

  it('recomputes available and min_stock instead of trusting the cloud values', async () => {
    const a = makeAvailability(uuid(1), { '2026-11-21': [7, 9] });
    a.dates[0] = { ...a.dates[0]!, available: false, min_stock: 99 };
    seedAvailability(box, a);
    const day = (await get(`${base}/combos/familia/availability?date_from=2026-11-21&date_to=2026-11-21`)).json().data
      .dates;
    expect(day).toEqual([dateEntry('2026-11-21', 7, 9, 3)]);
  });

  it('defaults to today (tenant time zone) through 30 days later', async () => {
    // 22:30 in São Paulo is already the 22nd in UTC: the range must still start on the 21st.
    box.clock.set('2026-11-22T01:30:00.000Z');
    const data = (await get(`${base}/combos/${uuid(1)}/availability`)).json().data;
    expect(data.dates).toHaveLength(31);
    expect(data.dates[0].date).toBe('2026-11-21');
    expect(data.dates.at(-1).date).toBe('2026-12-21');
  });

  it('starts the default 30 days at date_from when only date_from is given', async () => {
    const dates = (await get(`${base}/combos/${uuid(1)}/availability?date_from=2027-01-01`)).json().data.dates;
    expect([dates[0].date, dates.at(-1).date, dates.length]).toEqual(['2027-01-01', '2027-01-31', 31]);
  });

  it('rejects date_to before date_from, bad dates and ranges over 366 days', async () => {
    for (const qs of [
      'date_from=2026-11-22&date_to=2026-11-21',
      'date_to=2026-11-01',
      'date_from=2026-13-01',
      'date_from=21/11/2026',
      'date_to=2026-02-30',
      'date_from=2026-01-01&date_to=2027-01-02',
    ]) {
      const res = await get(`${base}/combos/${uuid(1)}/availability?${qs}`);
      expect(res.statusCode, qs).toBe(400);
      expect(res.json().error.code, qs).toBe('VALIDATION_ERROR');
    }
    const year = await get(`${base}/combos/${uuid(1)}/availability?date_from=2026-01-01&date_to=2027-01-01`);
    expect(year.json().data.dates).toHaveLength(366);
  });

  it('answers COMBO_NOT_FOUND with code and message only for an unknown combo', async () => {
    const res = await get(`${base}/combos/nao-existe/availability`);
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({
      success: false,
      error: { code: 'COMBO_NOT_FOUND', message: 'Combo não encontrado.' },
    });
  });
});

describe('availability updates', () => {
  it('replaces only the dates a new availability carries', async () => {
    seedAvailability(box, makeAvailability(uuid(1), { '2026-11-21': [10, 10], '2026-11-22': [10, 10] }));
    seedAvailability(box, makeAvailability(uuid(1), { '2026-11-22': [2, 1] }));
    const dates = (
      await get(`/api/integration/combos/${uuid(1)}/availability?date_from=2026-11-21&date_to=2026-11-22`)
    ).json().data.dates;
    expect(dates).toEqual([dateEntry('2026-11-21', 10, 10, 5), dateEntry('2026-11-22', 2, 1, 1)]);
  });

  it('keeps stock when the combo is re-imported unchanged, drops it when its items change', async () => {
    seedAvailability(box, makeAvailability(uuid(1), { '2026-11-21': [10, 10] }));
    const url = `/api/integration/combos/${uuid(1)}/availability?date_from=2026-11-21&date_to=2026-11-21`;
    seedCombos(box, [makeCombo(1, { slug: 'familia', nome: 'Família Feliz' })]);
    expect((await get(url)).json().data).toMatchObject({ combo_nome: 'Família Feliz', dates: [{ min_stock: 5 }] });

    const [adult] = makeCombo(1).itens;
    seedCombos(box, [makeCombo(1, { slug: 'familia', itens: [{ ...adult!, lote_nome: 'Meia' }] })]);
    expect((await get(url)).json().data.dates).toEqual([
      {
        date: '2026-11-21',
        available: false,
        min_stock: 0,
        items_availability: [
          { tipo_ingresso_nome: 'Passaporte Dia', lote_nome: 'Meia', quantidade_necessaria: 2, estoque_disponivel: 0 },
        ],
      },
    ]);
  });
});

describe('availability over a real socket', () => {
  it('serves the availability to fetch', async () => {
    seedAvailability(box, makeAvailability(uuid(1), { '2026-11-21': [6, 1] }));
    const url = await box.app.listen({ port: 0, host: '127.0.0.1' });
    const res = await fetch(
      `${url}/v1/integration/combos/familia/availability?date_from=2026-11-21&date_to=2026-11-21`,
      {
        headers: { 'X-Integration-Key': box.keys.combos },
      },
    );
    expect(res.status).toBe(200);
    const body = (await res.json()) as any;
    expect(body.data.dates).toEqual([dateEntry('2026-11-21', 6, 1, 1)]);
    expect(Date.parse(body.timestamp)).not.toBeNaN();
  });
});
