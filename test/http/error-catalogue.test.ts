import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorCatalogue } from '../../src/http/errors.js';
import { createTestBox, type TestBox } from '../support/box.js';
import { checkin, reverse } from '../support/http.js';
import { refusalsBox } from './refusals.data.js';
import { makeCombo, seedCombos } from '../combos/combo-data.js';

// Every code of spec part 7 reached through HTTP, with its status and the envelope.
let box: TestBox;
beforeAll(async () => {
  box = await refusalsBox();
});
afterAll(() => box.close());

type Call = () => Promise<{ status: number; body: { success: boolean; error: { code: string; message: string } } }>;
const cases: [string, Call][] = [
  ['TICKET_NOT_FOUND', () => checkin(box, { qr_code: 'NOPE' })],
  ['TICKET_ALREADY_USED', () => checkin(box, { qr_code: 'USED-1' })],
  ['TICKET_EXPIRED', () => checkin(box, { qr_code: 'PAST-1' })],
  ['TICKET_NOT_VALID_YET', () => checkin(box, { qr_code: 'SOON-1' })],
  ['TICKET_CANCELLED', () => checkin(box, { qr_code: 'CANC-1' })],
  ['ORDER_NOT_FOUND', () => checkin(box, { numero_pedido: '20261119-9999' })],
  ['ORDER_NOT_PAID', () => checkin(box, { numero_pedido: '20261119-0004' })],
  ['NO_PEOPLE', () => checkin(box, { numero_pedido: '20261119-0005' })],
  ['AMBIGUOUS_INPUT', () => checkin(box, { qr_code: 'X', numero_pedido: '20261119-0001' })],
  ['MISSING_FIELD', () => checkin(box, {})],
  ['PERMISSION_DENIED', () => checkin(box, { qr_code: 'X' }, box.keys.vouchers)],
  ['MISSING_API_KEY', () => checkin(box, { qr_code: 'X' }, null)],
  ['INVALID_API_KEY', () => checkin(box, { qr_code: 'X' }, 'not-a-key')],
  ['SEM_CHECKIN', () => reverse(box, { qr_code: 'PAST-1' })],
  ['JA_ESTORNADO', () => reverse(box, { qr_code: 'REV-1' })],
  ['TENANT_MISMATCH', () => reverse(box, { qr_code: 'ALIEN-1' })],
  [
    'ESTORNO_NAO_PERMITIDO',
    async () => {
      box.clock.set('2026-11-21T13:00:00.000Z');
      try {
        return await reverse(box, { qr_code: 'YEST-1' });
      } finally {
        box.clock.set('2026-11-20T13:00:00.000Z');
      }
    },
  ],
];

describe('part 7 error codes over HTTP', () => {
  it.each(cases)('%s', async (code, call) => {
    const res = await call();
    const entry = errorCatalogue[code as keyof typeof errorCatalogue];
    expect(res.status).toBe(entry.status);
    expect(res.body.success).toBe(false);
    expect(res.body.error.code).toBe(code);
    expect(res.body.error.message).toBe(entry.message);
    expect(JSON.stringify(res.body)).not.toMatch(/at .*\.(ts|js):\d+/);
  });

  it('uses 423 only for JA_ESTORNADO', () => {
    expect(
      Object.entries(errorCatalogue)
        .filter(([, e]) => e.status === 423)
        .map(([c]) => c),
    ).toEqual(['JA_ESTORNADO']);
  });
});

const combos = (url: string, key: string | null = box.keys.combos) =>
  box.app
    .inject({ method: 'GET', url, headers: key ? { 'x-integration-key': key } : {} })
    .then((r) => ({ status: r.statusCode, body: r.json() }));

