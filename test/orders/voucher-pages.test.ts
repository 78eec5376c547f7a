import fs from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createByteSlots } from '../../src/lib/byte-slots.js';
import { createVoucherPages, voucherPageJson, type VoucherPages } from '../../src/orders/vouchers.page.js';
import { createTestBox, type TestBox } from '../support/box.js';
import { makeOrder } from '../support/fixtures.js';

// The vouchers listing's pages are found and made by a worker thread with its own connection
// (src/orders/vouchers.page.ts), written into answer slots shared with the event loop.

let box: TestBox;
let pages: VoucherPages | undefined;
beforeEach(async () => {
  box = await createTestBox();
  box.importOrders(
    Array.from({ length: 12 }, (_, i) =>
      makeOrder({ numero: `20261120-${String(i + 1).padStart(4, '0')}`, people: 3 }),
    ),
  );
});
afterEach(async () => {
  await pages?.close();
  pages = undefined;
  await box.close();
});

const orderIds = () =>
  (box.db.sqlite.prepare('select id from orders order by id').all() as { id: number }[]).map((r) => r.id);
const apiKeyId = () => (box.db.sqlite.prepare("select id from api_keys where name = 'erp'").get() as { id: number }).id;

describe('voucher pages made off the event loop', () => {
  it('are byte for byte the page the event loop would make, in a slot or, when none fits or none is free, in a buffer of their own', async () => {
    const ids = orderIds();
    const expected = voucherPageJson(box.db, ids, apiKeyId());
    const oneOrder = voucherPageJson(box.db, ids.slice(0, 1), apiKeyId());
    expect(Buffer.byteLength(expected)).toBeGreaterThan(8 * 1024);
    // One slot, too small for the whole page but large enough for one order.
    const slots = createByteSlots(1, 8 * 1024);
    pages = createVoucherPages(box.db.sqlite.name, slots);

    const small = await pages.render(ids.slice(0, 1), apiKeyId());
    expect(small.bytes.buffer).toBe(slots.shared); // in the slot
    const meanwhile = await pages.render(ids.slice(0, 1), apiKeyId()); // the slot is still being sent
    expect(meanwhile.bytes.buffer).not.toBe(slots.shared);
    expect(meanwhile.bytes.toString('utf8')).toBe(oneOrder);
    expect(small.bytes.toString('utf8')).toBe(oneOrder); // not overwritten by the second page
    small.done();
    small.done(); // once is enough; twice does not free the slot twice
    expect(slots.take()).toBe(0);
    expect(slots.take()).toBe(-1);
    slots.give(0);

    const large = await pages.render(ids, apiKeyId());
    expect(large.bytes.buffer).not.toBe(slots.shared); // did not fit
    expect(large.bytes.toString('utf8')).toBe(expected);
    expect(slots.take()).toBe(0); // and the slot was given back
  });

  it('run at the bulk work’s lower CPU priority, in their own thread', async () => {
    pages = createVoucherPages(box.db.sqlite.name, createByteSlots(1, 1024 * 1024));
    await pages.find({
      tenantId: box.tenantId,
      apiKeyId: apiKeyId(),
      limit: 10,
      offset: 0,
      order_by: 'created_at',
      order: 'asc',
    });
    const nice = (task: string) =>
      Number(
        fs
          .readFileSync(`/proc/self/task/${task}/stat`, 'utf8')
          .replace(/^.*\) /, '')
          .split(' ')[16],
      );
    const niceValues = fs.readdirSync('/proc/self/task').map(nice);
    expect(nice(String(process.pid))).toBe(0);
    expect(niceValues).toContain(19);
  });
});

describe('listing with marking', () => {
  it('never hands the same new order to two calls of one key made at once', async () => {
    const list = () =>
      box.app.inject({
        method: 'GET',
        url: '/api/v1/api-vouchers?sincronizado=false&limit=5',
        headers: { 'x-api-key': box.keys.vouchers },
      });
    const answers = await Promise.all([list(), list(), list()]);
    const numbers = answers.map((a) =>
      (a.json().data.pedidos as { numero_pedido: string }[]).map((p) => p.numero_pedido),
    );
    expect(numbers.map((n) => n.length).sort()).toEqual([2, 5, 5]);
    expect(new Set(numbers.flat()).size).toBe(12);
    // Each page shows the marks its own call made.
    for (const a of answers)
      for (const p of a.json().data.pedidos as { sincronizado: boolean }[]) expect(p.sincronizado).toBe(true);
  });
});
