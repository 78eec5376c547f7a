import os from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import { openDatabase } from '../db/open.js';
import { BULK_NICE } from '../lib/worker-client.js';
import { voucherPageJson, type PagesAsk } from './vouchers.page.js';
import { findOrderIds } from './vouchers.repo.js';

// The vouchers listing's pages, made off the event loop (vouchers.page.ts), at the bulk work's
// lower CPU priority.

const { file, shared, slotBytes } = workerData as { file: string; shared: SharedArrayBuffer; slotBytes: number };
const encoder = new TextEncoder();
const db = openDatabase(file);
db.sqlite.pragma('query_only = ON');
try {
  os.setPriority(BULK_NICE);
} catch {
  // Not allowed here (a sandbox): the pages are still made off the event loop.
}

// A page goes into the answer slot the event loop gave (lib/byte-slots.ts), or into a buffer of its
// own when there is none or it does not fit.
function render(
  { orderIds, apiKeyId, slot }: { orderIds: readonly number[]; apiKeyId: number; slot: number },
  id: number,
) {
  const text = voucherPageJson(db, orderIds, apiKeyId);
  if (slot >= 0) {
    const { read, written } = encoder.encodeInto(text, new Uint8Array(shared, slot * slotBytes, slotBytes));
    if (read === text.length) return parentPort!.postMessage({ id, written });
  }
  const bytes = encoder.encode(text);
  parentPort!.postMessage({ id, bytes }, [bytes.buffer as ArrayBuffer]);
}

parentPort!.on('message', ({ id, ...question }: PagesAsk & { id: number }) => {
  try {
    if ('find' in question) parentPort!.postMessage({ id, ids: findOrderIds(db, question.find) });
    else render(question.render, id);
  } catch (error) {
    parentPort!.postMessage({ id, error: error instanceof Error ? error.message : String(error) });
  }
});
