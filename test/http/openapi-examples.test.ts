import type { Response } from 'light-my-request';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOperator } from '../../src/operators/operators.repo.js';
import { EXAMPLE_ADDITIONAL_QR, EXAMPLE_QRS, examplePedido } from '../../src/orders/order.docs.js';
import { pedidoSchema, type PedidoInput } from '../../src/orders/order.schemas.js';
import { makeAvailability, seedAvailability, seedCombos } from '../combos/combo-data.js';
import { seedClients } from '../clients/client-data.js';
import { createTestBox, type TestBox } from '../support/box.js';
import { checkin, reverse } from '../support/http.js';
import { refusalsBox } from './refusals.data.js';

// The examples of /docs are what the box answers: each 200 example has the keys of a real answer to
// the same request (on the example's own data), and each error the box answers is documented.

type Examples = Record<string, { value: unknown }>;
type Spec = {
  paths: Record<
    string,
    Record<string, { responses: Record<string, { content?: Record<string, { examples?: Examples }> }> }>
  >;
};

let box: TestBox;
let spec: Spec;
const examples = (method: string, path: string, status = '200') =>
  spec.paths[path]![method.toLowerCase()]!.responses[status]!.content!['application/json']!.examples!;

/** Key paths of a JSON value: arrays merged, form labels of `dados[]` and free-form details left out. */
function shape(v: unknown, path = '', out = new Set<string>()): Set<string> {
  if (Array.isArray(v)) for (const x of v) shape(x, `${path}[]`, out);
  else if (v !== null && typeof v === 'object')
    for (const [k, x] of Object.entries(v)) {
      if (path.endsWith('.dados[]') && k !== 'qr_code') continue;
      out.add(`${path}.${k}`);
      if (!['details', 'detalhes', 'partes', 'dispositivo'].includes(k)) shape(x, `${path}.${k}`, out);
    }
  return out;
}

/** The example order under another number, with its own QR codes. */
function variant(numero: string, tag: string): PedidoInput {
  const lot = examplePedido.lotes[0]!;
  return {
    ...(examplePedido as unknown as PedidoInput),
    numero_pedido: numero,
    lotes: [
      { ...lot, dados: lot.dados.map((d) => ({ ...d, qr_code: `${d.qr_code}-${tag}` })) },
    ] as PedidoInput['lotes'],
    adicionais: examplePedido.adicionais.map((a) => ({
      ...a,
      adicional_qr_code: `${tag}${a.adicional_qr_code.slice(tag.length)}`,
    })),
  };
}

beforeAll(async () => {
  box = await createTestBox({ now: '2026-11-21T13:00:00.000Z' });
  box.importOrders([
    examplePedido as unknown as PedidoInput,
    variant('20261121-0043', 'B'),
    variant('20261121-0044', 'C'),
  ]);
  spec = (await box.app.inject({ method: 'GET', url: '/docs/json' })).json();
});
afterAll(() => box.close());

