import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { Agent, request } from 'undici';
import { createApiKey } from '../src/auth/api-keys.js';
import { createClock } from '../src/clock.js';
import { openDatabase } from '../src/db/open.js';
import { findTenant } from '../src/tenants/tenants.repo.js';
import { TENANT, fillDatabase, qrOf } from './fill.js';
import { runClosedLoop, startChild, type Child } from './load.js';
import { addBenchOperator, openParkClients, type ParkClients } from './park-clients.js';
import { heading, int, machine, mb, measured, out, table } from './report.js';
import type { HeapParts } from './server-child.js';
import { mapParts, type MapParts } from './smaps.js';

// `npm run bench:memory` (issue 25, point 3): the box's peak resident memory over a full day on a 1,000,000-person
// database, run as `npm start` runs it (bench/server-child.ts 'box'), with the console signed in and its live feed
// open and /metrics scraped (bench/park-clients.ts). Every person is checked in once, by a closed loop, and the
// day's other requests come beside it: duplicates and unknown QRs in the loop, reversals (each checked in again),
// console searches and orders, vouchers listings of 1,000 orders. The child's memory is sampled throughout: RSS
// and its peak (VmHWM), V8's heap, external memory and array buffers, and the resident mappings (bench/smaps.ts).
// A measurement, not a test: exits 0 when the target is missed, 1 when the run broke, 2 when the database
// disagrees with the day.

const ORDERS = Number(process.env.BENCH_ORDERS ?? 250_000); // × 4 people
/** BENCH_CHECKINS: a shorter day (people checked in), to compare variants quickly; the day is everyone. */
const CHECKINS = process.env.BENCH_CHECKINS ? Number(process.env.BENCH_CHECKINS) : undefined;
const CONNECTIONS = 64;
const CHUNK = 50_000;
/** In the loop: every DUPLICATE_EVERY-th request scans someone already in, every UNKNOWN_EVERY-th an unknown QR. */
const DUPLICATE_EVERY = 50;
const UNKNOWN_EVERY = 200;
/** Beside the loop, ms between: a reversal and its new check-in, a console search, a vouchers page of 1,000. */
const SIDE = { reversal: 100, search: 1_000, vouchers: 10_000 };
const SAMPLE_MS = 500;
const TARGET_MB = 250;
const CHECKIN = '/api/v1/api-qrcode-checkin';

const workDir = path.resolve('.bench-memory');
const dbFile = path.join(workDir, 'memory.db');
/** BENCH_NODE_FLAGS: node flags for the box child (as bench/checkin.bench.ts). */
const execArgv = (process.env.BENCH_NODE_FLAGS ?? '').split(' ').filter(Boolean);

interface Sample extends HeapParts, MapParts {
  at: number;
  people: number;
  rss: number;
  hwm: number;
  wal: number;
}

async function main(): Promise<number> {
  fs.rmSync(workDir, { recursive: true, force: true });
  fs.mkdirSync(workDir, { recursive: true });
  let box: Child | null = null;
  try {
    return await run((c) => (box = c));
  } finally {
    await (box as Child | null)?.stop().catch(() => undefined);
    fs.rmSync(workDir, { recursive: true, force: true });
  }
}

