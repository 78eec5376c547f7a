import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startFakeCloud, type FakeCloud } from '../support/fake-cloud.js';
import { makeOrder } from '../support/fixtures.js';
import { createTickingClock, eventually, startGate, type Gate } from '../support/sync-gate.js';

let cloud: FakeCloud;
let gate: Gate;
let clock: ReturnType<typeof createTickingClock>;

beforeEach(async () => {
  clock = createTickingClock();
  cloud = await startFakeCloud({ clock });
  gate = await startGate(cloud, clock);
  cloud.addOrders([
    makeOrder({ numero: '20261121-0001', prefix: 'A', people: 3 }),
    makeOrder({ numero: '20261121-0002', prefix: 'B', people: 2 }),
    makeOrder({
      numero: '20261121-0003',
      prefix: 'G',
      people: 2,
      adicionais: [
        {
          adicional_id: 'ad-1',
          nome: 'Estacionamento',
          quantidade: 2,
          preco_unitario: 20,
          subtotal: 40,
          pessoa_ingresso_id: null,
          combo_id: null,
          combo_item_id: null,
          is_brinde: false,
          codigo_integracao: '',
          adicional_qr_code: 'ESTAC000000001',
        },
      ],
    }),
  ]);
  await gate.worker.pullNow();
});
afterEach(async () => {
  await gate.close();
  await cloud.close();
});

const results = () =>
  Object.fromEntries(gate.outbox().map((r) => [`${r.action}:${r.chave}#${r.event_id}`, r.resultado]));
const pushBodies = (method: string) =>
  cloud.proxy.requests
    .filter((r) => r.method === method && r.path.endsWith('api-qrcode-checkin'))
    .map((r) => JSON.parse(r.body));

