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
}

export function observe(server?: Server): () => Observed {
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
  return () => {
    server?.off('request', onRequest);
    gc.disconnect();
    loop.disable();
    const sorted = times.sort((a, b) => a - b);
    const at = (q: number) => quantile(sorted, q);
    return {
      ...(server ? { server: { count: sorted.length, p50: at(0.5), p99: at(0.99), max: at(1) } } : {}),
      gc: { count: pauses.length, totalMs: pauses.reduce((a, b) => a + b, 0), maxMs: Math.max(0, ...pauses) },
      loopDelay: { p99: loop.percentile(99) / 1e6, max: loop.max / 1e6 },
    };
  };
}
