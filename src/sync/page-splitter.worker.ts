import os from 'node:os';
import { parentPort } from 'node:worker_threads';
import { gzipSync } from 'node:zlib';
import { BULK_NICE } from '../lib/worker-client.js';
import { checkOrder, findList, orderRef, type SplitAsk } from './page-splitter.js';

// The page splitter's thread (page-splitter.ts), at the bulk work's lower CPU priority.

try {
  os.setPriority(BULK_NICE);
} catch {
  // Not allowed here (a sandbox): the pages are still split off the event loop.
}
const decoder = new TextDecoder();
const encoder = new TextEncoder();

parentPort!.on('message', ({ id, bytes, pack }: SplitAsk & { id: number }) => {
  let body: unknown;
  try {
    body = JSON.parse(decoder.decode(bytes));
  } catch {
    return parentPort!.postMessage({ id, malformed: true });
  }
  const list = findList(body);
  if (!list) return parentPort!.postMessage({ id, body });
  const checked = list.map(checkOrder);
  const texts = checked.map((c) => encoder.encode(c.json));
  const items = new Uint8Array(texts.reduce((n, t) => n + t.length, 0));
  const ends = new Uint32Array(texts.length);
  let at = 0;
  texts.forEach((t, i) => {
    items.set(t, at);
    ends[i] = at += t.length;
  });
  // A copy of its own: zlib's result may share its memory with other buffers, which cannot be transferred.
  const packed = pack ? new Uint8Array(gzipSync(bytes, { level: 1 })) : null;
  const transfer = [items.buffer, ends.buffer, ...(packed ? [packed.buffer] : [])] as ArrayBuffer[];
  parentPort!.postMessage(
    { id, items, ends, refs: list.map(orderRef), reasons: checked.map((c) => c.reason), packed },
    transfer,
  );
});