async function run(started: (c: Child) => void): Promise<number> {
  out('Gate appliance memory over a day (issue 25, point 3)');
  out(`started ${new Date().toISOString()}; work dir ${workDir} (deleted at the end)`);
  machine().forEach((l) => out(l));

  heading('1. Fill');
  const fill = await filled();
  const readKey = addReadKey(dbFile);
  out(
    `${int(fill.people)} people in ${int(fill.orders)} orders, filled in ${fill.seconds.toFixed(1)} s; ${mb(fill.bytes)}`,
  );

  heading('2. The box (server-child box: main.ts logger at info to a file, metrics, console)');
  const box = await startChild(['box', dbFile], execArgv);
  started(box);
  const base = `http://127.0.0.1:${box.port}`;
  out(`pid ${box.pid}${execArgv.length ? `; node ${execArgv.join(' ')}` : ''}`);
  const park = await openParkClients(base);
  const samples: Sample[] = [];
  let people = 0;
  const sample = async () => {
    const [mem, heap] = await Promise.all([box.mem(), box.heap()]);
    samples.push({ at: Date.now(), people, ...mem, ...heap, ...mapParts(box.pid) });
  };
  await sample();
  const startRow = samples[0]!;

  const day = Math.min(CHECKINS ?? fill.people, fill.people);
  heading(`3. The day: ${int(day)} check-ins, ${CONNECTIONS} connections, closed loop, with the day's other requests`);
  let n = 0;
  let unknown = 0;
  const body = () => {
    n++;
    let qr: string;
    if (n % UNKNOWN_EVERY === 0) qr = `QX${String(unknown++).padStart(8, '0')}`;
    else if (n % DUPLICATE_EVERY === 0 && people > 0) qr = qrOf(Math.floor(Math.random() * people));
    else qr = qrOf(people++);
    return JSON.stringify({ qr_code: qr, terminal: 'bench' });
  };
  const side = sideTraffic(base, fill.apiKey, readKey, park, () => people);
  const timer = setInterval(() => void sample().catch(() => undefined), SAMPLE_MS);
  const startedAt = Date.now();
  const chunks: {
    people: number;
    seconds: number;
    rps: number;
    statuses: Record<string, number>;
    cpu: { server: number; serverMain: number };
    others: number;
    completed: number;
  }[] = [];
  // Observed a chunk at a time: the child keeps every request's time meanwhile, which would grow all day.
  const gc = { count: 0, totalMs: 0, maxMs: 0 };
  while (people < day) {
    // A chunk's amount covers its new people and the duplicates and unknown QRs among them.
    const left = day - people;
    const amount = Math.max(1, Math.floor(Math.min(CHUNK, left) / (1 - 1 / DUPLICATE_EVERY - 1 / UNKNOWN_EVERY)));
    const stopObserving = await box.observe();
    const r = await measured([box.pid], box.pid, () =>
      runClosedLoop({
        url: `${base}${CHECKIN}`,
        headers: { 'x-api-key': fill.apiKey },
        nextBody: () => (people < day ? body() : JSON.stringify({ qr_code: qrOf(0), terminal: 'bench' })),
        connections: CONNECTIONS,
        amount,
      }),
    );
    const observed = (await stopObserving()).gc;
    Object.assign(gc, {
      count: gc.count + observed.count,
      totalMs: gc.totalMs + observed.totalMs,
      maxMs: Math.max(gc.maxMs, observed.maxMs),
    });
    chunks.push({
      people,
      seconds: r.seconds,
      rps: r.rps,
      statuses: r.statusCodes,
      cpu: r.cpu,
      others: r.others,
      completed: r.completed,
    });
    const last = samples.at(-1)!;
    out(
      `  ${int(people)} in: RSS ${mb(last.rss)}, VmHWM ${mb(last.hwm)}, heapTotal ${mb(last.heapTotal)}, ${int(r.rps)} req/s`,
    );
    if (r.errors + r.timeouts > 0) throw new Error(`${r.errors} errors, ${r.timeouts} timeouts in the loop`);
  }
  const dayMs = Date.now() - startedAt;
  const sides = await side.stop();
  clearInterval(timer);
  await sample();
  const feed = park.counts();
  await park.close();
  await box.stop();

  table([
    ['loop chunk ends at', 'seconds', 'req/s', 'CPU/req box (main thread)', 'others', 'statuses'],
    ...chunks.map((c) => [
      int(c.people),
      c.seconds.toFixed(1),
      int(c.rps),
      `${int((c.cpu.server * 1e6) / c.completed)} (${int((c.cpu.serverMain * 1e6) / c.completed)}) µs`,
      `${int(c.others)}%`,
      Object.entries(c.statuses)
        .map(([s, k]) => `${s}:${k}`)
        .join(' '),
    ]),
  ]);
  out(`day: ${(dayMs / 1000).toFixed(0)} s; beside the loop:`);
  sides.forEach((line) => out(`  ${line}`));
  const all = (f: (c: (typeof chunks)[number]) => number) => chunks.reduce((n, c) => n + f(c), 0);
  out(
    `box CPU per loop request over the day: ${int((all((c) => c.cpu.server) * 1e6) / all((c) => c.completed))} µs (main thread ${int((all((c) => c.cpu.serverMain) * 1e6) / all((c) => c.completed))} µs); GC on the main thread: ${int(gc.count)} pauses, ${int(gc.totalMs)} ms in all (${((gc.totalMs * 1e3) / all((c) => c.completed)).toFixed(1)} µs per loop request), longest ${gc.maxMs.toFixed(1)} ms`,
  );
  out(`console feed ${mb(feed.feedBytes)}, /metrics scraped ${feed.scrapes} times`);

  heading(`4. Memory of the box (${samples.length} samples every ${SAMPLE_MS} ms)`);
  const rows = [startRow, ...everyTenth(samples), samples.at(-1)!];
  const peak = samples.reduce((a, b) => (b.rss > a.rss ? b : a));
  table([
    [
      'at (checked in)',
      'RSS',
      'VmHWM',
      'heapUsed',
      'heapTotal',
      'new space',
      'external',
      'arrayBuf',
      'anon',
      'brk',
      'WAL idx',
      'code',
      'WAL',
    ],
    ...rows.map((s) => row(s === peak ? `${int(s.people)} (peak RSS)` : int(s.people), s)),
    row(`${int(peak.people)} (peak RSS)`, peak),
  ]);
  const hwm = Math.max(...samples.map((s) => s.hwm));
  const max = (f: (s: Sample) => number) => mb(Math.max(...samples.map(f)));
  out(
    `max over the day: heapTotal ${max((s) => s.heapTotal)}, heapUsed ${max((s) => s.heapUsed)}, external ${max((s) => s.external)}, arrayBuffers ${max((s) => s.arrayBuffers)}, anonymous ${max((s) => s.anonymous)}, brk heap ${max((s) => s.brkHeap)}`,
  );
  out(
    `growth start → end: RSS ${mb(samples.at(-1)!.rss - startRow.rss)}, heapUsed ${mb(samples.at(-1)!.heapUsed - startRow.heapUsed)}, brk heap ${mb(samples.at(-1)!.brkHeap - startRow.brkHeap)}`,
  );

  const checkedIn = countCheckedIn(dbFile);
  out(`people checked in at the end of the day (database): ${int(checkedIn)} of ${int(day)}`);
  out(`TARGET peak RSS < ${TARGET_MB} MB: ${mb(hwm)} ${hwm < TARGET_MB * 1024 * 1024 ? 'met' : 'MISSED'}`);
  return checkedIn === day ? 0 : 2;
}

