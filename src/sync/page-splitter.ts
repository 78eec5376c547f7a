import { Worker } from 'node:worker_threads';
import { BULK_NICE, createWorkerClient } from '../lib/worker-client.js';
import { LIST_KEYS } from './cloud-envelopes.js';

// A page of 1,000 orders is about 1 MB of JSON. JSON.parse of it takes 3 ms on the event loop, but
// its objects then stay alive while the page is validated and stored, and the young-generation GC
// copies them again and again: `npm run bench:sync` measured 15–20 ms pauses per page, the wait of
// every scan at that moment. So a worker thread parses the page and sends back each item's JSON, all
// of them in one block of bytes (PageItems): a page, from the cloud's answer to its last order, is
// never a string on the event loop's heap, where the young-generation GC would copy it until it is
// promoted. Each item is decoded and parsed on the event loop just before it is stored, and its
// objects die young.
// The worker finds the list as listItems() does (cloud-envelopes.ts: `data` itself, or the first
// array under LIST_KEYS); anything else (an error envelope, an empty page's `mensagem`) comes back
// parsed, and listItems() and successData() decide on the event loop: they are small. It runs at the
// bulk work's lower CPU priority (BULK_NICE).

const SPLITTER = `
const { parentPort, workerData } = require('node:worker_threads');
try { require('node:os').setPriority(workerData.nice); } catch {}
const decoder = new TextDecoder();
parentPort.on('message', ({ id, bytes, refField, pack }) => {
  let body;
  try {
    body = JSON.parse(decoder.decode(bytes));
  } catch {
    parentPort.postMessage({ id, malformed: true });
    return;
  }
  const data = body && body.success === true ? body.data : undefined;
  let list = Array.isArray(data) ? data : null;
  if (!list && data && typeof data === 'object') for (const key of workerData.listKeys) if (Array.isArray(data[key])) { list = data[key]; break; }
  if (!list) {
    parentPort.postMessage({ id, body });
    return;
  }
  const refOf = (item) => {
    const v = item && typeof item === 'object' ? item[refField] : undefined;
    return typeof v === 'string' || typeof v === 'number' ? String(v) : null;
  };
  const texts = list.map((item) => Buffer.from(JSON.stringify(item)));
  const items = new Uint8Array(texts.reduce((n, t) => n + t.length, 0));
  const ends = new Uint32Array(texts.length);
  let at = 0;
  texts.forEach((t, i) => {
    items.set(t, at);
    ends[i] = at += t.length;
  });
  // A copy of its own: zlib's result may share its memory with other buffers, which cannot be transferred.
  const packed = pack ? new Uint8Array(require('node:zlib').gzipSync(bytes, { level: 1 })) : null;
  parentPort.postMessage({ id, items, ends, refs: list.map(refOf), packed }, [items.buffer, ends.buffer, ...(packed ? [packed.buffer] : [])]);
});`;

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

/** The items of a list answer as JSON in one block of bytes, with their reference field (and the page gzipped when asked); or the parsed body when it holds no list; or malformed JSON. */
export type Split = { items: PageItems; refs: (string | null)[]; packed: Buffer | null } | { body: unknown } | { malformed: true };

export interface PageSplitter {
  /** `bytes` are copied to the worker: the caller keeps them. `pack`: also gzip them (a page to keep). */
  split(bytes: Uint8Array, refField: string, pack?: boolean): Promise<Split>;
  close(): Promise<void>;
}

/** One worker thread (lib/worker-client.ts), started on first use and again should it die; it never keeps the process alive. */
export function createPageSplitter(): PageSplitter {
  type Answer = { items: Uint8Array; ends: Uint32Array; refs: (string | null)[]; packed: Uint8Array | null } | { body: unknown } | { malformed: true };
  const worker = createWorkerClient<{ bytes: Uint8Array; refField: string; pack: boolean }, Answer>(() => new Worker(SPLITTER, { eval: true, workerData: { listKeys: LIST_KEYS, nice: BULK_NICE } }), 'leitor de páginas');
  return {
    async split(bytes, refField, pack = false) {
      const answer = await worker.call({ bytes, refField, pack });
      if (!('items' in answer)) return answer;
      const packed = answer.packed && Buffer.from(answer.packed.buffer, answer.packed.byteOffset, answer.packed.byteLength);
      return { items: new PageItems(answer.items, answer.ends), refs: answer.refs, packed };
    },
    close: () => worker.close(),
  };
}
