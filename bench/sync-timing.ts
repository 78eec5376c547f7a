import type { Db } from '../src/db/open.js';
import type { CloudClient } from '../src/sync/cloud-client.js';
import { int, summarise } from './report.js';

// What `npm run bench:sync` (sync.bench.ts) says about where the ingest's time went.

/**
 * Times the cloud's pages: the puller asks for page k+1 as soon as it has page k, and takes page k+1 once page k is
 * stored; so a page that sat ready before the next request says the box was the bottleneck, and none says the cloud.
 */
export function timedPages(client: CloudClient) {
  const calls: { start: number; end: number }[] = [];
  const timed: CloudClient = Object.assign(Object.create(client) as CloudClient, {
    async listVouchers(...args: Parameters<CloudClient['listVouchers']>) {
      const call = { start: performance.now(), end: NaN };
      calls.push(call);
      const page = await client.listVouchers(...args);
      call.end = performance.now();
      return page;
    },
  });
  return {
    client: timed,
    text() {
      const answer = calls.map((c) => c.end - c.start);
      const ready = calls.slice(1).map((c, i) => Math.max(0, c.start - calls[i]!.end));
      const s = (v: number[]) => (v.reduce((a, b) => a + b, 0) / 1000).toFixed(2);
      const m = summarise(answer);
      return `${calls.length} pages: the cloud's answer p50 ${m.p50.toFixed(0)} ms, max ${m.max.toFixed(0)} ms (${s(answer)} s in all); pages ready before the box took them: ${s(ready)} s`;
    },
  };
}

/**
 * The background commits while the ingest runs (nearly all of them its pieces; the bench's own probe goes in the
 * foreground): how long each held the write lock and the event loop, and the box's own rate over that time. Replaces
 * the box's metrics observer, which the bench does not read.
 */
export function timedPieces(db: Db) {
  const ms: number[] = [];
  db.writes.observe({
    committed: (priority, _units, took) => void (priority === 'background' && ms.push(took)),
    synced: () => undefined,
    failed: () => undefined,
  });
  return {
    stop: () => db.writes.observe(undefined),
    text(orders: number) {
      const s = summarise(ms);
      const busy = ms.reduce((a, b) => a + b, 0) / 1000;
      return `${int(ms.length)} background commits (pieces, kept pages): p50 ${s.p50.toFixed(2)} ms, p99 ${s.p99.toFixed(2)} ms, max ${s.max.toFixed(2)} ms; ${busy.toFixed(2)} s in all: ${int(orders / busy)} orders/s while storing`;
    },
  };
}