/**
 * The filled database, with the console's operator. BENCH_FILL_CACHE=<file>: filled once into that file and copied
 * from it by later runs of the same day (comparing variants on a busy machine; the fill takes a minute or more).
 */
async function filled() {
  const cache = process.env.BENCH_FILL_CACHE;
  const clock = createClock('America/Sao_Paulo');
  const meta = cache && `${cache}.json`;
  if (cache && meta && fs.existsSync(meta)) {
    const fill = JSON.parse(fs.readFileSync(meta, 'utf8')) as Awaited<ReturnType<typeof fillDatabase>>;
    if (fill.today === clock.today() && fill.orders === ORDERS) {
      fs.copyFileSync(cache, dbFile);
      return fill;
    }
  }
  const fill = await fillDatabase(dbFile, clock, ORDERS);
  await addBenchOperator(dbFile);
  if (cache && meta) {
    fs.copyFileSync(dbFile, cache);
    fs.writeFileSync(meta, JSON.stringify(fill));
  }
  return fill;
}

const row = (label: string, s: Sample) => [
  label,
  mb(s.rss),
  mb(s.hwm),
  mb(s.heapUsed),
  mb(s.heapTotal),
  mb(s.newSpace),
  mb(s.external),
  mb(s.arrayBuffers),
  mb(s.anonymous),
  mb(s.brkHeap),
  mb(s.walIndex),
  mb(s.nodeBinary + s.libraries),
  mb(s.wal),
];

