import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { pedidoSchema } from '../../src/orders/order.schemas.js';
import { upsertOrder } from '../../src/orders/orders.repo.js';
import { makeClient } from '../clients/client-data.js';
import { makeAvailability, makeCombo } from '../combos/combo-data.js';
import { startFakeCloud, type FakeCloud } from '../support/fake-cloud.js';
import { makeOrder } from '../support/fixtures.js';
import { createTickingClock, eventually, startGate, type Gate } from '../support/sync-gate.js';

const TODAY = '2026-11-21';
let cloud: FakeCloud;
let gate: Gate;
const clock = createTickingClock();

beforeEach(async () => {
  cloud = await startFakeCloud({ clock });
});
afterEach(async () => {
  await gate?.close();
  await cloud.close();
});

const count = (g: Gate, table: string) =>
  (g.db.sqlite.prepare(`select count(*) as n from ${table}`).get() as { n: number }).n;
/** Whether the cloud has marked this order for the gate's key (what a lost reply leaves behind). */
const markedInCloud = (numero: string) =>
  (
    cloud.db.sqlite
      .prepare(
        `select count(*) as n from voucher_marks m join people p on p.id = m.person_id join orders o on o.id = p.order_id join api_keys k on k.id = m.api_key_id where o.numero_pedido = ? and k.name = 'gate-box'`,
      )
      .get(numero) as { n: number }
  ).n > 0;

