import { Worker } from 'node:worker_threads';
import { compiledWorker, createWorkerClient } from '../lib/worker-client.js';
import { pedidoSchema } from '../orders/order.schemas.js';
import { listItems, rejectReason } from './cloud-envelopes.js';

// A page of 1,000 orders is about 1 MB of JSON. Parsed and validated on the event loop, its objects
// stay alive while the page is stored and the young-generation GC copies them again and again:
// `npm run bench:sync` measured 15–20 ms pauses per page, the wait of every scan at that moment. So
// a worker thread (page-splitter.worker.ts, at the bulk work's lower CPU priority) parses the page,
// validates each order with the import schema (pedidoSchema) and sends back the JSON of each valid
// order as the schema outputs it, or why it does not fit, all of them in one block of bytes
// (PageItems). The event loop then only parses each order just before it is stored, and its objects
// die young: validation was a fifth of its time per order, and half of its garbage.
// The worker finds the list with listItems() (cloud-envelopes.ts); anything else (an error envelope)
// comes back parsed, and successData() decides on the event loop: it is small.

const decoder = new TextDecoder();

/** The JSON texts of a page's items, in one block of bytes (item i ends at ends[i]). */
export class PageItems {
  constructor(
    readonly bytes: Uint8Array,
    readonly ends: Uint32Array,
  ) {}

  static of(texts: string[]): PageItems {
    const encoded = texts.map((t) => Buffer.from(t));
    const ends = new Uint32Array(encoded.length);
    let at = 0;
    encoded.forEach((e, i) => (ends[i] = at += e.length));
    return new PageItems(Buffer.concat(encoded), ends);
  }

  get length(): number {
    return this.ends.length;
  }

  /** Item i's JSON text. */
  at(i: number): string {
    return decoder.decode(this.bytes.subarray(i === 0 ? 0 : this.ends[i - 1], this.ends[i]));
  }
}

/**
 * An order checked against the import schema: its JSON as the schema outputs it, or why it does not fit (and no JSON).
 */
export type CheckedOrder = { json: string; reason: null } | { json: ''; reason: string };

export function checkOrder(raw: unknown): CheckedOrder {
  const parsed = pedidoSchema.safeParse(raw);
  return parsed.success
    ? { json: JSON.stringify(parsed.data), reason: null }
    : { json: '', reason: rejectReason(parsed.error) };
}

/** The order number of an item as the cloud sent it, whatever the item is. */
export function orderRef(item: unknown): string | null {
  const v = item && typeof item === 'object' ? (item as Record<string, unknown>).numero_pedido : undefined;
  return typeof v === 'string' || typeof v === 'number' ? String(v) : null;
}

/** The list of a successful list answer, found by listItems(); null for anything else. */
export function findList(body: unknown): unknown[] | null {
  if (!body || typeof body !== 'object' || (body as { success?: unknown }).success !== true) return null;
  try {
    return listItems((body as { data?: unknown }).data);
  } catch {
    return null;
  }
}

/**
 * The orders of a page: each valid one's JSON (as pedidoSchema outputs it), each one's order number, and why each
 * invalid one does not fit (null for valid ones).
 */
export interface CheckedPage {
  items: PageItems;
  refs: (string | null)[];
  reasons: (string | null)[];
}

/**
 * The orders of a page (and the page gzipped when asked); or the parsed body when it holds no list; or malformed JSON.
 */
export type Split = (CheckedPage & { packed: Buffer | null }) | { body: unknown } | { malformed: true };

export interface SplitAsk {
  bytes: Uint8Array;
  pack: boolean;
}

export interface PageSplitter {
  /** `bytes` are copied to the worker: the caller keeps them. `pack`: also gzip them (a page to keep). */
  split(bytes: Uint8Array, pack?: boolean): Promise<Split>;
  close(): Promise<void>;
}

/** Orders found some other way than in the worker (listItems() on the event loop), checked in the same way. */
export function checkedPage(list: unknown[]): CheckedPage {
  const checked = list.map(checkOrder);
  return {
    items: PageItems.of(checked.map((c) => c.json)),
    refs: list.map(orderRef),
    reasons: checked.map((c) => c.reason),
  };
}

/**
 * One worker thread (lib/worker-client.ts), started on first use and again should it die; it never keeps the process
 * alive.
 */
export function createPageSplitter(): PageSplitter {
  type Answer =
    | {
        items: Uint8Array;
        ends: Uint32Array;
        refs: (string | null)[];
        reasons: (string | null)[];
        packed: Uint8Array | null;
      }
    | { body: unknown }
    | { malformed: true };
  const worker = createWorkerClient<SplitAsk, Answer>(
    () => new Worker(compiledWorker(import.meta.url, './page-splitter.worker.js')),
    'leitor de páginas',
  );
  return {
    async split(bytes, pack = false) {
      const answer = await worker.call({ bytes, pack });
      if (!('items' in answer)) return answer;
      const packed =
        answer.packed && Buffer.from(answer.packed.buffer, answer.packed.byteOffset, answer.packed.byteLength);
      return { items: new PageItems(answer.items, answer.ends), refs: answer.refs, reasons: answer.reasons, packed };
    },
    close: () => worker.close(),
  };
}