const everyTenth = (xs: Sample[]) => xs.filter((_, i) => i > 0 && i % Math.max(1, Math.floor(xs.length / 10)) === 0);

/** A key that may read the vouchers listing, as an ERP's (before the box opens the file). */
function addReadKey(file: string): string {
  const db = openDatabase(file);
  try {
    const tenantId = findTenant(db, TENANT)!.id;
    const nowIso = new Date().toISOString();
    return createApiKey(db, { tenantId, name: 'bench-erp', permissions: ['vouchers:read'], nowIso }).key;
  } finally {
    db.close();
  }
}

function countCheckedIn(file: string): number {
  const db = new Database(file, { readonly: true });
  try {
    return db.prepare('SELECT count(*) FROM people WHERE checkin_em IS NOT NULL').pluck().get() as number;
  } finally {
    db.close();
  }
}

/**
 * The day's requests beside the turnstiles' loop, each kind on its own timer; stop() resolves to their statuses and
 * times (p50 and max, ms).
 */
function sideTraffic(base: string, key: string, readKey: string, park: ParkClients, people: () => number) {
  const agent = new Agent({ connections: 4 });
  const counts: Record<string, Record<number, number>> = {};
  const times: Record<string, number[]> = {};
  const count = (kind: string, status: number, ms = NaN) => {
    const c = (counts[kind] ??= {});
    c[status] = (c[status] ?? 0) + 1;
    if (!Number.isNaN(ms)) (times[kind] ??= []).push(ms);
  };
  const call = async (kind: string, method: 'GET' | 'POST' | 'PATCH', url: string, apiKey: string, body?: object) => {
    const started = performance.now();
    const res = await request(`${base}${url}`, {
      method,
      dispatcher: agent,
      headers: { 'x-api-key': apiKey, ...(body ? { 'content-type': 'application/json' } : {}) },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    await res.body.dump({ limit: Infinity });
    count(kind, res.statusCode, performance.now() - started);
  };
  const random = (below: number) => Math.floor(Math.random() * Math.max(1, below));
  const kinds: Record<keyof typeof SIDE, () => Promise<unknown>> = {
    // A person let in by mistake: reversed at the console's request, then scanned again.
    reversal: async () => {
      const body = { qr_code: qrOf(Math.max(0, people() - 1_000 + random(500))), terminal: 'bench-console' };
      await call('reversal', 'PATCH', CHECKIN, key, body);
      await call('checkin again', 'POST', CHECKIN, key, body);
    },
    search: async () => {
      const n = random(people() + 1);
      const q = [`Pessoa ${n}`, qrOf(n), `p${n}@example.com`][n % 3]!;
      const started = performance.now();
      const { status } = await park.consoleGet(`/api/console/busca?q=${encodeURIComponent(q)}`);
      count('console search', status, performance.now() - started);
    },
    vouchers: () =>
      call('vouchers 1000', 'GET', `/api/v1/api-vouchers?limit=1000&offset=${random(900) * 1000}`, readKey),
  };
  let stopping = false;
  const loops = Object.entries(SIDE).map(async ([kind, every]) => {
    while (!stopping) {
      await new Promise((r) => setTimeout(r, every));
      await kinds[kind as keyof typeof SIDE]().catch(() => count(kind, 0));
    }
  });
  return {
    async stop() {
      stopping = true;
      await Promise.all(loops);
      await agent.close();
      return Object.entries(counts).map(([kind, statuses]) => {
        const ms = (times[kind] ?? []).sort((a, b) => a - b);
        const at = (q: number) =>
          ms.length ? ms[Math.min(ms.length - 1, Math.floor(q * ms.length))]!.toFixed(0) : '-';
        return `${kind} ${JSON.stringify(statuses)} p50 ${at(0.5)} ms, max ${at(1)} ms`;
      });
    },
  };
}

main().then(
  (code) => (process.exitCode = code),
  (error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  },
);
