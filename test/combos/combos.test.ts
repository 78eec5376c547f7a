import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTestBox, type TestBox } from '../support/box.js';
import { comboPaths, makeCombo, seedCombos, uuid } from './combo-data.js';

let box: TestBox;
beforeEach(async () => {
  box = await createTestBox();
});
afterEach(async () => {
  await box.close();
});

/** `key: null` sends no key header at all. */
const get = (url: string, key: string | null = box.keys.combos, header = 'x-integration-key') =>
  box.app.inject({ method: 'GET', url, headers: key === null ? {} : { [header]: key } });

describe.each(comboPaths)('GET %s/combos', (base) => {
  beforeEach(() => {
    seedCombos(box, [
      makeCombo(1, { nome: 'Família', destaque: false }),
      makeCombo(2, { nome: 'Casal', destaque: true }),
      makeCombo(3, { nome: 'Aniversário', destaque: true }),
      makeCombo(4, { nome: 'Antigo', ativo: false }),
    ]);
  });

  it('lists the active combos, featured first, with the 2.8 fields and the envelope', async () => {
    const res = await get(`${base}/combos`);
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.success).toBe(true);
    expect(body.data.total).toBe(3);
    expect(body.data.limit).toBe(100);
    expect(body.data.offset).toBe(0);
    expect(body.data.combos.map((c: { nome: string }) => c.nome)).toEqual(['Aniversário', 'Casal', 'Família']);
    expect(body.data.combos[2]).toEqual({
      id: uuid(1),
      nome: 'Família',
      slug: 'combo-1',
      descricao: '<p>Diversão em família</p>',
      preco_combo: 250,
      preco_original: 290,
      economia: { valor: 40, percentual: 13.79 },
      tipo_desconto: 'preco_fixo',
      modo_qrcode: 'unico',
      requer_data: true,
      destaque: false,
      max_por_pedido: 4,
      total_ingressos: 3,
      itens_resumo: '2 Adultos + 1 Infantil',
      itens: [
        {
          tipo_ingresso_id: uuid(901),
          tipo_ingresso_nome: 'Passaporte Dia',
          lote_nome: 'Adulto',
          categoria_lote_id: uuid(911),
          quantidade: 2,
          preco_unitario: 100,
        },
        {
          tipo_ingresso_id: uuid(901),
          tipo_ingresso_nome: 'Passaporte Dia',
          lote_nome: 'Infantil',
          categoria_lote_id: uuid(912),
          quantidade: 1,
          preco_unitario: 90,
        },
      ],
    });
  });

  it('filters by destaque and by exact slug', async () => {
    const featured = (await get(`${base}/combos?destaque=true`)).json().data;
    expect(featured.combos.map((c: { id: string }) => c.id)).toEqual([uuid(3), uuid(2)]);
    expect(featured.total).toBe(2);
    const plain = (await get(`${base}/combos?destaque=false`)).json().data;
    expect(plain.combos.map((c: { id: string }) => c.id)).toEqual([uuid(1)]);
    const bySlug = (await get(`${base}/combos?slug=combo-2`)).json().data;
    expect(bySlug.combos.map((c: { id: string }) => c.id)).toEqual([uuid(2)]);
    expect((await get(`${base}/combos?slug=combo`)).json().data).toMatchObject({ combos: [], total: 0 });
  });

  it('pages with limit and offset, total counting every match', async () => {
    const page = (await get(`${base}/combos?limit=2&offset=1`)).json().data;
    expect(page.combos.map((c: { nome: string }) => c.nome)).toEqual(['Casal', 'Família']);
    expect(page).toMatchObject({ total: 3, limit: 2, offset: 1 });
    const past = (await get(`${base}/combos?offset=10`)).json().data;
    expect(past).toMatchObject({ combos: [], total: 3, offset: 10 });
  });

  it('clamps a limit above 100 to 100', async () => {
    const res = await get(`${base}/combos?limit=5000`);
    expect(res.statusCode).toBe(200);
    expect(res.json().data.limit).toBe(100);
  });

  it.each([
    'limit=0',
    'limit=abc',
    'limit=1.5',
    'limit=0x10',
    'limit=1e3',
    'limit=',
    'offset=-1',
    'offset=0x10',
    'destaque=sim',
    'slug=',
  ])('rejects %s with VALIDATION_ERROR', async (qs) => {
    const res = await get(`${base}/combos?${qs}`);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ success: false, error: { code: 'VALIDATION_ERROR' } });
  });
});

