import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { LoadResult } from './load.js';

// Formatting of the benchmark report (plain text on stdout) and the machine facts it ends with.

export const out = (line = '') => process.stdout.write(`${line}\n`);
export const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;
export const ms = (v: number) => (Number.isFinite(v) ? `${v.toFixed(2)} ms` : 'n/a');
export const int = (v: number) => Math.round(v).toLocaleString('en-US');

/** The q-quantile (0–1) of ascending `sorted`, by nearest rank; NaN when there is nothing. */
export const quantile = (sorted: ArrayLike<number>, q: number): number =>
  sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;

/** Count and percentiles of latencies (ms). */
export function summarise(xs: readonly number[]) {
  const s = [...xs].sort((a, b) => a - b);
  return { n: s.length, p50: quantile(s, 0.5), p90: quantile(s, 0.9), p99: quantile(s, 0.99), max: quantile(s, 1) };
}

export function heading(title: string) {
  out();
  out(`== ${title} ${'='.repeat(Math.max(0, 72 - title.length))}`);
}

export function table(rows: (string | number)[][]) {
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => String(r[c] ?? '').length)));
  rows.forEach((r, i) => {
    out(
      '  ' +
        r.map((cell, c) => (c === 0 ? String(cell).padEnd(widths[c]!) : String(cell).padStart(widths[c]!))).join('  '),
    );
    if (i === 0) out('  ' + widths.map((w) => '-'.repeat(w)).join('  '));
  });
}

export const LOAD_HEADER = [
  'phase',
  'requests',
  '2xx',
  'non-2xx',
  'errors',
  'seconds',
  'req/s',
  'mean',
  'p50',
  'p90',
  'p99',
  'p99.9',
  'max',
  'others',
  'CPU/req server / generator',
];

export function loadRow(name: string, r: LoadResult & Partial<Measured>): (string | number)[] {
  const l = r.latency;
  const others = r.others === undefined ? '' : `${Math.round(r.others)}%`;
  const cpu = r.cpu === undefined ? '' : cpuPerRequest(r as LoadResult & Measured);
  return [
    name,
    int(r.completed),
    int(r.ok),
    int(r.non2xx),
    int(r.errors + r.timeouts),
    r.seconds.toFixed(2),
    int(r.rps),
    ms(l.mean),
    ms(l.p50),
    ms(l.p90),
    ms(l.p99),
    ms(l.p999),
    ms(l.max),
    others,
    cpu,
  ];
}

/** CPU time (s) used so far by one process, all its threads; or by its main thread alone. */
function processCpu(pid: number, mainThread = false): number {
  try {
    const fields = fs
      .readFileSync(mainThread ? `/proc/${pid}/task/${pid}/stat` : `/proc/${pid}/stat`, 'utf8')
      .replace(/^.*\) /, '')
      .split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100; // utime + stime, in USER_HZ ticks
  } catch {
    return 0; // gone
  }
}

/** CPU time (s) of the whole machine (busy). */
function machineCpu(): number {
  const cpu = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
  const [user = 0, nice = 0, system = 0, , , irq = 0, softirq = 0, steal = 0] = cpu;
  return (user + nice + system + irq + softirq + steal) / 100;
}

/**
 * Bytes `pid` has had written to storage so far (/proc/<pid>/io write_bytes: its WAL, its checkpoints, its log), or
 * null where the kernel does not say. With the fsync probe, it tells how busy the box kept the disk.
 */
export function writtenBytes(pid: number): number | null {
  try {
    const line = /^write_bytes: (\d+)$/m.exec(fs.readFileSync(`/proc/${pid}/io`, 'utf8'));
    return line ? Number(line[1]) : null;
  } catch {
    return null;
  }
}

export interface Measured {
  /** CPU the rest of the machine (not this process nor the servers) used meanwhile, in % of one core. */
  others: number;
  /**
   * CPU seconds of `server` (all threads; `serverMain`: its main thread, the event loop) and of this process (the load
   * generator) during the phase.
   */
  cpu: { server: number; serverMain: number; generator: number };
}

/**
 * Runs `phase` with CPU accounting: the server it loads (`server`, one of `pids`), this process, and
 * everything else on the machine. Other work on a 2-core machine skews every number here.
 */
export async function measured<T extends object>(
  pids: number[],
  server: number,
  phase: () => Promise<T>,
): Promise<T & Measured> {
  const ours = () => [process.pid, ...pids].reduce((n, pid) => n + processCpu(pid), 0);
  const before = {
    machine: machineCpu(),
    ours: ours(),
    server: processCpu(server),
    serverMain: processCpu(server, true),
    generator: processCpu(process.pid),
  };
  const started = process.hrtime.bigint();
  const result = await phase();
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const others = Math.max(0, machineCpu() - before.machine - (ours() - before.ours)) / seconds;
  const cpu = {
    server: processCpu(server) - before.server,
    serverMain: processCpu(server, true) - before.serverMain,
    generator: processCpu(process.pid) - before.generator,
  };
  return Object.assign(result, { others: others * 100, cpu });
}

/** CPU microseconds per request of a measured phase: "server / generator". */
export const cpuPerRequest = (r: LoadResult & Measured) =>
  `${int((r.cpu.server * 1e6) / r.completed)} / ${int((r.cpu.generator * 1e6) / r.completed)} µs`;

export function statusLine(r: LoadResult): string {
  return (
    Object.entries(r.statusCodes)
      .map(([code, n]) => `${code}×${int(n)}`)
      .join(', ') || 'none'
  );
}

/** fsync latency of the disk under `dir` (4 KiB write + fsync, 200 times): context for commit latency. */
export function fsyncProbe(dir: string): { p50: number; p99: number } {
  const file = path.join(dir, 'fsync.probe');
  const fd = fs.openSync(file, 'w');
  const block = Buffer.alloc(4096, 7);
  const times: number[] = [];
  try {
    for (let i = 0; i < 200; i++) {
      const t = process.hrtime.bigint();
      fs.writeSync(fd, block);
      fs.fsyncSync(fd);
      times.push(Number(process.hrtime.bigint() - t) / 1e6);
    }
  } finally {
    fs.closeSync(fd);
    fs.rmSync(file, { force: true });
  }
  times.sort((a, b) => a - b);
  return { p50: times[100]!, p99: times[198]! };
}

export function machine(): string[] {
  const cpus = os.cpus();
  return [
    `cpus: ${cpus.length} × ${cpus[0]?.model.trim() ?? 'unknown'}`,
    `node ${process.version} (${process.platform} ${os.release()} ${process.arch}), memory ${mb(os.totalmem())}`,
    `load average ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' / ')} (1/5/15 min; other work on the machine skews results)`,
  ];
}
