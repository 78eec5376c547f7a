import { Worker } from 'node:worker_threads';
import type { Db } from '../db/open.js';
import { slotBytes, type ByteSlots, type Bytes } from '../lib/byte-slots.js';
import { compiledWorker, createWorkerClient } from '../lib/worker-client.js';
import { loadOrders, voucherPedido } from './order.payload.js';
import type { VoucherFilters } from './vouchers.repo.js';

/** Orders loaded and shaped at a time: bounds the objects alive at once, whatever the page size. */
const LOAD_SLICE = 50;

/**
 * The vouchers listing's answer for these orders (in this order), as the JSON text JSON.stringify of
 * `{ success, data: { pedidos, total } }` gives, read in one snapshot of the database.
 */
export function voucherPageJson(db: Db, orderIds: readonly number[], apiKeyId: number): string {
  return db.sqlite
    .transaction(() => {
      const parts: string[] = [];
      let total = 0;
      for (let from = 0; from < orderIds.length; from += LOAD_SLICE) {
        const slice = loadOrders(db, orderIds.slice(from, from + LOAD_SLICE), apiKeyId);
        total += slice.length;
        if (slice.length > 0) parts.push(JSON.stringify(slice.map((r) => voucherPedido(r))).slice(1, -1));
      }
      return `{"success":true,"data":{"pedidos":[${parts.join(',')}],"total":${total}}}`;
    })
    .deferred();
}

export interface VoucherPages {
  /** The ids of a page's orders (vouchers.repo.ts findOrderIds), looked up off the event loop. */
  find(filters: VoucherFilters): Promise<number[]>;
  /** The page, read and shaped off the event loop. */
  render(orderIds: readonly number[], apiKeyId: number): Promise<Bytes>;
  close(): Promise<void>;
}

export type PagesAsk =
  { find: VoucherFilters } | { render: { orderIds: readonly number[]; apiKeyId: number; slot: number } };
type Answer = { ids: number[] } | { written: number } | { bytes: Uint8Array } | { error: string };

/**
 * The vouchers listing off the event loop. A page of 1,000 orders is tens of milliseconds of reading,
 * shaping and serialising, and megabytes of short-lived objects whose garbage collection paused the
 * event loop: scans at the turnstiles waited behind it (issue 11). Finding a page far into the
 * listing walks an index over every order before it. So both are done by a worker thread with its own
 * read-only connection to the database file, at a lower CPU priority than the event loop
 * (vouchers.worker.ts), which writes each page into one of the box's answer slots
 * (lib/byte-slots.ts): the event loop only sends the bytes.
 */
export function createVoucherPages(file: string, slots: ByteSlots): VoucherPages {
  const worker = createWorkerClient<PagesAsk, Answer>(
    () =>
      new Worker(compiledWorker(import.meta.url, './vouchers.worker.js'), {
        workerData: { file, shared: slots.shared, slotBytes: slots.slotBytes },
      }),
    'leitor de vouchers',
  );
  const ask = async (question: PagesAsk) => {
    const answer = await worker.call(question);
    if ('error' in answer) throw new Error(`leitor de vouchers: ${answer.error}`);
    return answer;
  };
  return {
    async find(filters) {
      return ((await ask({ find: filters })) as { ids: number[] }).ids;
    },
    async render(orderIds, apiKeyId) {
      const slot = slots.take();
      const answer = await ask({ render: { orderIds, apiKeyId, slot } }).catch((error: unknown) => {
        slots.give(slot);
        throw error;
      });
      if ('written' in answer) return slotBytes(slots, slot, answer.written);
      slots.give(slot);
      if (!('bytes' in answer)) throw new Error('leitor de vouchers: resposta inesperada');
      return {
        bytes: Buffer.from(answer.bytes.buffer, answer.bytes.byteOffset, answer.bytes.byteLength),
        done: () => undefined,
      };
    },
    close: () => worker.close(),
  };
}
