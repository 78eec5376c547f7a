import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { LoadResult } from './load.js';

// Formatting of the benchmark report (plain text on stdout) and the machine facts it ends with.

export const out = (line = '') => process.stdout.write(`${line}\n`);
export const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;
export const ms = (v: number) => (Number.isFinite(v) ? `${v.toFixed(2)} ms` : 'n/a');
export const int = (v: number) => Math.round(v).toLocaleString('en-US');

export function heading(title: string) {
  out();
  out(`== ${title} ${'='.repeat(Math.max(0, 72 - title.length))}`);
}

export function table(rows: (string | number)[][]) {
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => String(r[c] ?? '').length)));
  rows.forEach((r, i) => {
    out('  ' + r.map((cell, c) => (c === 0 ? String(cell).padEnd(widths[c]!) : String(cell).padStart(widths[c]!))).join('  '));
    if (i === 0) out('  ' + widths.map((w) => '-'.repeat(w)).join('  '));
  });
}

export const LOAD_HEADER = ['phase', 'requests', '2xx', 'non-2xx', 'errors', 'seconds', 'req/s', 'mean', 'p50', 'p90', 'p99', 'p99.9', 'max', 'others'];

export function loadRow(name: string, r: LoadResult & { others?: number }): (string | number)[] {
  const l = r.latency;
  const others = r.others === undefined ? '' : `${Math.round(r.others)}%`;
  return [name, int(r.completed), int(r.ok), int(r.non2xx), int(r.errors + r.timeouts), r.seconds.toFixed(2), int(r.rps), ms(l.mean), ms(l.p50), ms(l.p90), ms(l.p99), ms(l.p999), ms(l.max), others];
}

/** CPU time (s) of the whole machine (busy) and of the given processes, all threads included. */
function cpuTimes(pids: number[]): { machine: number; ours: number } {
  const tick = 100; // USER_HZ
  const cpu = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
  const [user = 0, nice = 0, system = 0, , , irq = 0, softirq = 0, steal = 0] = cpu;
  let ours = 0;
  for (const pid of pids) {
    try {
      const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /, '').split(' ');
      ours += Number(fields[11]) + Number(fields[12]); // utime, stime
    } catch {
      // gone
    }
  }
  return { machine: (user + nice + system + irq + softirq + steal) / tick, ours: ours / tick };
}

/**
 * Runs `phase` and attaches `others`: the CPU the rest of the machine (not this process nor `pids`)
 * used meanwhile, in % of one core. Other work on a 2-core machine skews every number here.
 */
export async function measured<T extends object>(pids: number[], phase: () => Promise<T>): Promise<T & { others: number }> {
  const before = cpuTimes([process.pid, ...pids]);
  const started = process.hrtime.bigint();
  const result = await phase();
  const after = cpuTimes([process.pid, ...pids]);
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const others = Math.max(0, after.machine - before.machine - (after.ours - before.ours)) / seconds;
  return Object.assign(result, { others: others * 100 });
}

export function statusLine(r: LoadResult): string {
  return Object.entries(r.statusCodes).map(([code, n]) => `${code}×${int(n)}`).join(', ') || 'none';
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
    `load average ${os.loadavg().map((l) => l.toFixed(2)).join(' / ')} (1/5/15 min; other work on the machine skews results)`,
  ];
}
