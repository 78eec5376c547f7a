import { Worker } from 'node:worker_threads';
import { LIST_KEYS } from './cloud-envelopes.js';

// A page of 1,000 orders is about 1 MB of JSON. JSON.parse of it takes 3 ms on the event loop, but
// its objects then stay alive while the page is validated and stored, and the young-generation GC
// copies them again and again: `npm run bench:sync` measured 15–20 ms pauses per page, the wait of
// every scan at that moment. So a worker thread parses the page and sends back one JSON string per
// item (strings cross threads as one cheap copy each); each item is parsed again on the event loop
// just before it is stored, and its objects die young.
// The worker finds the list as listItems() does (cloud-envelopes.ts: `data` itself, or the first
// array under LIST_KEYS); anything else (an error envelope, an empty page's `mensagem`) comes back
// parsed, and listItems() and successData() decide on the event loop: they are small.

const SPLITTER = `
const { parentPort, workerData } = require('node:worker_threads');
parentPort.on('message', ({ id, text, refField }) => {
  let body;
  try {
    body = JSON.parse(text);
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
  parentPort.postMessage({ id, items: list.map((item) => JSON.stringify(item)), refs: list.map(refOf) });
});`;

/** The items of a list answer as JSON strings with their reference field; or the parsed body when it holds no list; or malformed JSON. */
export type Split = { items: string[]; refs: (string | null)[] } | { body: unknown } | { malformed: true };

export interface PageSplitter {
  split(text: string, refField: string): Promise<Split>;
  close(): Promise<void>;
}

/** One worker thread, started on first use and restarted should it die; it never keeps the process alive. */
export function createPageSplitter(): PageSplitter {
  let worker: Worker | null = null;
  let nextId = 0;
  const pending = new Map<number, { resolve: (s: Split) => void; reject: (e: unknown) => void }>();

  const start = () => {
    const w = new Worker(SPLITTER, { eval: true, workerData: { listKeys: LIST_KEYS } });
    w.on('message', (m: Split & { id: number }) => {
      const { id, ...split } = m;
      pending.get(id)?.resolve(split as Split);
      pending.delete(id);
    });
    const fail = (error: unknown) => {
      if (worker === w) worker = null;
      for (const p of pending.values()) p.reject(error);
      pending.clear();
    };
    w.on('error', fail);
    w.on('exit', (code) => fail(new Error(`leitor de páginas encerrou (código ${code})`)));
    w.unref();
    return w;
  };

  return {
    split(text, refField) {
      worker ??= start();
      const id = nextId++;
      const w = worker;
      return new Promise((resolve, reject) => {
        pending.set(id, { resolve, reject });
        w.postMessage({ id, text, refField });
      });
    },
    async close() {
      const w = worker;
      worker = null;
      if (w) await w.terminate();
    },
  };
}
