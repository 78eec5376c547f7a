import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTestBox, type TestBox } from '../support/box.js';
import { clientPaths, ids, makeClient, seedClients, seedFamily } from './client-data.js';

let box: TestBox;
beforeEach(async () => {
  box = await createTestBox();
  seedFamily(box);
});
afterEach(async () => {
  await box.close();
});

/** Reads without marking unless the query says otherwise, so tests do not depend on each other's marks. */
const list = async (base: string, qs = '', key: string | null = box.keys.clientes) => {
  const res = await box.app.inject({
    method: 'GET',
    url: `${base}?marcar_sincronizado=false&${qs}`,
    headers: key === null ? {} : { 'x-api-key': key },
  });
  return { status: res.statusCode, body: res.json() };
};

describe.each(clientPaths)('GET %s', (base) => {
  it('lists the tenant clients, oldest first, with the record fields', async () => {
    const { status, body } = await list(base);
    expect(status).toBe(200);
    expect(body.success).toBe(true);
    expect(ids(body)).toEqual(['c-ana', 'c-bruno', 'c-carla', 'c-daniel']);
    expect(body.data.total).toBe(4);
    expect(body.data).not.toHaveProperty('mensagem');
    expect(body.data.clientes[0]).toEqual({
      id: 'c-ana',
      nome: 'Ana',
      sobrenome: 'Souza',
      email: 'ana@example.com',
      cpf: '11111111111',
      data_nascimento: '1990-05-01',
      telefone: '11999990000',
      whatsapp: '11999990000',
      endereco: {
        cep: '01001000',
        rua: 'Praça da Sé',
        numero: '1',
        complemento: '',
        bairro: 'Sé',
        cidade: 'São Paulo',
        estado: 'SP',
      },
      created_at: '2026-11-01T12:00:00.000Z',
      ultimo_login: '2026-11-20T10:00:00.000Z',
      sincronizado: false,
      sincronizado_em: null,
    });
  });

  it('matches e-mail by fragment, ignoring case and treating _ as a plain character', async () => {
    expect(ids((await list(base, 'email=EXAMPLE.COM')).body)).toEqual(['c-ana', 'c-daniel']);
    expect(ids((await list(base, 'email=o_x@')).body)).toEqual(['c-bruno']);
    expect(ids((await list(base, 'email=%25')).body)).toEqual([]);
  });

  it('matches CPF exactly, formatted or not', async () => {
    expect(ids((await list(base, 'cpf=111.111.111-11')).body)).toEqual(['c-ana']);
    expect(ids((await list(base, 'cpf=22222222222')).body)).toEqual(['c-bruno']);
    expect(ids((await list(base, 'cpf=2222222222')).body)).toEqual([]);
  });

  it('takes desde as the start of that day in the tenant time zone', async () => {
    expect(ids((await list(base, 'desde=2026-11-20')).body)).toEqual(['c-carla', 'c-daniel']);
    expect(ids((await list(base, 'desde=2026-11-22')).body)).toEqual([]);
  });

  it('orders by nome, email and ultimo_login in both directions, never-logged-in last', async () => {
    expect(ids((await list(base, 'order_by=nome')).body)).toEqual(['c-ana', 'c-bruno', 'c-carla', 'c-daniel']);
    expect(ids((await list(base, 'order_by=nome&order=desc')).body)).toEqual([
      'c-daniel',
      'c-carla',
      'c-bruno',
      'c-ana',
    ]);
    expect(ids((await list(base, 'order_by=email')).body)).toEqual(['c-ana', 'c-bruno', 'c-carla', 'c-daniel']);
    expect(ids((await list(base, 'order_by=ultimo_login&order=desc')).body)).toEqual([
      'c-carla',
      'c-ana',
      'c-daniel',
      'c-bruno',
    ]);
    expect(ids((await list(base, 'order_by=ultimo_login&order=asc')).body)).toEqual([
      'c-daniel',
      'c-ana',
      'c-carla',
      'c-bruno',
    ]);
    expect(ids((await list(base, 'order=desc')).body)).toEqual(['c-daniel', 'c-carla', 'c-bruno', 'c-ana']);
  });

  it('pages with limit and offset; total is the size of the page', async () => {
    const { body } = await list(base, 'limit=2&offset=1');
    expect(ids(body)).toEqual(['c-bruno', 'c-carla']);
    expect(body.data.total).toBe(2);
  });

  it('explains an empty page in data.mensagem', async () => {
    const filtered = (await list(base, 'email=ninguem')).body;
    expect(filtered).toEqual({
      success: true,
      data: { clientes: [], total: 0, mensagem: 'Nenhum cliente encontrado com os filtros informados.' },
    });
    expect((await list(base, 'offset=50')).body.data.mensagem).toMatch(/offset 50/);
  });

  it.each([
    'sincronizado=talvez',
    'marcar_sincronizado=nao',
    'limit=0',
    'limit=dez',
    'offset=-1',
    'order_by=cpf',
    'order=up',
    'desde=2026-02-30',
    'desde=20-11-2026',
    'cpf=123abc',
  ])('rejects %s with VALIDATION_ERROR 400', async (qs) => {
    const { status, body } = await list(base, qs);
    expect(status).toBe(400);
    expect(body).toMatchObject({ success: false, error: { code: 'VALIDATION_ERROR', message: expect.any(String) } });
  });

  it("does not list another tenant's clients", async () => {
    expect(ids((await list(base, 'cpf=55555555555')).body)).toEqual([]);
    expect(ids((await list(base, '', box.keys.otherTenant)).body)).toEqual(['c-eva']);
  });
});

describe('client listing limits', () => {
  it('clamps a limit above 500 to 500', async () => {
    seedClients(
      box,
      Array.from({ length: 510 }, (_, i) => makeClient(`x-${String(i).padStart(3, '0')}`)),
    );
    const { status, body } = await list('/api/v1/api-clientes', 'limit=1000');
    expect(status).toBe(200);
    expect(body.data.total).toBe(500);
    expect((await list('/api/v1/api-clientes', 'limit=1000&offset=500')).body.data.total).toBe(14);
  });
});

describe('client listing authentication (X-API-Key, clientes:read)', () => {
  const noKey = { code: 'MISSING_API_KEY', status: 401 };
  it.each([
    ['no header', null, 'x-api-key', noKey],
    ['the key as X-Integration-Key', 'clientes', 'x-integration-key', noKey],
    ['an unknown key', 'gk_000000000000_' + 'a'.repeat(43), 'x-api-key', { code: 'INVALID_API_KEY', status: 401 }],
    ['a key without clientes:read', 'combos', 'x-api-key', { code: 'PERMISSION_DENIED', status: 403 }],
    ['a check-in key', 'checkin', 'x-api-key', { code: 'PERMISSION_DENIED', status: 403 }],
  ] as const)('refuses %s', async (_label, key, header, expected) => {
    const value = key === null ? undefined : key in box.keys ? box.keys[key as keyof typeof box.keys] : key;
    for (const base of clientPaths) {
      const res = await box.app.inject({
        method: 'GET',
        url: `${base}?limit=abc`,
        headers: value === undefined ? {} : { [header]: value },
      });
      expect(res.statusCode).toBe(expected.status);
      expect(res.json()).toMatchObject({ success: false, error: { code: expected.code, message: expect.any(String) } });
    }
  });

  it('accepts the all key', async () => {
    expect((await list('/v1/api-clientes', '', box.keys.all)).status).toBe(200);
  });
});
