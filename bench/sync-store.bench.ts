import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { createClock } from '../src/clock.js';
import { migrateToLatest, openDatabase } from '../src/db/open.js';
import { startSearchUpkeep } from '../src/db/search-index.js';
import { ensureTenant } from '../src/tenants/tenants.repo.js';
import { memoryPuller } from './memory-puller.js';
import { out, summarise, writtenBytes } from './report.js';

// `npm run build && node dist/bench/sync-store.bench.js`: the ingest's storing alone, without the cloud, HTTP or the
// splitting worker: BENCH_ORDERS orders (default 20,000) in pages of 1,000 handed to the real puller as fast as it
// takes them, while a durable foreground write every 20 ms stands for a scan, and the search index's upkeep moves the
// documents into the FTS5 tables as the box's does. On a shared machine bench:sync's
// ingest rate can be the fake cloud's; this one is the box's. A measurement: it always exits 0 unless it broke.

const ORDERS = Number(process.env.BENCH_ORDERS ?? 20_000);

async function main() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gate-sync-store-'));
  try {
    const clock = createClock('America/Sao_Paulo');
    const db = openDatabase(path.join(dir, 'gate.db'));
    await migrateToLatest(db);
    const tenantId = ensureTenant(db, 'parque', clock.nowIso());
    db.sqlite.exec('CREATE TABLE scans (at TEXT)');
    const puller = memoryPuller(db, tenantId, clock, ORDERS);

    const scan = db.sqlite.prepare('INSERT INTO scans (at) VALUES (?)');
    const scans: number[] = [];
    let storing = true;
    const scanning = (async () => {
      while (storing) {
        const t = performance.now();
        await db.writes.run(() => scan.run(clock.nowIso()));
        scans.push(performance.now() - t);
        await new Promise((r) => setTimeout(r, 20));
      }
    })();
    const pieces: number[] = [];
    db.writes.observe({
      committed: (priority, _units, ms) => void (priority === 'background' && pieces.push(ms)),
      synced: () => undefined,
      failed: () => undefined,
    });
    const loop = monitorEventLoopDelay({ resolution: 1 });
    loop.enable();
    const cpu = process.cpuUsage();
    const t = performance.now();
    const written0 = writtenBytes(process.pid) ?? 0;
    // The search index's upkeep, as the box runs it beside the ingest (src/db/search-index.ts).
    const upkeep = startSearchUpkeep({ db });
    const stored = await puller.incremental(new AbortController().signal);
    const seconds = (performance.now() - t) / 1000;
    const waiting = db.sqlite.prepare('SELECT count(*) FROM search_pending').pluck().get() as number;
    const settling = performance.now();
    await upkeep.settled();
    const settled = performance.now() - settling;
    const written = (writtenBytes(process.pid) ?? 0) - written0;
    await upkeep.close();
    const used = process.cpuUsage(cpu);
    storing = false;
    await scanning;
    loop.disable();
    const s = summarise(scans);
    const b = summarise(pieces);
    out(
      `${stored} orders in ${seconds.toFixed(2)} s: ${Math.round(stored / seconds)} orders/s, ${Math.round((used.user + used.system) / stored)} µs of CPU per order (all threads); load ${os.loadavg()[0]!.toFixed(2)}`,
    );
    out(`written: ${(written / stored / 1024).toFixed(2)} KiB per order (storing and settling)`);
    out(`search index: ${waiting} documents pending at the last page, all moved ${settled.toFixed(0)} ms later`);
    out(
      `scan writes meanwhile: ${s.n}, p50 ${s.p50.toFixed(1)} ms, p99 ${s.p99.toFixed(1)} ms, max ${s.max.toFixed(1)} ms; event-loop delay p99 ${(loop.percentile(99) / 1e6).toFixed(1)} ms, max ${(loop.max / 1e6).toFixed(1)} ms`,
    );
    out(
      `background pieces (BEGIN to COMMIT): ${b.n}, p50 ${b.p50.toFixed(1)} ms, p99 ${b.p99.toFixed(1)} ms, max ${b.max.toFixed(1)} ms`,
    );
    db.close();
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
