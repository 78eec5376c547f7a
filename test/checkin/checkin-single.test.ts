import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTestBox, type TestBox } from '../support/box.js';
import { makeOrder } from '../support/fixtures.js';
import { checkin, events } from '../support/http.js';

let box: TestBox;
beforeEach(async () => {
  box = await createTestBox(); // 2026-11-21 10:00 in São Paulo
});
afterEach(() => box.close());

describe('single QR check-in', () => {
  it('checks in, returns the whole order and records who did it', async () => {
    box.importOrders([makeOrder({ numero: '20261120-0001', prefix: 'A', people: 2 })]);
    const res = await checkin(box, { qr_code: 'A-1', terminal: 'catraca-3', operador: 'Joana' });
    expect(res.status).toBe(200);
    expect(res.body.success).toBe(true);
    expect(res.body.data.message).toMatch(/sucesso/);
    const pedido = res.body.data.pedido;
    expect(pedido.numero_pedido).toBe('20261120-0001');
    expect(pedido.cliente).toEqual({ nome: 'Maria', email: 'maria@example.com' });
    expect(pedido.lotes[0]).toMatchObject({
      checkin_realizado: false, // one of two people
      checkin_em: '2026-11-21T13:00:00.000Z',
      checkin_dispositivo: 'catraca-3',
      checkin_operador: 'Joana',
      quantidade: 2,
      subtotal: 200,
    });
    expect(pedido.lotes[0].dados.map((d: { qr_code: string }) => d.qr_code)).toEqual(['A-1', 'A-2']);
    expect(events(box)).toEqual([
      {
        action: 'checkin',
        mode: 'qr',
        code: 'A-1',
        qr_code: 'A-1',
        result: 'ok',
        key_name: 'catraca-1',
        terminal: 'catraca-3',
        operador: 'Joana',
        source: 'api',
      },
    ]);
  });

  it('serves both path forms and accepts the `checkin` and `all` permissions', async () => {
    box.importOrders([makeOrder({ prefix: 'B', people: 3 })]);
    expect((await checkin(box, { qr_code: 'B-1' }, box.keys.checkin, '/v1/api-qrcode-checkin')).status).toBe(200);
    expect((await checkin(box, { qr_code: 'B-2' }, box.keys.checkinPlain)).status).toBe(200);
    expect((await checkin(box, { qr_code: 'B-3' }, box.keys.all)).status).toBe(200);
  });

  it('refuses a second use with TICKET_ALREADY_USED carrying the first check-in time', async () => {
    box.importOrders([makeOrder({ prefix: 'C' })]);
    await checkin(box, { qr_code: 'C-1' });
    box.clock.advance(60_000);
    const res = await checkin(box, { qr_code: 'C-1' });
    expect(res.status).toBe(409);
    expect(res.body).toEqual({
      success: false,
      error: {
        code: 'TICKET_ALREADY_USED',
        message: expect.any(String),
        details: { qr_code: 'C-1', checkin_em: '2026-11-21T13:00:00.000Z' },
      },
    });
    expect(events(box).map((e) => e.result)).toEqual(['ok', 'TICKET_ALREADY_USED']);
  });

  it('refuses past and future tickets with their dates', async () => {
    box.importOrders([
      makeOrder({ prefix: 'OLD', dataUso: '2026-11-20' }),
      makeOrder({ prefix: 'NEW', dataUso: '2026-11-22' }),
    ]);
    const old = await checkin(box, { qr_code: 'OLD-1' });
    expect(old.status).toBe(410);
    expect(old.body.error).toMatchObject({
      code: 'TICKET_EXPIRED',
      details: { data_ingresso: '2026-11-20', data_atual: '2026-11-21', qr_code: 'OLD-1' },
    });
    const early = await checkin(box, { qr_code: 'NEW-1' });
    expect(early.status).toBe(422);
    expect(early.body.error).toMatchObject({
      code: 'TICKET_NOT_VALID_YET',
      details: { data_ingresso: '2026-11-22', qr_code: 'NEW-1' },
    });
  });

  it('judges "today" in the tenant time zone, not in UTC', async () => {
    box.importOrders([makeOrder({ prefix: 'TZ', dataUso: '2026-11-21' })]);
    box.clock.set('2026-11-22T01:30:00.000Z'); // still 21 Nov, 22:30 in São Paulo
    expect((await checkin(box, { qr_code: 'TZ-1' })).status).toBe(200);
    box.clock.set('2026-11-22T03:30:00.000Z'); // 22 Nov, 00:30 in São Paulo
    expect((await checkin(box, { qr_code: 'TZ-2' })).body.error.code).toBe('TICKET_EXPIRED');
  });

  it('accepts an open-dated dayuse_sem_data ticket on any day', async () => {
    box.importOrders([makeOrder({ prefix: 'OPEN', dataUso: '2026-10-01', tipo: 'dayuse_sem_data' })]);
    expect((await checkin(box, { qr_code: 'OPEN-1' })).status).toBe(200);
  });

  it('refuses tickets of cancelled and refunded orders', async () => {
    box.importOrders([
      makeOrder({ prefix: 'X', status: 'cancelado' }),
      makeOrder({ prefix: 'R', status: 'reembolsado' }),
    ]);
    for (const qr of ['X-1', 'R-1']) {
      const res = await checkin(box, { qr_code: qr });
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe('TICKET_CANCELLED');
    }
  });

  it('does not find unknown QRs nor another tenant’s QRs', async () => {
    box.importOrders([makeOrder({ prefix: 'MINE' })]);
    box.importOrders([makeOrder({ prefix: 'THEIRS' })], box.otherTenantId);
    for (const qr of ['NOPE', 'THEIRS-1']) {
      const res = await checkin(box, { qr_code: qr });
      expect(res.status).toBe(404);
      expect(res.body.error).toMatchObject({ code: 'TICKET_NOT_FOUND', details: { qr_code: qr } });
    }
    expect((await checkin(box, { qr_code: 'THEIRS-1' }, box.keys.otherTenant)).status).toBe(200);
  });

  it('redeems an additional QR one unit per scan up to the quantity bought', async () => {
    box.importOrders([
      makeOrder({
        prefix: 'ADD',
        adicionais: [
          {
            adicional_id: 'a1',
            nome: 'Refrigerante',
            quantidade: 2,
            preco_unitario: 8,
            subtotal: 16,
            codigo_integracao: 'REF',
            adicional_qr_code: 'ADQR0000000001',
          },
        ],
      }),
    ]);
    const first = await checkin(box, { qr_code: 'ADQR0000000001' });
    expect(first.status).toBe(200);
    expect(first.body.data.adicional).toEqual({
      nome: 'Refrigerante',
      quantidade: 2,
      unidades_utilizadas: 1,
      unidades_restantes: 1,
    });
    expect(first.body.data.pedido.adicionais[0].adicional_qr_code).toBe('ADQR0000000001');
    expect((await checkin(box, { qr_code: 'ADQR0000000001' })).status).toBe(200);
    const third = await checkin(box, { qr_code: 'ADQR0000000001' });
    expect(third.status).toBe(409);
    expect(third.body.error.details).toMatchObject({
      qr_code: 'ADQR0000000001',
      quantidade: 2,
      unidades_utilizadas: 2,
    });
  });
});

