import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { runClosedLoop, runFixedRate, type Child, type LoadResult } from './load.js';
import type { Observed } from './observe.js';
import { measured, summarise, type Measured } from './report.js';
import type { BenchHub } from './site-hub.js';
import { boxFile, door, paced, visibleAt, when, CHECKIN } from './site-load.js';

// The phases of site.bench.ts, each against real children: the boxes norte (A) and sul (B) on one hub, and a
// single box (site off) on its own copy of the same database.

export interface Rig {
  apiKey: string;
  hub: BenchHub;
  a: Child;
  single: Child;
  /** B is stopped and started again by the catch-up phase. */
  b: () => Child;
  restartB: () => Promise<Child>;
  stopB: () => Promise<void>;
  files: { a: string; b: string };
  /** Hands out never-used people of the shared database, in order. */
  people: () => string;
  /** Hands out never-used people of the single box's copy. */
  singlePeople: () => string;
  lastSeq: () => Promise<number>;
  pids: () => number[];
}

const loadOf = (r: Rig, c: Child, next: () => string, terminal: string, connections: number) => ({
  url: `http://127.0.0.1:${c.port}${CHECKIN}`,
  headers: { 'x-api-key': r.apiKey },
  nextBody: () => JSON.stringify({ qr_code: next(), terminal }),
  connections,
});

/** 1. Scans at A one at a time, a short pause between them; each timed until B's database shows it. */
export async function visibility(r: Rig, scans: number) {
  const a = door(r.a.port, r.apiKey);
  const b = boxFile(r.files.b);
  const rows: { status: number; answered: number; visible: number }[] = [];
  const [stopA, stopB] = [await r.a.observe(), await r.b().observe()];
  try {
    for (let i = 0; i < 20; i++) await visibleAt(a, b, r.people()); // warm-up
    for (let i = 0; i < scans; i++) {
      rows.push(await visibleAt(a, b, r.people()));
      await sleep(10);
    }
  } finally {
    await a.close();
    b.close();
  }
  return { rows, a: await stopA(), b: await stopB() };
}

export interface FixedRound {
  site: LoadResult & Measured;
  single: LoadResult & Measured;
}

/**
 * 2. The same fixed rate at A (site on, B applying) and at the single box, taking turns, `rounds` times. `withoutB`:
 * B stopped meanwhile, as if it were another machine (on loopback it shares A's 2 cores and disk); A still claims.
 */
export async function fixedRate(
  r: Rig,
  o: { rate: number; seconds: number; streams: number; rounds: number; withoutB?: boolean },
) {
  const site = loadOf(r, r.a, r.people, 'bench-a', 1);
  const single = loadOf(r, r.single, r.singlePeople, 'bench-single', 1);
  for (const l of [site, single]) await runClosedLoop({ ...l, connections: 10, amount: 2000 }); // warm-up
  if (o.withoutB) await r.stopB();
  const rounds: FixedRound[] = [];
  const [stopA, stopB, stopSingle] = [
    await r.a.observe(),
    o.withoutB ? undefined : await r.b().observe(),
    await r.single.observe(),
  ];
  const run = (l: typeof site, pid: number) =>
    measured(r.pids(), pid, () => runFixedRate({ ...l, rate: o.rate, seconds: o.seconds, streams: o.streams }));
  for (let i = 0; i < o.rounds; i++) {
    // The order alternates so that neither always runs first after a pause.
    if (i % 2 === 0) rounds.push({ site: await run(site, r.a.pid), single: await run(single, r.single.pid) });
    else {
      const s = await run(single, r.single.pid);
      rounds.push({ site: await run(site, r.a.pid), single: s });
    }
  }
  const seen = { rounds, a: await stopA(), b: await stopB?.(), single: await stopSingle() };
  if (o.withoutB) {
    // B back, and caught up, before the next phase measures a catch-up of its own.
    await r.restartB();
    const target = await r.lastSeq();
    const b = boxFile(r.files.b);
    try {
      await when('B to apply what A made while it was away', () => b.applied() >= target, 120_000, 20);
    } finally {
      b.close();
    }
  }
  return seen;
}

export interface CatchUp {
  movements: number;
  made: LoadResult;
  /** From B's process start to its HTTP door listening; from listening to everything applied (ms). */
  startMs: number;
  applyMs: number;
  /** From B's first newly applied batch to everything applied (ms). */
  firstToLastMs: number;
  modeSiteMs: number;
  during: ReturnType<typeof summarise> & { statuses: Record<number, number> };
  /** The same after B's first second of scans (a process just started: cold code, new connections). */
  warm: ReturnType<typeof summarise>;
  /** The slowest scan of each quarter of a second, from B's first scan on. */
  quarters: number[];
  /** B's own view of the catch-up: server-side latency, event-loop delay, GC, commits. */
  observed: Observed;
  reference: ReturnType<typeof summarise>;
}

