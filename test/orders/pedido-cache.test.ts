import path from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { migrateToLatest, openDatabase } from '../../src/db/open.js';
import { loadOrders, voucherPedido } from '../../src/orders/order.payload.js';
import { upsertOrder } from '../../src/orders/orders.repo.js';
import { pedidoSchema } from '../../src/orders/order.schemas.js';
import { createTestBox, type TestBox } from '../support/box.js';
import { makeOrder } from '../support/fixtures.js';
import { checkin } from '../support/http.js';

// The check-in answer keeps what an order fixes between its people's scans (src/orders/pedido-cache.ts).
// Whatever changes the order in between, from this box or from another process, shows in the next answer.

let box: TestBox;
afterEach(() => box?.close());

const order = (overrides: { nomeLote?: string; email?: string; extraPerson?: boolean } = {}) => {
  const o = makeOrder({ numero: '20261121-0042', prefix: 'CACHE', people: 3 });
  o.lotes[0]!.nome_lote = overrides.nomeLote ?? 'Adulto';
  o.cliente.email = overrides.email ?? 'maria@example.com';
  if (overrides.extraPerson) o.lotes[0]!.dados.push({ qr_code: 'CACHE-4', Nome: 'Pessoa 4' });
  return o;
};

/** The answer's pedido must be what the vouchers listing's shaping makes of the order now. */
async function expectFreshAnswer(qr: string) {
  const res = await checkin(box, { qr_code: qr });
  expect(res.status).toBe(200);
  const id = box.db.sqlite
    .prepare(`select id from orders where numero_pedido = '20261121-0042'`)
    .pluck()
    .get() as number;
  const now = voucherPedido(loadOrders(box.db, [id], null)[0]!, true);
  expect(res.body.data.pedido).toEqual(now);
  return res.body.data.pedido;
}

it('an order re-imported between two scans of its people answers with its new data', async () => {
  box = await createTestBox();
  box.importOrders([order()]);
  expect((await expectFreshAnswer('CACHE-1')).lotes[0].nome_lote).toBe('Adulto');
  box.importOrders([order({ nomeLote: 'Adulto promocional', email: 'nova@example.com', extraPerson: true })]);
  const pedido = await expectFreshAnswer('CACHE-2');
  expect(pedido.lotes[0].nome_lote).toBe('Adulto promocional');
  expect(pedido.cliente.email).toBe('nova@example.com');
  expect(pedido.total_pessoas).toBe(4);
  expect(pedido.lotes[0].dados.map((d: { qr_code: string }) => d.qr_code)).toContain('CACHE-4');
});

it('a change written by another process (gate import beside the running box) shows in the next answer', async () => {
  box = await createTestBox();
  box.importOrders([order()]);
  await expectFreshAnswer('CACHE-1');
  const other = openDatabase(path.join(box.dir, 'gate.db'));
  await migrateToLatest(other);
  other.sqlite.transaction(() =>
    upsertOrder(other, box.tenantId, pedidoSchema.parse(order({ nomeLote: 'Meia' })), box.clock.nowIso()),
  )();
  other.close();
  expect((await expectFreshAnswer('CACHE-2')).lotes[0].nome_lote).toBe('Meia');
});

it("the people's state in the answer is the state after this scan, lot by lot", async () => {
  box = await createTestBox();
  box.importOrders([order()]);
  await expectFreshAnswer('CACHE-1');
  await expectFreshAnswer('CACHE-2');
  const last = await expectFreshAnswer('CACHE-3');
  expect(last.lotes[0].checkin_realizado).toBe(true);
});