describe('the examples have the keys of real answers', () => {
  it('the example order is a valid order of the shared schema', () => {
    expect(pedidoSchema.safeParse(examplePedido).error).toBeUndefined();
  });

  it('check-in and reversal: person, additional, batch, combo and order', async () => {
    const cases: [string, () => Promise<{ body: unknown }>][] = [
      ['pessoa', () => checkin(box, { qr_code: EXAMPLE_QRS[0], terminal: 'catraca-1', operador: 'Joana' })],
      ['adicional', () => checkin(box, { qr_code: EXAMPLE_ADDITIONAL_QR, terminal: 'catraca-1', operador: 'Joana' })],
      ['lote', () => checkin(box, { qr_code: `${EXAMPLE_QRS[1]},QR-DE-ONTEM` })],
      ['combo', () => checkin(box, { qr_code: '20261121-0043' })],
      ['pedido', () => checkin(box, { numero_pedido: '20261121-0044' })],
    ];
    const reversals: typeof cases = [
      ['pessoa', () => reverse(box, { qr_code: EXAMPLE_QRS[0] })],
      ['adicional', () => reverse(box, { qr_code: EXAMPLE_ADDITIONAL_QR })],
      ['lote', () => reverse(box, { qr_code: `${EXAMPLE_QRS[1]},QR-DESCONHECIDO` })],
      ['combo', () => reverse(box, { qr_code: '20261121-0043' })],
      ['pedido', () => reverse(box, { numero_pedido: '20261121-0044' })],
    ];
    for (const [method, list] of [
      ['POST', cases],
      ['PATCH', reversals],
    ] as const)
      for (const [name, call] of list) {
        const { body } = await call();
        expect(shape(body), `${method} ${name}`).toEqual(
          shape(examples(method, '/api/v1/api-qrcode-checkin')[name]!.value),
        );
      }
  });

  it('listings, combos, health and the local routes', async () => {
    const doc = (path: string, name: string) => examples('GET', path)[name]!.value as { data: Record<string, unknown> };
    const [client] = doc('/api/v1/api-clientes', 'pagina').data.clientes as Parameters<typeof seedClients>[1];
    seedClients(box, [client!]);
    const combo = doc('/api/integration/combos/{id}', 'combo').data as unknown as Parameters<typeof seedCombos>[1][0];
    seedCombos(box, [combo]);
    seedAvailability(box, makeAvailability(combo.id, { '2026-12-05': [180, 96], '2026-12-06': [40, 1] }));
    const get = (url: string, headers: Record<string, string> = {}) =>
      box.app.inject({ method: 'GET', url, headers }).then((r) => r.json());
    const apiKey = { 'x-api-key': box.keys.all };
    const integration = { 'x-integration-key': box.keys.combos };
    const cases: [string, string, unknown][] = [
      [
        '/api/v1/api-vouchers',
        'pagina',
        await get('/api/v1/api-vouchers?numero_pedido=20261121-0042&marcar_sincronizado=false', apiKey),
      ],
      [
        '/api/v1/api-vouchers',
        'vazia',
        await get('/api/v1/api-vouchers?sincronizado=false&numero_pedido=20261121-9999', apiKey),
      ],
      ['/api/v1/api-clientes', 'pagina', await get('/api/v1/api-clientes', apiKey)],
      ['/api/integration/combos', 'pagina', await get('/api/integration/combos', integration)],
      ['/api/integration/combos/{id}', 'combo', await get(`/api/integration/combos/${combo.slug}`, integration)],
      [
        '/api/integration/combos/{id}/availability',
        'datas',
        await get(
          `/api/integration/combos/${combo.id}/availability?date_from=2026-12-05&date_to=2026-12-06`,
          integration,
        ),
      ],
      ['/health', 'ok', await get('/health')],
      ['/health/live', 'ok', await get('/health/live')],
      ['/health/ready', 'pronta', await get('/health/ready')],
      ['/api/local/sync', 'online', await get('/api/local/sync', apiKey)],
      ['/api/local/site', 'desligado', await get('/api/local/site', apiKey)],
      ['/api/local/eventos', 'pagina', await get('/api/local/eventos?limit=1', apiKey)],
      ['/api/local/gates', 'sem_pistas', await get('/api/local/gates', apiKey)],
      ['/api/local/ocupacao', 'areas', await get('/api/local/ocupacao', apiKey)],
    ];
    for (const [path, name, real] of cases) expect(shape(real), `${path} ${name}`).toEqual(shape(doc(path, name)));
    const exit = await box.app.inject({
      method: 'POST',
      url: '/api/local/saida',
      headers: apiKey,
      payload: { qr_code: 'QR-QUALQUER' },
    });
    expect(shape(exit.json())).toEqual(shape(examples('POST', '/api/local/saida').sem_entrada!.value));
  });

  it('the console session', async () => {
    await createOperator(box.db, {
      tenantId: box.tenantId,
      nome: 'Joana',
      papel: 'atendente',
      segredo: '4321',
      nowIso: box.clock.nowIso(),
    });
    const signed = await box.app.inject({
      method: 'POST',
      url: '/api/console/entrar',
      payload: { nome: 'Joana', segredo: '4321', tenant: 'parque' },
    });
    expect(shape(signed.json())).toEqual(shape(examples('POST', '/api/console/entrar').exemplo!.value));
    const cookie = String(signed.headers['set-cookie']).split(';')[0]!;
    const session = await box.app.inject({ method: 'GET', url: '/api/console/sessao', headers: { cookie } });
    expect(shape(session.json())).toEqual(shape(examples('GET', '/api/console/sessao').exemplo!.value));
  });
});

