import fs from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { createClock } from '../src/clock.js';
import type { SiteConfig } from '../src/site-config.js';
import { fillDatabase, qrOf } from './fill.js';
import { startChild, type Child } from './load.js';
import type { LoadResult } from './load.js';
import type { Observed } from './observe.js';
import {
  LOAD_HEADER,
  type Measured,
  fsyncProbe,
  heading,
  int,
  loadRow,
  machine,
  ms,
  out,
  summarise,
  table,
} from './report.js';
import { benchClient, siteLinkOf, startHub } from './site-hub.js';
import { when } from './site-load.js';
import { backlog, catchUp, fixedRate, visibility, type Rig } from './site-phases.js';

// `npm run bench:site`: the site link (issue 23) on loopback with Debian's nats-server, against a single box (site
// off) in the same run. Boxes norte (A) and sul (B) and the single box are child processes (bench/server-child.ts)
// on copies of one database. A measurement, not a test: exits 0 when a target is missed, 1 when the run broke.

const ORDERS = Number(process.env.BENCH_ORDERS ?? 20_000); // × 4 people
/** BENCH_SCALE < 1 shrinks every phase (a quick check of the bench itself; its figures are not the bench's). */
const SCALE = Number(process.env.BENCH_SCALE ?? 1);
const scaled = (n: number, min = 1) => Math.max(min, Math.round(n * SCALE));
const BLOCKS = 3;
const SCANS = scaled(300, BLOCKS * 10);
const FIXED = { rate: 1000, seconds: scaled(5), streams: 50, rounds: 3 };
const CATCH_UP = scaled(20_000, 100);
const TRICKLE = 200; // req/s at B while it catches up
const BACKLOG = scaled(10_000, 100);
const FLOOR = 1000;
const TARGET = { visibleP99: 25, fixedP99Ratio: 1.1, catchUpRate: 5000, catchUpP99: 15, backlogS: 5 };
const BOXES = ['norte', 'sul'];

const workDir = path.resolve('.bench-site');
/** BENCH_CPU_PROF=<dir>: the site boxes (A, and B each time it starts) run with --cpu-prof into that directory. */
const siteExecArgv = process.env.BENCH_CPU_PROF
  ? ['--cpu-prof', `--cpu-prof-dir=${path.resolve(process.env.BENCH_CPU_PROF)}`]
  : [];
const median = (xs: number[]) => summarise(xs).p50;
const spread = (xs: number[], f: (v: number) => string) =>
  `${f(Math.min(...xs))} – ${f(Math.max(...xs))} (median ${f(median(xs))})`;
const verdict = (ok: boolean) => (ok ? 'MET' : 'MISSED');
/** What a box saw of itself during a phase (bench/observe.ts). */
const inside = (who: string, o: Observed) => {
  const w = o.writes;
  out(
    `${who}: server side p50 ${ms(o.server?.p50 ?? NaN)}, p99 ${ms(o.server?.p99 ?? NaN)}, max ${ms(o.server?.max ?? NaN)}; event-loop delay p99 ${ms(o.loopDelay.p99)}, max ${ms(o.loopDelay.max)}; GC ${o.gc.count} pauses, longest ${ms(o.gc.maxMs)}` +
      (w ? `; ${int(w.commits)} scan commits, commit p99 ${ms(w.commitP99)}, WAL fsync p99 ${ms(w.fsyncP99)}` : ''),
  );
};

async function main(): Promise<number> {
  fs.rmSync(workDir, { recursive: true, force: true });
  fs.mkdirSync(workDir, { recursive: true });
  const cleanup: (() => Promise<unknown>)[] = [];
  try {
    return await run(cleanup);
  } finally {
    for (const c of cleanup.reverse()) await c().catch(() => undefined);
    fs.rmSync(workDir, { recursive: true, force: true });
  }
}

