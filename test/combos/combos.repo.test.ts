import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { availabilitySchema, comboSchema } from '../../src/combos/combo.schemas.js';
import { ComboDataError, upsertAvailability } from '../../src/combos/combos.repo.js';
import { createTestBox, type TestBox } from '../support/box.js';
import { makeAvailability, makeCombo, seedCombos, uuid } from './combo-data.js';

describe('comboSchema', () => {
  it('derives what the cloud may leave out: economia, total_ingressos, itens_resumo, modo_qrcode', () => {
    const { economia: _e, total_ingressos: _t, itens_resumo: _r, modo_qrcode: _m, ...bare } = makeCombo(1);
    const c = comboSchema.parse({ ...bare, descricao: null });
    expect(c.economia).toEqual({ valor: 40, percentual: 13.79 });
    expect(c.total_ingressos).toBe(3);
    expect(c.itens_resumo).toBe('2x Passaporte Dia (Adulto) + 1x Passaporte Dia (Infantil)');
    expect(c.modo_qrcode).toBe('por_pessoa');
    expect(c.descricao).toBe('');
    expect(c.ativo).toBe(true);
  });

  it('refuses an unknown tipo_desconto or modo_qrcode and an item with no quantity', () => {
    expect(comboSchema.safeParse(makeCombo(1, { tipo_desconto: 'brinde' as never })).success).toBe(false);
    expect(comboSchema.safeParse(makeCombo(1, { modo_qrcode: 'grupo' as never })).success).toBe(false);
    const [item] = makeCombo(1).itens;
    const bad = comboSchema.safeParse(makeCombo(1, { itens: [{ ...item!, quantidade: 0 }] }));
    expect(bad.success).toBe(false);
    expect(bad.error?.issues[0]?.path).toEqual(['itens', 0, 'quantidade']);
  });
});

describe('availabilitySchema', () => {
  it('accepts the 4.5 data object as the cloud sends it and refuses a repeated date', () => {
    const a = makeAvailability(uuid(1), { '2026-11-21': [1, 1] });
    const cloud = { ...a, combo_nome: 'Combo 1', modo_qrcode: 'unico', total_ingressos: 3, requer_data: true };
    cloud.dates[0] = { ...cloud.dates[0]!, available: false, min_stock: 0 };
    expect(availabilitySchema.safeParse(cloud).success).toBe(true);
    const twice = availabilitySchema.safeParse({ ...a, dates: [a.dates[0], a.dates[0]] });
    expect(twice.error?.issues[0]?.path).toEqual(['dates', 1, 'date']);
  });
});

describe('combo storage', () => {
  let box: TestBox;
  beforeEach(async () => {
    box = await createTestBox();
  });
  afterEach(async () => {
    await box.close();
  });
  const get = (url: string) =>
    box.app.inject({ method: 'GET', url, headers: { 'x-integration-key': box.keys.combos } });
  const storeAvailability = (a: unknown) =>
    box.db.sqlite.transaction(() =>
      upsertAvailability(box.db, box.tenantId, availabilitySchema.parse(a), box.clock.nowIso()),
    )();

  it('updates a combo by uuid and replaces its items', async () => {
    seedCombos(box, [makeCombo(1)]);
    const [adult] = makeCombo(1).itens;
    seedCombos(box, [
      makeCombo(1, {
        nome: 'Novo nome',
        preco_combo: 19.99,
        itens: [{ ...adult!, quantidade: 3 }],
        total_ingressos: 3,
      }),
    ]);
    const data = (await get(`/api/integration/combos/${uuid(1)}`)).json().data;
    expect(data).toMatchObject({ nome: 'Novo nome', preco_combo: 19.99 });
    expect(data.itens).toEqual([{ ...adult, quantidade: 3 }]);
    expect((await get('/api/integration/combos')).json().data.total).toBe(1);
  });

  it('retires a combo when the cloud marks it inactive', async () => {
    seedCombos(box, [makeCombo(1)]);
    seedCombos(box, [makeCombo(1, { ativo: false })]);
    expect((await get(`/api/integration/combos/${uuid(1)}`)).statusCode).toBe(404);
  });

  it('hands a slug over to the combo the cloud now gives it, retiring the stale holder', async () => {
    seedCombos(box, [makeCombo(1, { slug: 'verao' })]);
    seedCombos(box, [makeCombo(2, { slug: 'verao' })]);
    expect((await get('/api/integration/combos/verao')).json().data.id).toBe(uuid(2));
    expect((await get(`/api/integration/combos/${uuid(1)}`)).statusCode).toBe(404);
    // The next pull that still carries the old combo under a new slug brings it back.
    seedCombos(box, [makeCombo(1, { slug: 'verao-antigo' })]);
    expect((await get('/api/integration/combos/verao-antigo')).json().data.id).toBe(uuid(1));
  });

  it('refuses availability for an unknown combo, naming combo_id, in Portuguese', () => {
    const attempt = () => storeAvailability(makeAvailability(uuid(7), { '2026-11-21': [1, 1] }));
    expect(attempt).toThrow(ComboDataError);
    expect(attempt).toThrow(/não encontrado/);
    try {
      attempt();
    } catch (e) {
      expect((e as ComboDataError).path).toEqual(['combo_id']);
    }
  });

  it("refuses availability for another tenant's combo", () => {
    seedCombos(box, [makeCombo(1)], box.otherTenantId);
    expect(() => storeAvailability(makeAvailability(uuid(1), { '2026-11-21': [1, 1] }))).toThrow(ComboDataError);
  });

  it('refuses an item the combo does not have, and stores nothing of that availability', async () => {
    seedCombos(box, [makeCombo(1)]);
    const a = makeAvailability(uuid(1), { '2026-11-21': [10, 10], '2026-11-22': [10, 10] });
    a.dates[1]!.items_availability[1] = {
      tipo_ingresso_nome: 'Passaporte Dia',
      lote_nome: 'Idoso',
      quantidade_necessaria: 1,
      estoque_disponivel: 5,
    };
    let error: ComboDataError | undefined;
    try {
      storeAvailability(a);
    } catch (e) {
      error = e as ComboDataError;
    }
    expect(error?.path).toEqual(['dates', 1, 'items_availability', 1]);
    const dates = (
      await get(`/api/integration/combos/${uuid(1)}/availability?date_from=2026-11-21&date_to=2026-11-21`)
    ).json().data.dates;
    expect(dates[0].min_stock).toBe(0);
  });

  it('matches availability items to combo items by name, whatever their order or case', async () => {
    seedCombos(box, [makeCombo(1)]);
    const a = makeAvailability(uuid(1), { '2026-11-21': [8, 2] });
    a.dates[0]!.items_availability.reverse();
    a.dates[0]!.items_availability[0]!.lote_nome = ' infantil ';
    storeAvailability(a);
    const day = (
      await get(`/api/integration/combos/${uuid(1)}/availability?date_from=2026-11-21&date_to=2026-11-21`)
    ).json().data.dates[0];
    expect(day.items_availability.map((i: { estoque_disponivel: number }) => i.estoque_disponivel)).toEqual([8, 2]);
    expect(day.min_stock).toBe(2);
  });
});