/** 3. B stopped while A makes `movements` check-ins; B started again; B scanning at `rate` meanwhile. */
export async function catchUp(r: Rig, movements: number, rate: number): Promise<CatchUp> {
  await r.stopB();
  const made = await runClosedLoop({ ...loadOf(r, r.a, r.people, 'bench-a', 20), amount: movements });
  const target = await r.lastSeq();
  const before = (() => {
    const f = boxFile(r.files.b);
    const at = f.applied();
    f.close();
    return at;
  })();
  const t0 = performance.now();
  const b = await r.restartB();
  const tReady = performance.now();
  const stopB = await b.observe();
  const file = boxFile(r.files.b);
  let firstAt = NaN;
  const appliedAll = when(
    'B to apply every movement',
    () => {
      const at = file.applied();
      if (at > before && Number.isNaN(firstAt)) firstAt = performance.now();
      return at >= target;
    },
    120_000,
    2,
  );
  const tSite = await when('B in site mode', async () => (await b.site())?.modo === 'site', 60_000, 5);
  const d = door(b.port, r.apiKey, 100); // open loop: enough connections that none waits client-side
  const trickle = paced(d, rate, r.people, 'bench-b');
  const tDone = await appliedAll;
  await trickle.stop();
  const observed = await stopB();
  file.close();
  // The same trickle at the single box, for scale.
  const ds = door(r.single.port, r.apiKey, 100);
  const ref = paced(ds, rate, r.singlePeople, 'bench-single');
  await sleep(3000);
  await ref.stop();
  await Promise.all([d.close(), ds.close()]);
  const inWindow = trickle.samples.filter((s) => trickle.started + s.at <= tDone);
  const statuses: Record<number, number> = {};
  for (const s of trickle.samples) statuses[s.status] = (statuses[s.status] ?? 0) + 1;
  return {
    movements: target - before,
    made,
    startMs: tReady - t0,
    applyMs: tDone - tReady,
    firstToLastMs: tDone - firstAt,
    modeSiteMs: tSite - tReady,
    during: { ...summarise(inWindow.map((s) => s.ms)), statuses },
    warm: summarise(inWindow.filter((s) => s.at > 1000).map((s) => s.ms)),
    quarters: inWindow.reduce<number[]>((q, s) => {
      const i = Math.floor(s.at / 250);
      q[i] = Math.max(q[i] ?? 0, s.ms);
      return q;
    }, []),
    reference: summarise(ref.samples.map((s) => s.ms)),
    observed,
  };
}

export interface Backlog {
  made: LoadResult;
  pending: number;
  hubStartMs: number;
  /** From the hub ready to: A connected again, A's backlog empty, A back in site mode, B has it all (ms). */
  connectedMs: number;
  emptyMs: number;
  siteMs: number;
  bAppliedMs: number;
}

/** 4. The hub stopped; A decides `movements` check-ins alone; the hub back: until A's backlog is empty. */
export async function backlog(r: Rig, movements: number): Promise<Backlog> {
  await r.hub.stop();
  await when('A in local mode', async () => (await r.a.site())?.modo === 'local', 30_000, 20);
  const made = await runClosedLoop({ ...loadOf(r, r.a, r.people, 'bench-a', 20), amount: movements });
  const a = boxFile(r.files.a);
  const b = boxFile(r.files.b);
  const pending = a.backlog();
  try {
    const t0 = performance.now();
    await r.hub.restart();
    const tReady = performance.now();
    const watch = async (what: string, ready: () => boolean | Promise<boolean>) =>
      (await when(what, ready, 120_000, 2)) - tReady;
    const [connectedMs, emptyMs, siteMs] = await Promise.all([
      watch('A connected', async () => (await r.a.site())?.hub.conectado === true),
      watch('A backlog empty', () => a.backlog() === 0),
      watch('A in site mode', async () => (await r.a.site())?.modo === 'site'),
    ]);
    const target = await r.lastSeq();
    const bAppliedMs = await watch('B applied the backlog', () => b.applied() >= target);
    return { made, pending, hubStartMs: tReady - t0, connectedMs, emptyMs, siteMs, bAppliedMs };
  } finally {
    a.close();
    b.close();
  }
}