async function run(cleanup: (() => Promise<unknown>)[]): Promise<number> {
  out('Gate appliance site benchmark (issue 23): two boxes on one hub against a single box, same run');
  out(`started ${new Date().toISOString()}; work dir ${workDir} (deleted at the end)`);
  machine().forEach((l) => out(l));
  const disk = fsyncProbe(workDir);
  out(`disk fsync (4 KiB write + fsync): p50 ${ms(disk.p50)}, p99 ${ms(disk.p99)}`);

  heading('Fill and start');
  const base = path.join(workDir, 'base.db');
  const fill = await fillDatabase(base, createClock('America/Sao_Paulo'), ORDERS);
  const files = {
    a: path.join(workDir, 'norte.db'),
    b: path.join(workDir, 'sul.db'),
    single: path.join(workDir, 'single.db'),
  };
  for (const f of Object.values(files)) fs.copyFileSync(base, f);
  out(`${int(fill.people)} people (${int(fill.orders)} orders × 4), copied to norte.db, sul.db and single.db`);
  const hub = await startHub([...BOXES, 'bench']);
  cleanup.push(() => hub.close());
  const client = await benchClient(hub, 'bench');
  cleanup.push(() => client.close());
  out(`hub: nats-server (${hub.url}), the configuration of \`gate site hub-config\`, JetStream file store`);
  const site = (box: string): NodeJS.ProcessEnv => {
    const link: SiteConfig = siteLinkOf(hub, box, BOXES);
    return { ...process.env, BENCH_SITE: JSON.stringify(link) };
  };
  const children = new Set<Child>();
  const start = async (file: string, env?: NodeJS.ProcessEnv) => {
    const c = await startChild(['box', file], env ? siteExecArgv : [], env);
    children.add(c);
    return c;
  };
  cleanup.push(async () => {
    for (const c of children) await c.stop();
  });
  const single = await start(files.single);
  const a = await start(files.a, site('norte'));
  let b = await start(files.b, site('sul'));
  for (const c of [a, b]) await when('site mode', async () => (await c.site())?.modo === 'site', 30_000, 20);
  out(`single box pid ${single.pid} (site off); norte (A) pid ${a.pid}; sul (B) pid ${b.pid}; claim timeout 150 ms`);

  let nextPerson = 0;
  let nextSingle = 0;
  const lastSeq = async () => {
    for (let i = 0; ; i++)
      try {
        return await client.lastSeq();
      } catch (err) {
        if (i > 50) throw err;
        await sleep(100);
      }
  };
  const rig: Rig = {
    apiKey: fill.apiKey,
    hub,
    a,
    single,
    b: () => b,
    async stopB() {
      await b.stop();
      children.delete(b);
    },
    restartB: async () => (b = await start(files.b, site('sul'))),
    files,
    people: () => qrOf(nextPerson++),
    singlePeople: () => qrOf(nextSingle++),
    lastSeq,
    pids: () => [single.pid, a.pid, b.pid],
  };

  heading(`0. Floor: a bare JetStream publish-ack, ${int(FLOOR)} one at a time (expected last subject sequence 0)`);
  const floorAll = await client.publishAck(FLOOR + 100);
  const floor = summarise(floorAll.slice(100));
  out(`publish → ack: p50 ${ms(floor.p50)}, p90 ${ms(floor.p90)}, p99 ${ms(floor.p99)}, max ${ms(floor.max)}`);

  heading(`1. Cross-box visibility: ${SCANS} scans at A, one at a time; until B's own SQLite shows the ticket used`);
  const visRun = await visibility(rig, SCANS);
  const vis = visRun.rows;
  const seen = vis.filter((v) => Number.isFinite(v.visible));
  const per = Math.floor(SCANS / BLOCKS);
  const blocks = Array.from({ length: BLOCKS }, (_, i) =>
    summarise(vis.slice(i * per, (i + 1) * per).map((v) => v.visible)),
  );
  const visAll = summarise(seen.map((v) => v.visible));
  const answered = summarise(vis.map((v) => v.answered));
  table([
    ['', 'scans', 'p50', 'p90', 'p99', 'max'],
    ['A answered (HTTP 200)', int(answered.n), ms(answered.p50), ms(answered.p90), ms(answered.p99), ms(answered.max)],
    ...blocks.map((s, i) => [`B shows it used, block ${i + 1}`, int(s.n), ms(s.p50), ms(s.p90), ms(s.p99), ms(s.max)]),
    ['B shows it used, all', int(visAll.n), ms(visAll.p50), ms(visAll.p90), ms(visAll.p99), ms(visAll.max)],
  ]);
  out(
    `B's database polled read-only by the bench every ~0.1 ms; p99 of the blocks: ${spread(
      blocks.map((s) => s.p99),
      ms,
    )}`,
  );
  inside('A', visRun.a);
  inside('B', visRun.b);
  const visBroken = seen.length !== SCANS || vis.some((v) => v.status !== 200);

  heading(
    `2. Check-in at a fixed ${int(FIXED.rate)} req/s, ${FIXED.rounds} rounds of ${FIXED.seconds} s: A (site on) vs single box`,
  );
  const fixedRun = await fixedRate(rig, FIXED);
  const rounds = fixedRun.rounds;
  table([
    LOAD_HEADER,
    ...rounds.flatMap((r, i) => [
      loadRow(`single round ${i + 1}`, r.single),
      loadRow(`site (A) round ${i + 1}`, r.site),
    ]),
  ]);
  const ratios = {
    p50: rounds.map((r) => r.site.latency.p50 / r.single.latency.p50),
    p99: rounds.map((r) => r.site.latency.p99 / r.single.latency.p99),
  };
  const fx = (v: number) => v.toFixed(2);
  out(
    `single p99 ${spread(
      rounds.map((r) => r.single.latency.p99),
      ms,
    )}; site p99 ${spread(
      rounds.map((r) => r.site.latency.p99),
      ms,
    )}`,
  );
  out(`ratio site/single per round: p50 ${spread(ratios.p50, fx)}; p99 ${spread(ratios.p99, fx)}`);
  const cpuPer = (rs: (LoadResult & Measured)[]) =>
    (rs.reduce((n, r) => n + r.cpu.server, 0) * 1e6) / rs.reduce((n, r) => n + r.completed, 0);
  const [cpuSite, cpuSingle] = [cpuPer(rounds.map((r) => r.site)), cpuPer(rounds.map((r) => r.single))];
  const rates = (rs: LoadResult[]) => rs.map((r) => int(r.rps)).join(', ');
  out(
    `CPU per check-in of the box process: A ${int(cpuSite)} µs, single ${int(cpuSingle)} µs (×${fx(cpuSite / cpuSingle)}); rate reached: A ${rates(rounds.map((r) => r.site))} req/s, single ${rates(rounds.map((r) => r.single))} req/s`,
  );
  out('others: CPU of other processes meanwhile (the hub, other work on the machine), % of one core');
  inside('single box, all rounds', fixedRun.single);
  inside('A, all rounds', fixedRun.a);
  if (fixedRun.b) inside("B (applying A's movements), all rounds", fixedRun.b);
  // The same with B stopped: on a real site B is another machine, here it shares A's 2 cores and disk.
  const aloneRun = await fixedRate(rig, { ...FIXED, withoutB: true });
  const aloneRatios = aloneRun.rounds.map((r) => r.site.latency.p99 / r.single.latency.p99);
  table([
    LOAD_HEADER,
    ...aloneRun.rounds.flatMap((r, i) => [
      loadRow(`single round ${i + 1}`, r.single),
      loadRow(`site (A), B away, round ${i + 1}`, r.site),
    ]),
  ]);
  out(`with B stopped (another machine on a real site): ratio p99 site/single per round ${spread(aloneRatios, fx)}`);
  const fixedBroken = [...rounds, ...aloneRun.rounds].some(
    (r) => r.site.non2xx + r.single.non2xx + r.site.errors + r.single.errors > 0,
  );

  heading(`3. Catch-up: B stopped while A makes ${int(CATCH_UP)} check-ins; B started again, scanning at ${TRICKLE}/s`);
  const cu = await catchUp(rig, CATCH_UP, TRICKLE);
  table([LOAD_HEADER, loadRow('A, B away (20 connections)', cu.made)]);
  const rate = cu.movements / (cu.applyMs / 1000);
  out(
    `B: ${int(cu.movements)} movements to apply; process start → listening ${ms(cu.startMs)}; → site mode ${ms(cu.modeSiteMs)} after`,
  );
  out(
    `B applied them all ${ms(cu.applyMs)} after listening: ${int(rate)} movements/s (first to last batch ${ms(cu.firstToLastMs)}: ${int(cu.movements / (cu.firstToLastMs / 1000))}/s)`,
  );
  const d = cu.during;
  out(
    `B's check-ins while catching up: ${int(d.n)}, p50 ${ms(d.p50)}, p90 ${ms(d.p90)}, p99 ${ms(d.p99)}, max ${ms(d.max)}; statuses ${JSON.stringify(d.statuses)}`,
  );
  out(
    `  after B's first second of scans: ${int(cu.warm.n)}, p50 ${ms(cu.warm.p50)}, p99 ${ms(cu.warm.p99)}, max ${ms(cu.warm.max)}`,
  );
  out(
    `  the slowest scan of each 250 ms from B's first: ${Array.from(cu.quarters, (m) => (m === undefined ? '-' : m.toFixed(0))).join(' ')} ms`,
  );
  out(
    `the same ${TRICKLE}/s at the single box for 3 s: p50 ${ms(cu.reference.p50)}, p99 ${ms(cu.reference.p99)} (ratio p99 ${fx(d.p99 / cu.reference.p99)})`,
  );
  inside('B while catching up', cu.observed);
  const cuBroken = cu.made.non2xx + cu.made.errors > 0 || Object.keys(d.statuses).some((s) => s !== '200');

  heading(`4. Backlog: the hub stopped, A decides ${int(BACKLOG)} check-ins alone; the hub back`);
  const bl = await backlog(rig, BACKLOG);
  table([LOAD_HEADER, loadRow('A, hub away (20 connections)', bl.made)]);
  out(`A's backlog (site_moves where seq is null): ${int(bl.pending)}; the hub restarted in ${ms(bl.hubStartMs)}`);
  out(
    `after the hub was ready: A connected ${ms(bl.connectedMs)}; backlog empty ${ms(bl.emptyMs)}; A in site mode ${ms(bl.siteMs)}; B applied it all ${ms(bl.bAppliedMs)}`,
  );
  out(`published: ${int(bl.pending / ((bl.emptyMs - bl.connectedMs) / 1000))} movements/s from A's reconnection`);
  const blBroken = bl.made.non2xx + bl.made.errors > 0 || bl.pending < BACKLOG;

  heading('Targets (issue 23)');
  const p99Ratio = median(ratios.p99);
  table([
    ['target', 'measured', ''],
    [`visibility p99 ≤ ${TARGET.visibleP99} ms`, ms(visAll.p99), verdict(visAll.p99 <= TARGET.visibleP99)],
    [
      `check-in p99 at 1,000 req/s ≤ single + 10 %`,
      `×${fx(p99Ratio)} (median of rounds)`,
      verdict(p99Ratio <= TARGET.fixedP99Ratio),
    ],
    [
      `  … the same with B stopped (informative)`,
      `×${fx(median(aloneRatios))} (median of rounds)`,
      verdict(median(aloneRatios) <= TARGET.fixedP99Ratio),
    ],
    [`catch-up ≥ ${int(TARGET.catchUpRate)} movements/s`, `${int(rate)}/s`, verdict(rate >= TARGET.catchUpRate)],
    [`check-in p99 while catching up < ${TARGET.catchUpP99} ms`, ms(d.p99), verdict(d.p99 < TARGET.catchUpP99)],
    [
      `backlog of ${int(BACKLOG)} published ≤ ${TARGET.backlogS} s`,
      ms(bl.emptyMs),
      verdict(bl.emptyMs <= TARGET.backlogS * 1000),
    ],
  ]);
  out(
    `floor: publish-ack p50 ${ms(floor.p50)}, p99 ${ms(floor.p99)}; disk fsync p50 ${ms(disk.p50)}, p99 ${ms(disk.p99)}`,
  );
  out(`machine: ${machine().join('; ')}`);
  const broken = visBroken || fixedBroken || cuBroken || blBroken;
  if (broken)
    out('RUN BROKEN: a check-in was refused or failed where every one should pass (see the status codes above)');
  return broken ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
