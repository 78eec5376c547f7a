import zlib from 'node:zlib';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CloudUnavailableError, createCloudClient, type CloudClient } from '../../src/sync/cloud-client.js';
import { pedidoSchema } from '../../src/orders/order.schemas.js';
import { checkinResults, listItems, successData } from '../../src/sync/cloud-envelopes.js';
import { makeClient } from '../clients/client-data.js';
import { makeAvailability, makeCombo } from '../combos/combo-data.js';
import { startFakeCloud, type FakeCloud } from '../support/fake-cloud.js';
import { makeOrder } from '../support/fixtures.js';
import { createTickingClock } from '../support/sync-gate.js';

const kindOf = async (p: Promise<unknown>) => {
  try {
    await p;
    return 'resolved';
  } catch (e) {
    return e instanceof CloudUnavailableError ? e.kind : `other: ${String(e)}`;
  }
};
const kindOfSync = (f: () => unknown) => kindOf(Promise.resolve().then(f));

describe('envelopes (the list envelope is not shown in the spec)', () => {
  it('takes `data` as the array or as an object holding it; an empty page may carry only `mensagem`', () => {
    expect(listItems([1, 2])).toEqual([1, 2]);
    for (const key of ['pedidos', 'vouchers', 'clientes', 'combos', 'items'])
      expect(listItems({ [key]: [1], total: 1 })).toEqual([1]);
    expect(listItems({ mensagem: 'Nenhum voucher novo.' })).toEqual([]);
    expect(() => listItems({ total: 3 })).toThrow(CloudUnavailableError);
    expect(() => listItems('texto')).toThrow(/formato/);
  });

  it('tells failures of the call (retried) from answers', async () => {
    expect(
      await kindOfSync(() => successData({ success: false, error: { code: 'INTERNAL_ERROR', message: 'x' } }, 500)),
    ).toBe('server');
    expect(await kindOfSync(() => successData({}, 429))).toBe('rate-limited');
    expect(
      await kindOfSync(() => successData({ success: false, error: { code: 'INVALID_API_KEY', message: 'x' } }, 401)),
    ).toBe('auth');
    expect(await kindOfSync(() => successData({ ok: true }, 200))).toBe('envelope');
    expect(successData({ success: true, data: { pedidos: [] } }, 200)).toEqual({ pedidos: [] });
  });

  it('check-in answers: one result per code, single and batch shapes, business refusals as items', async () => {
    expect(
      checkinResults(['Q1'], { success: true, data: { message: 'ok', checkin_em: '2026-11-21T13:00:00.000Z' } }, 200),
    ).toEqual([{ code: 'Q1', ok: true, status: 200, at: '2026-11-21T13:00:00.000Z' }]);
    const used = checkinResults(
      ['Q1'],
      {
        success: false,
        error: {
          code: 'TICKET_ALREADY_USED',
          message: 'Ingresso já utilizado.',
          details: { qr_code: 'Q1', checkin_em: '2026-11-21T12:00:00.000Z' },
        },
      },
      409,
    );
    expect(used[0]).toMatchObject({
      ok: false,
      status: 409,
      at: '2026-11-21T12:00:00.000Z',
      error: { code: 'TICKET_ALREADY_USED' },
    });
    const batch = checkinResults(
      ['Q1', 'Q2'],
      {
        success: true,
        data: {
          resultados: [
            { qr_code: 'Q2', success: false, status: 404, error: { code: 'TICKET_NOT_FOUND', message: 'x' } },
            { qr_code: 'Q1', success: true, status: 200, checkin_em: 'T' },
          ],
        },
      },
      200,
    );
    expect(batch.map((r) => [r.code, r.ok, r.error?.code ?? null])).toEqual([
      ['Q1', true, null],
      ['Q2', false, 'TICKET_NOT_FOUND'],
    ]);
    expect(
      await kindOfSync(() =>
        checkinResults(['Q1', 'Q2'], { success: true, data: { resultados: [{ qr_code: 'Q1', success: true }] } }, 200),
      ),
    ).toBe('envelope');
    expect(
      await kindOfSync(() =>
        checkinResults(['Q1', 'Q2'], { success: false, error: { code: 'PERMISSION_DENIED', message: 'x' } }, 403),
      ),
    ).toBe('auth');
    // Several codes are answered 200 with a result each: an error for the whole call settles none of them.
    const refusal = (code: string) => ({ success: false, error: { code, message: 'x' } });
    expect(await kindOfSync(() => checkinResults(['Q1', 'Q2'], refusal('VALIDATION_ERROR'), 400))).toBe('call-refused');
    expect(await kindOfSync(() => checkinResults(['Q1', 'Q2'], refusal('TICKET_NOT_FOUND'), 404))).toBe('call-refused');
    // One code: the error is its answer, unless the status says the call was never processed.
    expect(checkinResults(['Q1'], refusal('VALIDATION_ERROR'), 400).map((r) => r.error?.code)).toEqual([
      'VALIDATION_ERROR',
    ]);
    expect(await kindOfSync(() => checkinResults(['Q1'], refusal('INTERNAL_ERROR'), 408))).toBe('call-refused');
    expect(await kindOfSync(() => checkinResults(['Q1'], refusal('INTERNAL_ERROR'), 425))).toBe('call-refused');
  });
});