describe('request errors', () => {
  it('needs exactly one of qr_code and numero_pedido', async () => {
    const both = await checkin(box, { qr_code: 'A', numero_pedido: '20261120-0001' });
    expect(both.status).toBe(400);
    expect(both.body.error.code).toBe('AMBIGUOUS_INPUT');
    for (const body of [{}, { qr_code: '' }, { qr_code: ' , ' }, { terminal: 't' }, { qr_code: null }]) {
      const res = await checkin(box, body);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('MISSING_FIELD');
    }
  });

  it('answers a bare POST without a body with MISSING_FIELD', async () => {
    const res = await box.app.inject({
      method: 'POST',
      url: '/api/v1/api-qrcode-checkin',
      headers: { 'x-api-key': box.keys.checkin },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().error.code).toBe('MISSING_FIELD');
  });

  it('rejects malformed JSON and wrong types in the envelope, in Portuguese', async () => {
    const bad = await box.app.inject({
      method: 'POST',
      url: '/api/v1/api-qrcode-checkin',
      headers: { 'x-api-key': box.keys.checkin, 'content-type': 'application/json' },
      payload: '{"qr_code":',
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toEqual({
      success: false,
      error: { code: 'INVALID_JSON', message: expect.stringMatching(/JSON/) },
    });
    const typed = await checkin(box, { qr_code: 123 });
    expect(typed.status).toBe(400);
    expect(typed.body.error.code).toBe('VALIDATION_ERROR');
    expect(typed.body.error.details.campos[0].campo).toBe('body.qr_code');
  });

  it('authenticates before validating, with the three auth errors', async () => {
    expect((await checkin(box, { qr_code: 123 }, null)).body.error.code).toBe('MISSING_API_KEY');
    const invalid = await checkin(box, { qr_code: 'A' }, 'gk_000000000000_' + 'a'.repeat(43));
    expect(invalid.status).toBe(401);
    expect(invalid.body.error.code).toBe('INVALID_API_KEY');
    expect((await checkin(box, { qr_code: 'A' }, 'garbage')).body.error.code).toBe('INVALID_API_KEY');
    const denied = await checkin(box, { qr_code: 'A' }, box.keys.vouchers);
    expect(denied.status).toBe(403);
    expect(denied.body.error.code).toBe('PERMISSION_DENIED');
  });

  it('authenticates before reading the body: bad JSON, another media type or a huge body still get the auth error', async () => {
    const send = (method: 'POST' | 'PATCH', key: string | null, type: string, payload: string) =>
      box.app.inject({
        method,
        url: '/api/v1/api-qrcode-checkin',
        headers: { 'content-type': type, ...(key ? { 'x-api-key': key } : {}) },
        payload,
      });
    for (const method of ['POST', 'PATCH'] as const) {
      const codes = [
        await send(method, null, 'application/json', '{bad'),
        await send(method, 'garbage', 'application/json', '{bad'),
        await send(method, box.keys.vouchers, 'application/json', '{bad'),
        await send(method, null, 'application/x-www-form-urlencoded', 'qr_code=A'),
        await send(method, null, 'application/json', JSON.stringify({ qr_code: 'A', terminal: 'x'.repeat(1_100_000) })),
      ].map((r) => [r.statusCode, r.json().error.code]);
      expect(codes).toEqual([
        [401, 'MISSING_API_KEY'],
        [401, 'INVALID_API_KEY'],
        [403, 'PERMISSION_DENIED'],
        [401, 'MISSING_API_KEY'],
        [401, 'MISSING_API_KEY'],
      ]);
    }
  });

  it('stores keys only as hashes', () => {
    const rows = box.db.sqlite.prepare('select * from api_keys').all();
    const dump = JSON.stringify(rows, (_k, v) => (Buffer.isBuffer(v) ? v.toString('hex') : v));
    for (const key of Object.values(box.keys)) expect(dump).not.toContain(key.slice('gk_000000000000_'.length));
  });

  it('rejects a key revoked or expired by another connection (the CLI) on the very next request', async () => {
    // The server keeps key rows in memory; a commit elsewhere changes PRAGMA data_version, asked every request.
    const cli = new Database(box.db.sqlite.name);
    try {
      expect((await checkin(box, { qr_code: 'NOPE' })).body.error.code).toBe('TICKET_NOT_FOUND');
      cli.prepare("update api_keys set revoked_at = '2026-11-01T00:00:00Z' where name = 'catraca-1'").run();
      expect((await checkin(box, { qr_code: 'A' })).body.error.code).toBe('INVALID_API_KEY');
      expect((await checkin(box, { qr_code: 'NOPE' }, box.keys.checkinPlain)).body.error.code).toBe('TICKET_NOT_FOUND');
      cli.prepare("update api_keys set expires_at = '2026-11-21T12:59:59Z' where name = 'catraca-2'").run();
      expect((await checkin(box, { qr_code: 'A' }, box.keys.checkinPlain)).body.error.code).toBe('INVALID_API_KEY');
    } finally {
      cli.close();
    }
  });

  it('answers an unexpected failure with INTERNAL_ERROR and no stack trace', async () => {
    box.importOrders([makeOrder({ prefix: 'BOOM' })]);
    box.db.sqlite.exec('drop trigger events_no_update; drop trigger events_no_delete; drop table events');
    const res = await checkin(box, { qr_code: 'BOOM-1' });
    expect(res.status).toBe(500);
    expect(res.body).toEqual({
      success: false,
      error: { code: 'INTERNAL_ERROR', message: 'Erro interno do servidor.' },
    });
    // Nothing half-written: the check-in rolled back with its event.
    expect(box.db.sqlite.prepare("select checkin_em from people where qr_code = 'BOOM-1'").get()).toEqual({
      checkin_em: null,
    });
  });

  it('answers a body that is not JSON with 415 and an oversized body with 413', async () => {
    const form = await box.app.inject({
      method: 'POST',
      url: '/api/v1/api-qrcode-checkin',
      headers: { 'x-api-key': box.keys.checkin, 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'qr_code=A',
    });
    expect([form.statusCode, form.json().error.code]).toEqual([415, 'UNSUPPORTED_MEDIA_TYPE']);
    const text = await box.app.inject({
      method: 'POST',
      url: '/api/v1/api-qrcode-checkin',
      headers: { 'x-api-key': box.keys.checkin, 'content-type': 'text/plain' },
      payload: '{"qr_code":"A"}',
    });
    expect([text.statusCode, text.json().error.code]).toEqual([415, 'UNSUPPORTED_MEDIA_TYPE']);
    const big = await checkin(box, { qr_code: 'A', terminal: 'x'.repeat(1_100_000) });
    expect([big.status, big.body.error.code]).toEqual([413, 'PAYLOAD_TOO_LARGE']);
  });

  it('answers unknown routes in the envelope', async () => {
    const res = await box.app.inject({ method: 'GET', url: '/api/v1/nada' });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ success: false, error: { code: 'NOT_FOUND', message: 'Rota não encontrada.' } });
  });
});