describe('part 7.3 combo error codes over HTTP', () => {
  it('COMBO_NOT_FOUND has code and message only', async () => {
    const res = await combos('/api/integration/combos/nao-existe');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({
      success: false,
      error: { code: 'COMBO_NOT_FOUND', message: errorCatalogue.COMBO_NOT_FOUND.message },
    });
  });

  it('AUTH_ERROR for a missing key, a wrong key and a key without the permission', async () => {
    for (const key of [null, 'not-a-key', box.keys.checkin]) {
      const res = await combos('/v1/integration/combos', key);
      expect([res.status, res.body.error.code]).toEqual([401, 'AUTH_ERROR']);
    }
  });

  it('QUERY_ERROR when the data cannot be read, INTERNAL_ERROR elsewhere, never a stack', async () => {
    const local = await createTestBox();
    seedCombos(local, [makeCombo(1)]);
    local.db.sqlite.exec('drop table combo_items');
    const res = await local.app
      .inject({ method: 'GET', url: '/api/integration/combos', headers: { 'x-integration-key': local.keys.combos } })
      .then((r) => ({ status: r.statusCode, body: r.json() }));
    await local.close();
    expect(res).toEqual({
      status: 500,
      body: { success: false, error: { code: 'QUERY_ERROR', message: errorCatalogue.QUERY_ERROR.message } },
    });
  });

  it('RATE_LIMITED past 100 GETs a minute for one key', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 101; i++) statuses.push((await combos('/api/integration/combos', box.keys.all)).status);
    expect(statuses.slice(0, 100).every((s) => s === 200)).toBe(true);
    const limited = await combos('/api/integration/combos', box.keys.all);
    expect([limited.status, limited.body.error.code]).toEqual([429, 'RATE_LIMITED']);
  });
});

describe('errors raised while routing', () => {
  it('answers a broken or overlong URL in the envelope, and serves a 200-character slug', async () => {
    const bad = await combos('/api/integration/combos/%zz');
    expect([bad.status, bad.body.error.code, bad.body.success]).toEqual([400, 'VALIDATION_ERROR', false]);
    expect(bad.body.error.message).toMatch(/URL inválida/);
    const long = await combos(`/api/integration/combos/${'x'.repeat(1001)}`);
    expect([long.status, long.body]).toEqual([
      414,
      { success: false, error: { code: 'URI_TOO_LONG', message: errorCatalogue.URI_TOO_LONG.message } },
    ]);
    const slug = 's'.repeat(200);
    seedCombos(box, [makeCombo(7, { slug })]);
    const found = await combos(`/api/integration/combos/${slug}`);
    expect([found.status, found.body.data.slug]).toEqual([200, slug]);
  });

  it('serves no HEAD routes: a HEAD on a listing marks nothing', async () => {
    const head = await box.app.inject({
      method: 'HEAD',
      url: '/api/v1/api-vouchers',
      headers: { 'x-api-key': box.keys.vouchers2 },
    });
    expect(head.statusCode).toBe(404);
    const unread = await box.app.inject({
      method: 'GET',
      url: '/api/v1/api-vouchers?sincronizado=false&marcar_sincronizado=false',
      headers: { 'x-api-key': box.keys.vouchers2 },
    });
    expect(unread.json().data.pedidos.length).toBeGreaterThan(0);
  });
});

describe('box endpoints', () => {
  it('serves the OpenAPI description with every route once, at the /api path form (the /v1 aliases are served, not listed)', async () => {
    const res = await box.app.inject({ method: 'GET', url: '/docs/json' });
    expect(res.statusCode).toBe(200);
    const paths = Object.keys(res.json().paths);
    for (const p of [
      '/api/v1/api-qrcode-checkin',
      '/api/v1/api-vouchers',
      '/api/v1/api-clientes',
      '/api/integration/combos/{id}/availability',
      '/api/integration/combos',
    ])
      expect(paths).toContain(p);
    expect(paths.filter((p) => p.startsWith('/v1/'))).toEqual([]);
  });

  it('answers /health with 503 in the envelope when the database is gone', async () => {
    const local = await createTestBox();
    local.db.sqlite.close();
    const res = await local.app.inject({ method: 'GET', url: '/health' });
    await local.close();
    expect(res.statusCode).toBe(503);
    expect(res.json()).toEqual({
      success: false,
      error: {
        code: 'SERVICE_UNAVAILABLE',
        message: 'Banco de dados indisponível.',
        details: { banco: 'indisponivel' },
      },
    });
  });

  it('answers /health without a key', async () => {
    const res = await box.app.inject({ method: 'GET', url: '/health' });
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toMatchObject({
      status: 'ok',
      banco: 'ok',
      fuso_horario: 'America/Sao_Paulo',
      versao: JSON.parse(fs.readFileSync('package.json', 'utf8')).version,
    });
  });
});