describe('pull: cloud → box', () => {
  it('cold start: an empty box gets every order (several pages), combos with availability and clients, and lets people in', async () => {
    const orders = Array.from({ length: 520 }, (_, i) =>
      makeOrder({ numero: `20261121-${String(i + 1).padStart(4, '0')}`, prefix: `CS${i}`, people: 2 }),
    );
    cloud.addOrders(orders);
    cloud.addCombos([makeCombo(1), makeCombo(2)]);
    cloud.setAvailability(makeAvailability(makeCombo(1).id, { [TODAY]: [10, 5], '2026-11-22': [2, 0] }));
    cloud.addClients([makeClient('c-1'), makeClient('c-2'), makeClient('c-3')]);
    gate = await startGate(cloud, clock, { config: { tuning: { pull: { pageSize: 100 } } } });

    gate.worker.start();
    await eventually(
      'all orders, combos and clients on the box',
      () => count(gate, 'orders') === 520 && count(gate, 'clients') === 3 && count(gate, 'combo_stock') > 0,
    );
    expect(count(gate, 'people')).toBe(1040);
    expect(count(gate, 'combos')).toBe(2);
    // Availability from today to today + daysAhead (2), as the cloud reports it (no stock row: 0).
    const stock = gate.db.sqlite
      .prepare(
        `select date, group_concat(estoque_disponivel) as s from combo_stock join combos on combos.id = combo_pk where combo_id = ? group by date order by date`,
      )
      .all(makeCombo(1).id);
    expect(stock).toEqual([
      { date: TODAY, s: '10,5' },
      { date: '2026-11-22', s: '2,0' },
      { date: '2026-11-23', s: '0,0' },
    ]);
    expect((await gate.checkin(gate.keys.checkin, 'CS519-2')).status).toBe(200);
    // The gate's key marked them in the cloud; another integration's marks are its own.
    const erp = await fetch(
      `${cloud.origin}/api/v1/api-vouchers?sincronizado=false&marcar_sincronizado=false&limit=1000`,
      { headers: { 'x-api-key': cloud.keys.erp } },
    );
    expect(((await erp.json()) as { data: { pedidos: unknown[] } }).data.pedidos).toHaveLength(520);
    await eventually(
      'online',
      async () => (await gate.local(gate.keys.local, '/api/local/sync')).body.data.online === true,
    );
  });

  it('new, changed, cancelled and refunded orders land; a cancelled order is refused from the next scan', async () => {
    gate = await startGate(cloud, clock);
    cloud.addOrders([
      makeOrder({ numero: '20261121-0001', prefix: 'A' }),
      makeOrder({ numero: '20261121-0002', prefix: 'B' }),
    ]);
    await gate.worker.pullNow();
    expect((await gate.checkin(gate.keys.checkin, 'A-1')).status).toBe(200);

    cloud.setStatus('20261121-0001', 'cancelado');
    cloud.setStatus('20261121-0002', 'reembolsado');
    cloud.addOrders([makeOrder({ numero: '20261121-0003', prefix: 'C', people: 3 })]);
    await gate.worker.pullNow();
    expect(gate.person('A-2')?.status).toBe('cancelado');
    const refused = await gate.checkin(gate.keys.checkin, 'A-2');
    expect([refused.status, refused.body.error.code]).toEqual([403, 'TICKET_CANCELLED']);
    expect((await gate.checkin(gate.keys.checkin, 'B-1')).body.error.code).toBe('TICKET_CANCELLED');
    expect((await gate.checkin(gate.keys.checkin, 'C-3')).status).toBe(200);
    // The gate's own check-in of A-1 is kept (it happened); the status is the cloud's.
    expect(gate.person('A-1')?.checkin_em).not.toBeNull();
  });

  it('a reply lost after the cloud marked the page loses nothing: the next pull refreshes the use dates without marking', async () => {
    gate = await startGate(cloud, clock);
    await gate.worker.pullNow(); // the start-up refresh, on an empty cloud
    cloud.addOrders([
      makeOrder({ numero: '20261121-0100', prefix: 'L', dataUso: TODAY }),
      makeOrder({ numero: '20261121-0101', prefix: 'M', dataUso: '2026-11-23' }),
    ]);
    cloud.proxy.inject({
      fault: { kind: 'lose-reply' },
      match: { method: 'GET', path: /api-vouchers$/, query: { sincronizado: 'false' } },
      times: 1,
    });

    await expect(gate.worker.pullNow()).rejects.toThrow(/rede|network|socket/i);
    expect(markedInCloud('20261121-0100')).toBe(true); // the cloud marked the page it could not deliver
    expect(gate.person('L-1')).toBeUndefined();
    const status = await gate.local(gate.keys.local, '/api/local/sync');
    expect(status.body.data.online).toBe(false);

    await gate.worker.pullNow();
    expect(gate.person('L-1')?.status).toBe('pago');
    expect(gate.person('M-2')?.status).toBe('pago');
    expect((await gate.checkin(gate.keys.checkin, 'L-2')).status).toBe(200);
    const refresh = cloud.proxy.requests.filter(
      (r) => r.path.endsWith('api-vouchers') && r.query.get('marcar_sincronizado') === 'false',
    );
    expect(refresh.map((r) => r.query.get('data_uso'))).toContain(TODAY);
  });

  it('an order beyond the refreshed dates lost the same way comes back with the full (night) refresh', async () => {
    gate = await startGate(cloud, clock);
    await gate.worker.pullNow();
    cloud.addOrders([makeOrder({ numero: '20261121-0200', prefix: 'F', dataUso: '2026-12-20' })]);
    cloud.proxy.inject({
      fault: { kind: 'lose-reply' },
      match: { method: 'GET', query: { sincronizado: 'false' } },
      times: 1,
    });
    await expect(gate.worker.pullNow()).rejects.toThrow();
    await gate.worker.pullNow();
    expect(gate.person('F-1')).toBeUndefined(); // outside today + 2 days
    await gate.worker.fullRefreshNow();
    expect(gate.person('F-1')?.status).toBe('pago');
  });

  it('an order the box cannot store is set aside and shown; the rest of its page lands', async () => {
    gate = await startGate(cloud, clock);
    // Imported locally by hand earlier: QR X-1 already belongs to another order on the box.
    gate.db.sqlite.transaction(() =>
      upsertOrder(
        gate.db,
        gate.tenantId,
        pedidoSchema.parse(makeOrder({ numero: '20261120-0999', prefix: 'X' })),
        clock.nowIso(),
      ),
    )();
    cloud.addOrders([
      makeOrder({ numero: '20261121-0300', prefix: 'X' }),
      makeOrder({ numero: '20261121-0301', prefix: 'OK' }),
    ]);
    await gate.worker.pullNow();
    expect(gate.person('OK-1')?.status).toBe('pago');
    const status = (await gate.local(gate.keys.local, '/api/local/sync')).body.data;
    expect(status.registros_rejeitados.total).toBe(1);
    expect(status.registros_rejeitados.recentes[0]).toMatchObject({ tipo: 'pedido', referencia: '20261121-0300' });
    expect(status.registros_rejeitados.recentes[0].motivo).toMatch(/X-1/);
  });

  it('a combo the cloud no longer lists is retired on the box', async () => {
    gate = await startGate(cloud, clock);
    cloud.addCombos([makeCombo(1), makeCombo(2)]);
    await gate.worker.refreshNow();
    cloud.addCombos([makeCombo(2, { ativo: false })]);
    await gate.worker.refreshNow();
    expect(gate.db.sqlite.prepare('select combo_id, ativo from combos order by combo_id').all()).toEqual([
      { combo_id: makeCombo(1).id, ativo: 1 },
      { combo_id: makeCombo(2).id, ativo: 0 },
    ]);
  });
});
