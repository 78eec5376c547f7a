import fs from 'node:fs';
import type { Server } from 'node:http';
import { monitorEventLoopDelay, PerformanceObserver } from 'node:perf_hooks';
import { quantile } from './report.js';

// What a process sees of its own latency while the parent drives it: time from the 'request' event
// to 'finish' (server side), garbage-collection pauses and event-loop delay. Started and stopped
// around one phase only, so the other phases run without these listeners.

export interface Observed {
  /** Server-side latency in ms (request event → response finished), when a server was given. */
  server?: { count: number; p50: number; p99: number; max: number };
  gc: { count: number; totalMs: number; maxMs: number };
  loopDelay: { p99: number; max: number };
  /** The box's write queue (group commit) meanwhile, when observed: ms per commit and per WAL fsync. */
  writes?: {
    commits: number;
    unitsP50: number;
    commitP99: number;
    commitMax: number;
    fsyncP99: number;
    fsyncMax: number;
    /** Background pieces (a sync page's, a batch's, an upload's, a catch-up's): ms from BEGIN to COMMIT. */
    pieces?: { count: number; p99: number; max: number };
  };
  /** The WAL file meanwhile, sampled every 50 ms, in bytes. */
  wal?: { first: number; max: number; last: number };
}

/** A write queue's commits, as the bench child sees them (bench/server-child.ts). */
export interface CommitLog {
  /** Recorded only while a phase is observed (the box's memory is measured too). */
  active: boolean;
  commits: { units: number; ms: number }[];
  fsyncs: number[];
  /** Background commits, ms each, when the child records them. */
  pieces?: number[];
}

export function observe(server?: Server, extra?: { commits?: CommitLog; walFile?: string }): () => Observed {
  const times: number[] = [];
  const onRequest = (_req: unknown, res: { on(e: 'finish', f: () => void): void }) => {
    const start = process.hrtime.bigint();
    res.on('finish', () => times.push(Number(process.hrtime.bigint() - start) / 1e6));
  };
  server?.prependListener('request', onRequest);
  const pauses: number[] = [];
  const gc = new PerformanceObserver((list) => list.getEntries().forEach((e) => pauses.push(e.duration)));
  gc.observe({ entryTypes: ['gc'] });
  const loop = monitorEventLoopDelay({ resolution: 1 });
  loop.enable();
  const commits = extra?.commits;
  if (commits) {
    commits.commits.length = commits.fsyncs.length = 0;
    if (commits.pieces) commits.pieces.length = 0;
    commits.active = true;
  }
  const walSizes: number[] = [];
  const walFile = extra?.walFile;
  const walSize = () => (walFile && fs.existsSync(walFile) ? fs.statSync(walFile).size : 0);
  if (walFile) walSizes.push(walSize());
  const walTimer = walFile ? setInterval(() => walSizes.push(walSize()), 50) : undefined;
  return () => {
    if (walTimer) clearInterval(walTimer);
    if (commits) commits.active = false;
    if (walFile) walSizes.push(walSize());
    server?.off('request', onRequest);
    gc.disconnect();
    loop.disable();
    const sorted = times.sort((a, b) => a - b);
    const at = (q: number) => quantile(sorted, q);
    return {
      ...(server ? { server: { count: sorted.length, p50: at(0.5), p99: at(0.99), max: at(1) } } : {}),
      gc: { count: pauses.length, totalMs: pauses.reduce((a, b) => a + b, 0), maxMs: Math.max(0, ...pauses) },
      loopDelay: { p99: loop.percentile(99) / 1e6, max: loop.max / 1e6 },
      ...(commits ? { writes: commitSummary(commits) } : {}),
      ...(walFile ? { wal: { first: walSizes[0]!, max: Math.max(...walSizes), last: walSizes.at(-1)! } } : {}),
    };
  };
}

function commitSummary(log: CommitLog): NonNullable<Observed['writes']> {
  const sorted = (xs: number[]) => xs.slice().sort((a, b) => a - b);
  const ms = sorted(log.commits.map((c) => c.ms));
  const fsyncs = sorted(log.fsyncs);
  const pieces = log.pieces && sorted(log.pieces);
  return {
    ...(pieces ? { pieces: { count: pieces.length, p99: quantile(pieces, 0.99), max: quantile(pieces, 1) } } : {}),
    commits: ms.length,
    unitsP50: quantile(sorted(log.commits.map((c) => c.units)), 0.5),
    commitP99: quantile(ms, 0.99),
    commitMax: quantile(ms, 1),
    fsyncP99: quantile(fsyncs, 0.99),
    fsyncMax: quantile(fsyncs, 1),
  };
}