describe('push: box → cloud', () => {
  it('sends check-ins with their original terminal and operador, one comma-separated batch per action, terminal and operador', async () => {
    await gate.checkin(gate.keys.checkin, 'A-1', 'catraca-1', 'ana');
    await gate.checkin(gate.keys.checkin, 'A-2', 'catraca-1', 'ana');
    await gate.checkin(gate.keys.checkin, 'B-1', 'catraca-2', 'bia');
    await gate.checkin(gate.keys.checkin, 'B-2', 'catraca-1', 'ana');
    const out = await gate.worker.pushNow();
    expect(out).toMatchObject({ settled: 4, pending: 0 });

    expect(pushBodies('POST')).toEqual([
      { qr_code: 'A-1,A-2,B-2', terminal: 'catraca-1', operador: 'ana' },
      { qr_code: 'B-1', terminal: 'catraca-2', operador: 'bia' },
    ]);
    expect(cloud.applied().map((r) => [r.qr_code, r.terminal, r.operador, r.key_name])).toEqual([
      ['A-1', 'catraca-1', 'ana', 'gate-box'],
      ['A-2', 'catraca-1', 'ana', 'gate-box'],
      ['B-2', 'catraca-1', 'ana', 'gate-box'],
      ['B-1', 'catraca-2', 'bia', 'gate-box'],
    ]);
    expect(new Set(gate.outbox().map((r) => r.resultado))).toEqual(new Set(['aceito']));
    // Nothing accepted is sent again.
    await gate.worker.pushNow();
    expect(pushBodies('POST')).toHaveLength(2);
  });

  it('check-ins made while a push is out go with that push, before it says nothing is pending', async () => {
    await gate.checkin(gate.keys.checkin, 'A-1', 'catraca-1', 'ana');
    // The first batch is slow: the cloud answers it after the next check-ins are made.
    cloud.proxy.inject({ fault: { kind: 'slow', ms: 300 }, match: { method: 'POST' }, times: 1 });
    const pushing = gate.worker.pushNow();
    await eventually('the first batch out', () => cloud.proxy.count({ method: 'POST' }) === 1, 10_000, 2);
    await gate.checkin(gate.keys.checkin, 'B-1', 'catraca-2', 'bia');
    await gate.checkin(gate.keys.checkin, 'B-2', 'catraca-2', 'bia');
    expect(await pushing).toMatchObject({ settled: 3, pending: 0 });
    expect(Object.fromEntries(cloud.appliedCounts())).toEqual({ 'checkin:A-1': 1, 'checkin:B-1': 1, 'checkin:B-2': 1 });
  });

  it('a long day offline: 1,300 check-ins made while the cloud was away all reach it once, in the outbox in event order', async () => {
    cloud.addOrders(
      Array.from({ length: 130 }, (_, i) =>
        makeOrder({ numero: `20261121-${String(i + 100).padStart(4, '0')}`, prefix: `D${i}`, people: 10 }),
      ),
    );
    await gate.worker.pullNow();
    await cloud.proxy.down();
    const codes = Array.from({ length: 1300 }, (_, i) => `D${Math.floor(i / 10)}-${(i % 10) + 1}`);
    for (let i = 0; i < codes.length; i += 100)
      expect((await gate.checkin(gate.keys.checkin, codes.slice(i, i + 100).join(','))).status).toBe(200);
    await cloud.proxy.up();
    const out = await gate.worker.pushNow();
    expect(out).toMatchObject({ settled: 1300, pending: 0 });
    const outbox = gate.outbox();
    expect(outbox.map((r) => r.chave)).toEqual(codes);
    expect(outbox.map((r) => r.event_id)).toEqual([...outbox.map((r) => r.event_id)].sort((a, b) => a - b));
    const applied = cloud.appliedCounts();
    expect(codes.filter((c) => applied.get(`checkin:${c}`) !== 1)).toEqual([]);
  });

  it('keeps the order per person offline: check-in, reversal, check-in again reach the cloud in that order', async () => {
    await cloud.proxy.down();
    await gate.checkin(gate.keys.checkin, 'A-1');
    await gate.checkin(gate.keys.checkin, 'B-1');
    expect((await gate.reverse(gate.keys.checkin, 'A-1')).status).toBe(200);
    await gate.checkin(gate.keys.checkin, 'A-1', 'catraca-2', 'bia');
    await expect(gate.worker.pushNow()).rejects.toThrow(/recusada/);
    expect(gate.outbox().every((r) => r.status === 'pendente')).toBe(true);

    await cloud.proxy.up();
    for (let i = 0; i < 10 && gate.outbox().some((r) => r.status === 'pendente'); i++) {
      await new Promise((r) => setTimeout(r, 50)); // past the backoff of the batch that was refused
      await gate.worker.pushNow().catch(() => undefined);
    }
    expect(
      cloud
        .applied()
        .filter((r) => r.qr_code === 'A-1')
        .map((r) => [r.action, r.terminal]),
    ).toEqual([
      ['checkin', 'catraca-1'],
      ['estorno', 'catraca-1'],
      ['checkin', 'catraca-2'],
    ]);
    expect(cloud.person('A-1')).toMatchObject({ checkin_dispositivo: 'catraca-2', estornado_em: null });
    expect(cloud.person('B-1')?.checkin_em).not.toBeNull();
    expect(new Set(gate.outbox().map((r) => r.resultado))).toEqual(new Set(['aceito']));
  });

  it('group and additional check-ins go as person QRs and the additional QR, one unit per event', async () => {
    await gate.checkin(gate.keys.checkin, '20261121-0003'); // group QR: both people
    await gate.checkin(gate.keys.checkin, 'ESTAC000000001');
    await gate.checkin(gate.keys.checkin, 'ESTAC000000001');
    await gate.worker.pushNow();
    await gate.worker.pushNow();
    const counts = cloud.appliedCounts();
    expect([counts.get('checkin:G-1'), counts.get('checkin:G-2'), counts.get('checkin:ESTAC000000001')]).toEqual([
      1, 1, 2,
    ]);
    expect(pushBodies('POST').every((b) => !String(b.qr_code).includes('20261121-0003'))).toBe(true);
  });

  it('the same ticket used at the cloud and at the gate is a double entry; the cloud’s checkin_em is kept and a later reversal is not sent', async () => {
    const atCloud = await cloud.checkinAtCloud('B-1');
    expect(atCloud.status).toBe(200);
    const cloudTime = cloud.person('B-1')!.checkin_em;
    clock.advance(60_000);
    await cloud.proxy.down();
    expect((await gate.checkin(gate.keys.checkin, 'B-1')).status).toBe(200); // offline: the gate cannot know
    await gate.reverse(gate.keys.checkin, 'B-1');
    await cloud.proxy.up();
    await gate.worker.pushNow();
    await gate.worker.pushNow();

    const rows = gate.outbox();
    expect(rows.map((r) => [r.action, r.resultado, r.cloud_code])).toEqual([
      ['checkin', 'ja_utilizado_na_nuvem', 'TICKET_ALREADY_USED'],
      ['estorno', 'outro', 'CHECKIN_NAO_ACEITO'],
    ]);
    const stored = gate.db.sqlite.prepare('select cloud_em from sync_push where action = ?').get('checkin') as {
      cloud_em: string;
    };
    expect(stored.cloud_em).toBe(cloudTime);
    // The reversal was not sent: the cloud's (real) entry stands.
    expect(pushBodies('PATCH')).toEqual([]);
    expect(cloud.person('B-1')?.checkin_em).toBe(cloudTime);
  });

  it('a check-in whose reply was lost after the cloud applied it is confirmed on retry, not reported as a double entry', async () => {
    await gate.checkin(gate.keys.checkin, 'A-3');
    cloud.proxy.inject({ fault: { kind: 'lose-reply' }, match: { method: 'POST' }, times: 1 });
    await expect(gate.worker.pushNow()).rejects.toThrow();
    expect(cloud.appliedCounts().get('checkin:A-3')).toBe(1);
    expect(gate.outbox()[0]).toMatchObject({ status: 'pendente', attempts: 1 });
    await new Promise((r) => setTimeout(r, 250));
    await gate.worker.pushNow();
    expect(gate.outbox()[0]).toMatchObject({
      status: 'concluido',
      resultado: 'aceito',
      cloud_code: 'TICKET_ALREADY_USED',
      attempts: 2,
    });
    expect(cloud.appliedCounts().get('checkin:A-3')).toBe(1);
  });

  it('an order cancelled in the cloud while its offline check-ins wait: they are reported, and the next scan is refused', async () => {
    await cloud.proxy.down();
    await gate.checkin(gate.keys.checkin, 'A-1');
    await gate.checkin(gate.keys.checkin, 'A-2');
    cloud.setStatus('20261121-0001', 'cancelado');
    await cloud.proxy.up();
    await gate.worker.pullNow();
    expect((await gate.checkin(gate.keys.checkin, 'A-3')).body.error.code).toBe('TICKET_CANCELLED');
    await gate.worker.pushNow();
    expect(Object.values(results())).toEqual(['cancelado_na_nuvem', 'cancelado_na_nuvem']);
    expect(gate.outbox().map((r) => r.cloud_code)).toEqual(['TICKET_CANCELLED', 'TICKET_CANCELLED']);
    expect(cloud.applied()).toEqual([]);
  });

  it('an event the cloud keeps failing on is isolated after a few tries, so the rest of its batch gets through', async () => {
    cloud.proxy.inject({
      fault: { kind: 'status', status: 500 },
      match: { method: 'POST', body: /"qr_code":"[^"]*\bB-1\b/ },
    });
    for (const qr of ['A-1', 'B-1', 'A-2']) await gate.checkin(gate.keys.checkin, qr);
    for (let i = 0; i < 40 && cloud.appliedCounts().size < 2; i++) {
      await gate.worker.pushNow().catch(() => undefined);
      await new Promise((r) => setTimeout(r, 25));
    }
    expect([...cloud.appliedCounts().keys()].sort()).toEqual(['checkin:A-1', 'checkin:A-2']);
    const poisoned = gate.outbox().find((r) => r.chave === 'B-1')!;
    expect(poisoned.status).toBe('pendente');
    expect(poisoned.attempts).toBeGreaterThanOrEqual(3);
    const alone = cloud.proxy.requests.filter((r) => r.method === 'POST' && JSON.parse(r.body).qr_code === 'B-1');
    expect(alone.length).toBeGreaterThanOrEqual(1);
  });

  it('a whole call refused (a timeout or an error for the batch as a whole) settles none of its check-ins: they reach the cloud later', async () => {
    cloud.proxy.inject({ fault: { kind: 'status', status: 408 }, match: { method: 'POST' }, times: 1 });
    cloud.proxy.inject({ fault: { kind: 'status', status: 400 }, match: { method: 'POST' }, times: 1 });
    for (const qr of ['A-1', 'B-1', 'A-2']) await gate.checkin(gate.keys.checkin, qr);
    await expect(gate.worker.pushNow()).rejects.toThrow(/chamada recusada pela nuvem/);
    expect(gate.outbox().map((r) => r.status)).toEqual(['pendente', 'pendente', 'pendente']);
    for (let i = 0; i < 40 && cloud.appliedCounts().size < 3; i++) {
      await gate.worker.pushNow().catch(() => undefined);
      await new Promise((r) => setTimeout(r, 25));
    }
    expect([...cloud.appliedCounts().keys()].sort()).toEqual(['checkin:A-1', 'checkin:A-2', 'checkin:B-1']);
    expect(Object.values(results())).toEqual(['aceito', 'aceito', 'aceito']);
    expect(cloud.proxy.requests.filter((r) => r.fault === 'status')).toHaveLength(2);
  });

  it('a reversal still waiting for the cloud is not undone by the cloud’s check-in summary on the next refresh', async () => {
    cloud.addOrders([makeOrder({ numero: '20261121-0009', prefix: 'S', people: 1 })]);
    await gate.worker.pullNow();
    await gate.checkin(gate.keys.checkin, 'S-1');
    await gate.worker.pushNow(); // the cloud now reports the lot as fully checked in
    await cloud.proxy.down();
    await gate.reverse(gate.keys.checkin, 'S-1');
    await cloud.proxy.up();
    await gate.worker.refreshNow();
    expect(gate.person('S-1')?.checkin_em).toBeNull();
    expect((await gate.checkin(gate.keys.checkin, 'S-1')).status).toBe(200); // re-entry after the reversal
    await gate.worker.pushNow();
    await gate.worker.pushNow();
    expect(
      cloud
        .applied()
        .filter((r) => r.qr_code === 'S-1')
        .map((r) => r.action),
    ).toEqual(['checkin', 'estorno', 'checkin']);
  });

  it('too late: a check-in pushed the next day (expired) and a reversal pushed the next day (not the same day)', async () => {
    await gate.checkin(gate.keys.checkin, 'A-1');
    await gate.checkin(gate.keys.checkin, 'B-1');
    await gate.worker.pushNow(); // both accepted today
    await cloud.proxy.down();
    await gate.reverse(gate.keys.checkin, 'B-1');
    await gate.checkin(gate.keys.checkin, 'A-2');
    clock.advance(24 * 3_600_000);
    await cloud.proxy.up();
    await gate.worker.pushNow().catch(() => undefined);
    await new Promise((r) => setTimeout(r, 250));
    await gate.worker.pushNow();
    const late = gate.outbox().filter((r) => r.resultado !== 'aceito');
    expect(late.map((r) => [r.action, r.chave, r.resultado, r.cloud_code])).toEqual([
      ['estorno', 'B-1', 'fora_do_prazo', 'ESTORNO_NAO_PERMITIDO'],
      ['checkin', 'A-2', 'fora_do_prazo', 'TICKET_EXPIRED'],
    ]);
  });
});
