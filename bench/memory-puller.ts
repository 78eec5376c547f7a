import { gzipSync } from 'node:zlib';
import pino from 'pino';
import type { Clock } from '../src/clock.js';
import type { Db } from '../src/db/open.js';
import type { CloudClient, VoucherPage } from '../src/sync/cloud-client.js';
import { checkedPage } from '../src/sync/page-splitter.js';
import { createOrderPuller, DEFAULT_PULL } from '../src/sync/pull.js';
import { createSyncState } from '../src/sync/state.js';
import { makeOrder } from '../test/support/fixtures.js';

const PAGE = 1000;

function pagesOf(n: number, firstDay: number): VoucherPage[] {
  const pages: VoucherPage[] = [];
  for (let p = 0; p * PAGE < n; p++) {
    const list = Array.from({ length: Math.min(PAGE, n - p * PAGE) }, (_, j) => {
      const i = p * PAGE + j;
      const numero = `${firstDay + Math.floor(i / 10_000)}-${String(i % 10_000).padStart(4, '0')}`;
      return makeOrder({ numero, prefix: `B${i}`, people: 2, dataUso: '2026-12-25' });
    });
    const body = Buffer.from(JSON.stringify({ success: true, data: { pedidos: list } }));
    const checked = checkedPage(list);
    pages.push({ ...checked, refs: checked.refs.map(String), received: list.length, body, packed: gzipSync(body) });
  }
  return pages;
}

/**
 * The real puller fed `orders` new orders of 2 people in pages of 1,000, built beforehand and handed over as fast as it
 * takes them: the ingest's storing alone, without the cloud, HTTP or the splitting worker. `firstDay` is the date part
 * of the first order's numero (YYYYMMDD), so that the orders do not collide with a fill's.
 */
export function memoryPuller(db: Db, tenantId: number, clock: Clock, orders: number, firstDay = 20260101) {
  const pages = pagesOf(orders, firstDay);
  const empty = { ...checkedPage([]), refs: [], received: 0, body: Buffer.alloc(0), packed: null };
  const client = { listVouchers: () => Promise.resolve(pages.shift() ?? empty) } as unknown as CloudClient;
  const state = createSyncState(db, tenantId, clock);
  return createOrderPuller({
    db,
    clock,
    log: pino({ level: 'silent' }),
    client,
    tenantId,
    state,
    tuning: DEFAULT_PULL,
  });
}