describe('every error the routes answer is documented for the operation', () => {
  let errors: TestBox;
  beforeAll(async () => {
    errors = await refusalsBox();
  });
  afterAll(() => errors.close());

  const documented = (method: string, path: string, status: number, body: { error: { code: string } }) => {
    const codes = Object.values(examples(method, path, String(status))).map(
      (e) => (e.value as { error: { code: string } }).error.code,
    );
    expect(codes, `${method} ${path}: ${status} ${body.error.code}`).toContain(body.error.code);
  };

  it('check-in and reversal refusals', async () => {
    const post = [
      { qr_code: 'NOPE' },
      { qr_code: 'USED-1' },
      { qr_code: 'PAST-1' },
      { qr_code: 'SOON-1' },
      { qr_code: 'CANC-1' },
      { numero_pedido: '20261119-9999' },
      { numero_pedido: '20261119-0004' },
      { numero_pedido: '20261119-0005' },
      { qr_code: 'X', numero_pedido: '20261119-0001' },
      {},
      { qr_code: Array.from({ length: 1001 }, (_, i) => `c${i}`).join(',') },
    ];
    const seen = new Set<string>();
    for (const payload of post) {
      const res = await checkin(errors, payload);
      documented('POST', '/api/v1/api-qrcode-checkin', res.status, res.body);
      seen.add(res.body.error.code);
    }
    expect(seen.size).toBe(post.length);
    for (const payload of [
      { qr_code: 'PAST-1' },
      { qr_code: 'REV-1' },
      { qr_code: 'ALIEN-1' },
      { qr_code: 'NOPE' },
      { numero_pedido: '20261119-9999' },
      {},
      { qr_code: 'X', numero_pedido: 'Y' },
    ]) {
      const res = await reverse(errors, payload);
      documented('PATCH', '/api/v1/api-qrcode-checkin', res.status, res.body);
    }
    errors.clock.set('2026-11-21T13:00:00.000Z');
    const late = await reverse(errors, { qr_code: 'YEST-1' });
    errors.clock.set('2026-11-20T13:00:00.000Z');
    expect(late.body.error.code).toBe('ESTORNO_NAO_PERMITIDO');
    documented('PATCH', '/api/v1/api-qrcode-checkin', late.status, late.body);
  });

  it('combo refusals: not found, a bad range, the rate limit', async () => {
    const get = (url: string) =>
      errors.app.inject({
        method: 'GET',
        url,
        headers: { 'x-integration-key': errors.keys.combos },
      }) as Promise<Response>;
    const notFound = await get('/api/integration/combos/nao-existe');
    documented('GET', '/api/integration/combos/{id}', notFound.statusCode, notFound.json());
    const range = await get('/api/integration/combos/x/availability?date_from=2026-12-05&date_to=2026-12-01');
    documented('GET', '/api/integration/combos/{id}/availability', range.statusCode, range.json());
    let last: Response | undefined;
    for (let i = 0; i < 101; i++) last = await get('/api/integration/combos');
    expect(last!.statusCode).toBe(429);
    documented('GET', '/api/integration/combos', 429, last!.json());
  });
});
