import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { pedidoSchema } from '../../src/orders/order.schemas.js';
import { upsertOrder } from '../../src/orders/orders.repo.js';
import { asUnavailable } from '../../src/sync/cloud-link.js';
import { startFakeCloud, type FakeCloud } from '../support/fake-cloud.js';
import { makeOrder } from '../support/fixtures.js';
import { createTickingClock, startGate, type Gate } from '../support/sync-gate.js';

// A push that never reached the cloud is no possible delivery: only an attempt that may have reached it can explain
// a later "already used" (docs/sync.md, "Push", step 4). A ticket let in here while the cloud was unreachable and let
// in at the cloud by someone else meanwhile is a double entry, not this box's own earlier attempt.

const ORDER = makeOrder({ numero: '20261121-0001', prefix: 'A', people: 2 });

let cloud: FakeCloud;
let gate: Gate;
let clock: ReturnType<typeof createTickingClock>;

beforeEach(async () => {
  clock = createTickingClock();
  cloud = await startFakeCloud({ clock });
  cloud.addOrders([ORDER]);
  gate = await startGate(cloud, clock);
  // The tickets as `gate import` stores them: the box has made no call to the cloud yet, so no connection of its pool
  // is open when the cloud goes away (a call on a keep-alive socket the cloud just closed may have reached it).
  gate.db.sqlite.transaction(() => upsertOrder(gate.db, gate.tenantId, pedidoSchema.parse(ORDER), clock.nowIso()))();
});
afterEach(async () => {
  await gate.close();
  await cloud.close();
});

const row = () => gate.outbox()[0]!;

/** Past the backoff of the call that failed (the box's and the cloud's clock move together). */
const pastBackoff = () => clock.advance(60_000);

describe('a push refused before it reached the cloud', () => {
  it('is not taken for a delivery: the ticket used at the cloud meanwhile is the box’s ja_utilizado_na_nuvem', async () => {
    await cloud.proxy.down();
    expect((await gate.checkin(gate.keys.checkin, 'A-1')).status).toBe(200);
    await expect(gate.worker.pushNow()).rejects.toThrow(/conexão recusada/);
    expect(row()).toMatchObject({ status: 'pendente', attempts: 1, first_sent_at: null });

    clock.advance(1_000);
    // Another turnstile lets A-1 in at the cloud while this box cannot reach it.
    expect((await cloud.checkinAtCloud('A-1')).status).toBe(200);
    await cloud.proxy.up();
    pastBackoff();
    await gate.worker.pushNow();

    expect(row()).toMatchObject({
      status: 'concluido',
      resultado: 'ja_utilizado_na_nuvem',
      cloud_code: 'TICKET_ALREADY_USED',
      attempts: 2,
    });
    expect(cloud.appliedCounts().get('checkin:A-1')).toBe(1);
    const conflicts = await gate.local(gate.keys.local, '/api/local/conflicts?tipo=ja_utilizado_na_nuvem');
    expect(conflicts.body.data.total).toBe(1);
  });

  it('while an attempt that did reach the cloud, its answer lost, is still confirmed as the box’s own', async () => {
    await cloud.proxy.down();
    expect((await gate.checkin(gate.keys.checkin, 'A-2')).status).toBe(200);
    await expect(gate.worker.pushNow()).rejects.toThrow(/conexão recusada/);
    await cloud.proxy.up();
    pastBackoff();
    // The second attempt reaches the cloud, which applies it; its answer is lost on the way back.
    cloud.proxy.inject({ fault: { kind: 'lose-reply' }, match: { method: 'POST' }, times: 1 });
    const reached = clock.nowIso();
    await expect(gate.worker.pushNow()).rejects.toThrow();
    expect(cloud.appliedCounts().get('checkin:A-2')).toBe(1);
    expect(row()).toMatchObject({ status: 'pendente', attempts: 2 });
    expect(Date.parse(row().first_sent_at!)).toBeGreaterThanOrEqual(Date.parse(reached));
    pastBackoff();
    await gate.worker.pushNow();
    expect(row()).toMatchObject({
      status: 'concluido',
      resultado: 'aceito',
      cloud_code: 'TICKET_ALREADY_USED',
      attempts: 3,
    });
  });
});

describe('which failures never left the box', () => {
  const failure = (code: string, name = 'Error') =>
    asUnavailable(Object.assign(new Error(code), { code, name }), undefined);

  it('the name not resolved, the connection refused or not made in time, the certificate refused', () => {
    for (const code of ['ENOTFOUND', 'EAI_AGAIN', 'ECONNREFUSED', 'UND_ERR_CONNECT_TIMEOUT', 'CERT_HAS_EXPIRED'])
      expect([code, failure(code).neverSent]).toEqual([code, true]);
    expect(failure('ECONNREFUSED').kind).toBe('refused');
    expect(failure('UND_ERR_CONNECT_TIMEOUT').kind).toBe('timeout');
  });

  it('may have reached the cloud: a reset, a socket closed under the request, a timeout once connected', () => {
    for (const code of ['ECONNRESET', 'UND_ERR_SOCKET', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'EPIPE'])
      expect([code, failure(code).neverSent]).toEqual([code, false]);
    expect(failure('', 'TimeoutError').neverSent).toBe(false);
    expect(failure('EHOSTUNREACH').neverSent).toBe(false);
  });
});