describe('cloud client against the fake cloud (real sockets)', () => {
  const clock = createTickingClock();
  let cloud: FakeCloud;
  let client: CloudClient;
  beforeAll(async () => {
    cloud = await startFakeCloud({ clock });
    cloud.addOrders([makeOrder({ numero: '20261121-0001', prefix: 'K', people: 2 })]);
    cloud.addCombos([makeCombo(1)]);
    cloud.setAvailability(makeAvailability(makeCombo(1).id, { '2026-11-21': [4, 2] }));
    cloud.addClients([makeClient('c-1')]);
    client = createCloudClient({
      url: cloud.url,
      apiKey: cloud.keys.box,
      integrationKey: cloud.keys.integration,
      timeoutMs: 5_000,
    });
  });
  afterAll(async () => {
    await client.close();
    await cloud.close();
  });

  it('reads every listing with the import schemas and sends the keys in their headers', async () => {
    const page = await client.listVouchers({ marcar: false, limit: 10, offset: 0 });
    // Orders come as the cloud sent them, one JSON text each: the pull validates each just before storing it.
    expect(page.refs).toEqual(['20261121-0001']);
    expect(pedidoSchema.parse(JSON.parse(page.items.at(0))).pagamento.valores.total_bruto).toBe(200);
    expect((await client.listClients({ marcar: false, limit: 10, offset: 0 })).items.map((c) => c.id)).toEqual(['c-1']);
    expect((await client.listCombos({ limit: 100, offset: 0 })).items.map((c) => c.slug)).toEqual(['combo-1']);
    const availability = await client.comboAvailability(makeCombo(1).id, '2026-11-21', '2026-11-21');
    expect(availability.dates[0]!.items_availability.map((i) => i.estoque_disponivel)).toEqual([4, 2]);
    const sent = cloud.proxy.requests.slice(-4).map((r) => `${r.method} ${r.path}`);
    expect(sent).toEqual([
      'GET /api/v1/api-vouchers',
      'GET /api/v1/api-clientes',
      'GET /api/integration/combos',
      `GET /api/integration/combos/${makeCombo(1).id}/availability`,
    ]);
  });

  it('returns business refusals per item, and types every transient failure distinctly', async () => {
    const results = await client.send('checkin', ['K-1', 'NAO-EXISTE'], { terminal: 'catraca-1', operador: null });
    expect(results.map((r) => [r.code, r.ok, r.error?.code ?? null])).toEqual([
      ['K-1', true, null],
      ['NAO-EXISTE', false, 'TICKET_NOT_FOUND'],
    ]);

    const read = () => client.listVouchers({ marcar: false, limit: 1, offset: 0 });
    cloud.proxy.inject({ fault: { kind: 'status', status: 503 }, times: 1 });
    expect(await kindOf(read())).toBe('server');
    cloud.proxy.inject({ fault: { kind: 'malformed' }, times: 1 });
    expect(await kindOf(read())).toBe('malformed');
    // A short timeout only where the hang is: on a loaded machine 300 ms is too short for a real answer.
    const impatient = createCloudClient({
      url: cloud.url,
      apiKey: cloud.keys.box,
      integrationKey: cloud.keys.integration,
      timeoutMs: 300,
    });
    cloud.proxy.inject({ fault: { kind: 'hang' }, times: 1 });
    expect(await kindOf(impatient.listVouchers({ marcar: false, limit: 1, offset: 0 }))).toBe('timeout');
    await impatient.close();
    cloud.proxy.inject({ fault: { kind: 'lose-reply' }, times: 1 });
    expect(await kindOf(read())).toBe('network');
    await cloud.proxy.down();
    // Let the pool see its keep-alive sockets closed; a call in that very instant goes out on one and is 'network'
    // (retried just the same).
    await new Promise((r) => setTimeout(r, 50));
    expect(await kindOf(read())).toBe('refused');
    await cloud.proxy.up();
    expect(await kindOf(read())).toBe('resolved');
    const wrongKey = createCloudClient({
      url: cloud.url,
      apiKey: 'gk_000000000000_' + 'x'.repeat(43),
      integrationKey: 'nope',
      timeoutMs: 5_000,
    });
    expect(await kindOf(wrongKey.listVouchers({ marcar: false, limit: 1, offset: 0 }))).toBe('auth');
    expect(await kindOf(wrongKey.listCombos({ limit: 1, offset: 0 }))).toBe('auth');
    await wrongKey.close();
  });
});

