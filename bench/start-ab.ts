import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { createClock } from '../src/clock.js';
import { qrOf, type fillDatabase } from './fill.js';
import { runClosedLoop } from './load.js';
import { addBenchOperator, openParkClients } from './park-clients.js';
import { int, machine, out } from './report.js';

// `node dist/bench/start-ab.js <checkout A> <checkout B>`: the CPU of a check-in for two builds of the box, each
// started exactly as its own `npm start` starts it (the node flags of its package.json's start script, `gate serve`,
// the logger at info writing to a file as the journal would), with a console's live feed open and /metrics scraped;
// taking turns, BENCH_RUNS (3) runs each of 3 rounds of 40,000 check-ins by 64 keep-alive connections, on a copy of
// the same 200,000-person database. What it reports is the process's CPU time (all threads, /proc) per check-in.
// Each checkout must be built (`npm run build`). A measurement, not a test (issue 25: the budget before and after).

const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const ROUND = 40_000;
const PORT = 18_080;
const work = path.resolve('.bench-start-ab');

/** The node flags of a checkout's `npm start` (`node <flags> bin/gate.js serve`). */
function startFlags(tree: string): string[] {
  const start = (JSON.parse(fs.readFileSync(path.join(tree, 'package.json'), 'utf8')) as { scripts: { start: string } })
    .scripts.start;
  return start.split(' ').filter((w) => w.startsWith('--'));
}

const cpuOf = (pid: number) => {
  const f = fs
    .readFileSync(`/proc/${pid}/stat`, 'utf8')
    .replace(/^.*\) /, '')
    .split(' ');
  return (Number(f[11]) + Number(f[12])) * 10_000; // µs (USER_HZ 100)
};

async function runOnce(tree: string, key: string, first: number): Promise<number[]> {
  const data = path.join(work, 'data');
  fs.rmSync(data, { recursive: true, force: true });
  fs.mkdirSync(data);
  fs.copyFileSync(path.join(work, 'pristine.db'), path.join(data, 'gate.db'));
  const log = fs.openSync(path.join(work, 'box.log'), 'w');
  const env = {
    ...process.env,
    GATE_DATA_DIR: data,
    GATE_TENANT: 'bench',
    GATE_PORT: String(PORT),
    GATE_HOST: '127.0.0.1',
  };
  const box: ChildProcess = spawn('node', [...startFlags(tree), path.join(tree, 'bin/gate.js'), 'serve'], {
    env: { ...env, GATE_LOG_LEVEL: 'info' },
    stdio: ['ignore', log, 'inherit'],
  });
  const base = `http://127.0.0.1:${PORT}`;
  for (;;) {
    if (
      await fetch(`${base}/health/live`).then(
        (r) => r.ok,
        () => false,
      )
    )
      break;
    await new Promise((r) => setTimeout(r, 200));
  }
  const park = await openParkClients(base);
  let next = first;
  const load = (amount: number) =>
    runClosedLoop({
      url: `${base}/api/v1/api-qrcode-checkin`,
      headers: { 'x-api-key': key },
      nextBody: () => JSON.stringify({ qr_code: qrOf(next++), terminal: 'bench' }),
      connections: 64,
      amount,
    });
  await load(15_000);
  const perCheckin: number[] = [];
  for (let round = 0; round < 3; round++) {
    const before = cpuOf(box.pid!);
    const r = await load(ROUND);
    if (r.ok !== ROUND) throw new Error(`${tree}: ${ROUND - r.ok} check-ins refused`);
    perCheckin.push((cpuOf(box.pid!) - before) / ROUND);
  }
  await park.close();
  box.kill('SIGTERM');
  await new Promise((r) => box.once('exit', r));
  return perCheckin;
}

const trees = process.argv.slice(2).map((t) => path.resolve(t));
if (trees.length !== 2) throw new Error('usage: start-ab.js <checkout A> <checkout B>');
fs.rmSync(work, { recursive: true, force: true });
fs.mkdirSync(work);
try {
  // Filled by checkout A's own code, the older one: its schema is one both builds open (B migrates its copy at start).
  const fillOfA = (await import(path.join(trees[0]!, 'dist/bench/fill.js'))) as { fillDatabase: typeof fillDatabase };
  const fill = await fillOfA.fillDatabase(path.join(work, 'pristine.db'), createClock('America/Sao_Paulo'), 50_000);
  await addBenchOperator(path.join(work, 'pristine.db'));
  machine().forEach((l) => out(l));
  const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const all: number[][] = [[], []];
  for (let run = 1; run <= RUNS; run++)
    for (const [i, tree] of trees.entries()) {
      const rounds = await runOnce(tree, fill.apiKey, 0);
      all[i]!.push(med(rounds));
      out(
        `${tree} run ${run} (${startFlags(tree).join(' ') || 'no flags'}): ${rounds.map((r) => r.toFixed(1)).join(' / ')} µs per check-in`,
      );
    }
  for (const [i, tree] of trees.entries())
    out(
      `${tree}: median of ${RUNS} runs ${med(all[i]!).toFixed(1)} µs per check-in (runs ${all[i]!.map((r) => r.toFixed(1)).join(', ')}; ${int(ROUND * 3)} check-ins a run)`,
    );
} finally {
  fs.rmSync(work, { recursive: true, force: true });
}