describe.each(comboPaths)('GET %s/combos/:id', (base) => {
  beforeEach(() => seedCombos(box, [makeCombo(1, { slug: 'familia' }), makeCombo(2, { ativo: false })]));

  it('finds a combo by uuid and by slug', async () => {
    const byId = await get(`${base}/combos/${uuid(1)}`);
    expect(byId.statusCode).toBe(200);
    expect(byId.json()).toMatchObject({ success: true, data: { id: uuid(1), slug: 'familia', modo_qrcode: 'unico' } });
    const bySlug = await get(`${base}/combos/familia`);
    expect(bySlug.json()).toEqual(byId.json());
  });

  it('answers COMBO_NOT_FOUND with code and message only for an unknown or inactive combo', async () => {
    for (const id of ['nao-existe', uuid(2), 'combo-2']) {
      const res = await get(`${base}/combos/${id}`);
      expect(res.statusCode).toBe(404);
      expect(res.json()).toEqual({
        success: false,
        error: { code: 'COMBO_NOT_FOUND', message: 'Combo não encontrado.' },
      });
    }
  });

  it('rejects an empty or blank id with VALIDATION_ERROR', async () => {
    for (const path of ['/combos/%20%20', '/combos/%20/availability']) {
      const res = await get(`${base}${path}`);
      expect(res.statusCode, path).toBe(400);
      expect(res.json().error.code, path).toBe('VALIDATION_ERROR');
    }
    // A trailing slash is ignored: `/combos/` is the list.
    expect((await get(`${base}/combos/`)).json().data.combos).toBeDefined();
  });
});

describe('combo authentication (5, rule 4)', () => {
  const authError = { success: false, error: { code: 'AUTH_ERROR', message: expect.any(String) } };

  it.each([
    ['no key', null, 'x-integration-key'],
    ['an unknown key', 'gk_000000000000_' + 'a'.repeat(43), 'x-integration-key'],
    ['garbage', 'not-a-key', 'x-integration-key'],
  ])('refuses %s with AUTH_ERROR 401', async (_label, key, header) => {
    for (const base of comboPaths) {
      const res = await get(`${base}/combos`, key, header);
      expect(res.statusCode).toBe(401);
      expect(res.json()).toEqual(authError);
    }
  });

  it('refuses a valid key sent as X-API-Key', async () => {
    const res = await get('/api/integration/combos', box.keys.combos, 'x-api-key');
    expect(res.statusCode).toBe(401);
    expect(res.json().error.code).toBe('AUTH_ERROR');
  });

  it('refuses a key without integration:combos:read, on every combo endpoint', async () => {
    seedCombos(box, [makeCombo(1)]);
    for (const path of ['/combos', `/combos/${uuid(1)}`, `/combos/${uuid(1)}/availability`]) {
      const res = await get(`/v1/integration${path}`, box.keys.checkin);
      expect(res.statusCode).toBe(401);
      expect(res.json().error.code).toBe('AUTH_ERROR');
    }
  });

  it('checks the key before the parameters', async () => {
    const res = await get('/api/integration/combos?limit=abc', null);
    expect(res.json().error.code).toBe('AUTH_ERROR');
  });

  it('accepts the all key', async () => {
    const res = await get('/api/integration/combos', box.keys.all);
    expect(res.statusCode).toBe(200);
  });
});

describe('combo tenant isolation', () => {
  beforeEach(() => {
    seedCombos(box, [makeCombo(1, { nome: 'Nosso' })]);
    seedCombos(box, [makeCombo(2, { nome: 'Deles', slug: 'deles' })], box.otherTenantId);
  });

  it("lists only the caller's tenant combos", async () => {
    const ours = (await get('/api/integration/combos')).json().data;
    expect(ours.combos.map((c: { nome: string }) => c.nome)).toEqual(['Nosso']);
    const theirs = (await get('/api/integration/combos', box.keys.otherTenant)).json().data;
    expect(theirs.combos.map((c: { nome: string }) => c.nome)).toEqual(['Deles']);
  });

  it("answers COMBO_NOT_FOUND for another tenant's combo, by uuid, slug or availability", async () => {
    for (const path of [`/combos/${uuid(2)}`, '/combos/deles', `/combos/${uuid(2)}/availability`]) {
      const res = await get(`/api/integration${path}`);
      expect(res.statusCode).toBe(404);
      expect(res.json().error.code).toBe('COMBO_NOT_FOUND');
    }
  });
});

describe('combos over a real socket', () => {
  it('serves the list and one combo to fetch', async () => {
    seedCombos(box, [makeCombo(1)]);
    const url = await box.app.listen({ port: 0, host: '127.0.0.1' });
    const list = await fetch(`${url}/v1/integration/combos`, { headers: { 'X-Integration-Key': box.keys.combos } });
    expect(list.status).toBe(200);
    expect(list.headers.get('content-type')).toMatch(/application\/json/);
    expect(list.headers.get('x-ratelimit-limit')).toBe('100');
    expect(((await list.json()) as any).data.combos[0].id).toBe(uuid(1));
    const one = await fetch(`${url}/api/integration/combos/combo-1`, {
      headers: { 'X-Integration-Key': box.keys.combos },
    });
    expect(((await one.json()) as any).data.slug).toBe('combo-1');
    const denied = await fetch(`${url}/api/integration/combos`);
    expect(denied.status).toBe(401);
  });
});