describe('a cloud whose list envelope differs from the box’s', () => {
  it('reads `data` as a bare array and a base URL with a path prefix', async () => {
    const order = makeOrder({ numero: '20261121-0009', prefix: 'Z' });
    const seen: string[] = [];
    const server = http.createServer((req, res) => {
      seen.push(req.url ?? '');
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ success: true, data: [order, { numero_pedido: '20261121-0010', status: 'talvez' }] }));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const client = createCloudClient({
      url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/nuvem/`,
      apiKey: 'k',
      integrationKey: 'k',
      timeoutMs: 500,
    });
    const page = await client.listVouchers({ sincronizado: false, marcar: true, limit: 250, offset: 0 });
    expect(page.refs).toEqual(['20261121-0009', '20261121-0010']);
    expect(page.received).toBe(2);
    // Checked against the import schema off the event loop: the valid order as the schema outputs it, the other set
    // aside with why.
    expect(JSON.parse(page.items.at(0))).toEqual(pedidoSchema.parse(order));
    expect(page.reasons[0]).toBeNull();
    expect(page.reasons[1]).toMatch(/^status: /);
    // The same page kept and read again after a restart: the same orders.
    // A marked page is kept gzipped, made off the event loop.
    expect(page.packed!.length).toBeLessThan(page.body.length);
    expect(zlib.gunzipSync(page.packed!)).toEqual(page.body);
    expect(await client.readVoucherPage(page.packed!)).toEqual({ ...page, packed: null });
    // A page kept as text by a release before pages were kept as bytes reads the same.
    expect(await client.readVoucherPage(page.body.toString('utf8'))).toEqual({ ...page, packed: null });
    expect(seen[0]).toBe(
      '/nuvem/api/v1/api-vouchers?sincronizado=false&limit=250&offset=0&marcar_sincronizado=true&order_by=created_at&order=asc',
    );
    await client.close();
    await new Promise((r) => server.close(r));
  });
});
