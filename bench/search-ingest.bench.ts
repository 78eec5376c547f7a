import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { createClock } from '../src/clock.js';
import { searchOrders } from '../src/console/search.repo.js';
import { openDatabase, type Db } from '../src/db/open.js';
import { startSearchUpkeep } from '../src/db/search-index.js';
import { ensureTenant } from '../src/tenants/tenants.repo.js';
import { fillDatabase } from './fill.js';
import { memoryPuller } from './memory-puller.js';
import { out, summarise } from './report.js';

// `npm run build && node dist/bench/search-ingest.bench.js` (issue 25 (2b)): which statements of a sync ingest hold
// the event loop. Fills BENCH_FILL orders × 4 people (bench/fill.ts), then stores BENCH_INGEST orders × 2 people
// through the real puller (pages from memory, as bench/sync-store.bench.ts) with the search index's upkeep running as
// the box runs it, and times every statement run by its CPU (process.cpuUsage, so a busy machine's preemption is not
// counted): per SQL text, how many took over 3, 5 and 10 ms. Also the background pieces (BEGIN to COMMIT, wall time),
// and every 100 pieces the documents pending and the time of a name search. A diagnosis, not a test: exits 0.

const FILL = Number(process.env.BENCH_FILL ?? 50_000);
const INGEST = Number(process.env.BENCH_INGEST ?? 100_000);

/** Every statement run on any connection, timed by CPU: per SQL text (its first 60 characters), the runs over 3 ms. */
function timeStatements() {
  const slow = new Map<string, number[]>();
  const memory = new Database(':memory:');
  const proto = Object.getPrototypeOf(memory.prepare('SELECT 1')) as { run: (...args: unknown[]) => unknown };
  memory.close();
  const run = proto.run;
  proto.run = function (this: Database.Statement, ...args: unknown[]) {
    const before = process.cpuUsage();
    const result = run.apply(this, args);
    const used = process.cpuUsage(before);
    const ms = (used.user + used.system) / 1000;
    if (ms > 3) {
      const sql = this.source.replace(/\s+/g, ' ').slice(0, 60);
      slow.set(sql, [...(slow.get(sql) ?? []), ms]);
    }
    return result;
  };
  return slow;
}

function ingestWatch(db: Db, tenantId: number) {
  const pieces: number[] = [];
  const pending: number[] = [];
  const searches: number[] = [];
  const count = db.sqlite.prepare('SELECT count(*) FROM search_pending').pluck();
  db.writes.observe({
    committed: (priority, _units, ms) => {
      if (priority !== 'background') return;
      pieces.push(ms);
      if (pieces.length % 100 !== 0) return;
      pending.push(count.get() as number);
      const t = performance.now();
      searchOrders(db, tenantId, 'pessoa mar');
      searches.push(performance.now() - t);
    },
    synced: () => undefined,
    failed: () => undefined,
  });
  return { pieces, pending, searches };
}

async function main() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gate-search-ingest-'));
  try {
    const file = path.join(dir, 'gate.db');
    const clock = createClock('America/Sao_Paulo');
    await fillDatabase(file, clock, FILL);
    const db = openDatabase(file);
    const tenantId = ensureTenant(db, 'parque', clock.nowIso());
    const slow = timeStatements();
    const watch = ingestWatch(db, tenantId);
    const puller = memoryPuller(db, tenantId, clock, INGEST, 20270101);
    const upkeep = startSearchUpkeep({ db });
    const started = performance.now();
    const stored = await puller.incremental(new AbortController().signal);
    const seconds = (performance.now() - started) / 1000;
    await upkeep.settled();
    await upkeep.close();
    db.close();

    const b = summarise(watch.pieces);
    const p = summarise(watch.pending);
    const s = summarise(watch.searches);
    const f = (n: number) => n.toFixed(1);
    out(`${FILL * 4} people, then ${stored} orders of 2 in ${f(seconds)} s; load ${os.loadavg()[0]!.toFixed(2)}`);
    out(`background pieces: ${b.n}, p50 ${f(b.p50)}, p90 ${f(b.p90)}, p99 ${f(b.p99)}, max ${f(b.max)} ms`);
    out(`pending documents (every 100 pieces): p50 ${p.p50}, p99 ${p.p99}, max ${p.max}`);
    out(`a name search meanwhile: p50 ${f(s.p50)}, p99 ${f(s.p99)}, max ${f(s.max)} ms`);
    out('statement runs by CPU (over 3 / 5 / 10 ms, the longest):');
    for (const [sql, cpu] of slow) {
      const over = (ms: number) => cpu.filter((c) => c > ms).length;
      out(`  ${over(3)} / ${over(5)} / ${over(10)}, ${f(Math.max(...cpu))} ms: ${sql}`);
    }
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
