import { fork, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import type { SiteView } from '../src/site/site.answers.js';
import type { ProfileSplit } from './cpu-split.js';
import type { Observed } from './observe.js';
import { BOX_NODE_FLAGS } from '../src/node-flags.js';
import { quantile } from './report.js';
import type { ChildMessage, HeapParts, ParentMessage } from './server-child.js';

// The parent's side: forking server children and driving them with autocannon over loopback.

const here = path.dirname(fileURLToPath(import.meta.url));

export interface Child {
  pid: number;
  port: number;
  mem(): Promise<{ rss: number; hwm: number; wal: number }>;
  /** process.memoryUsage()'s parts and the young generation's size, in the child. */
  heap(): Promise<HeapParts>;
  /** Starts observing server-side latency, GC and event-loop delay in the child; resolves to a stop function. */
  observe(): Promise<() => Promise<Observed>>;
  /** The box's site view (BENCH_SITE); null on a single box. */
  site(): Promise<SiteView | null>;
  /** Starts a CPU profile of the child's main thread; resolves to a stop function giving its split (cpu-split.ts). */
  profile(): Promise<() => Promise<ProfileSplit>>;
  stop(): Promise<void>;
}

/**
 * Forks dist/bench/server-child.js and resolves once it listens on 127.0.0.1. The box runs with the node flags
 * `npm start` and the systemd unit give it (src/node-flags.ts), before `execArgv`; BENCH_NODE_DEFAULTS=1: node's
 * defaults instead (the figures before issue 25's heap limit).
 */
export function startChild(
  args: string[],
  execArgv: string[] = [],
  env: NodeJS.ProcessEnv = process.env,
): Promise<Child> {
  const proc: ChildProcess = fork(path.join(here, 'server-child.js'), args, {
    execArgv: args[0] === 'box' && !process.env.BENCH_NODE_DEFAULTS ? [...BOX_NODE_FLAGS, ...execArgv] : execArgv,
    env,
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  let exited: string | null = null;
  const waiters = new Set<(m: ChildMessage | null) => void>();
  proc.on('message', (m: ChildMessage) => waiters.forEach((w) => w(m)));
  proc.on('exit', (code, signal) => {
    exited = `server child ${args[0]} exited (code ${code}, signal ${signal})`;
    waiters.forEach((w) => w(null));
  });
  const next = <T extends ChildMessage['type']>(type: T, request?: ParentMessage) =>
    new Promise<Extract<ChildMessage, { type: T }>>((resolve, reject) => {
      if (exited) return reject(new Error(exited));
      const waiter = (m: ChildMessage | null) => {
        if (m === null) reject(new Error(exited!));
        else if (m.type === 'error') reject(new Error(`server child ${args[0]} failed: ${m.message}`));
        else if (m.type !== type) return;
        else resolve(m as Extract<ChildMessage, { type: T }>);
        waiters.delete(waiter);
      };
      waiters.add(waiter);
      if (request) proc.send(request);
    });
  return next('ready').then(({ port, pid }) => ({
    pid,
    port,
    mem: async () => {
      const m = await next('mem', { type: 'mem' });
      return { rss: m.rss, hwm: m.hwm, wal: m.wal };
    },
    heap: async () => {
      const { type: _type, ...parts } = await next('heap', { type: 'heap' });
      return parts;
    },
    observe: async () => {
      await next('observing', { type: 'observe' });
      return async () => {
        const { type: _type, ...observed } = await next('observed', { type: 'observed' });
        return observed;
      };
    },
    site: async () => (await next('site', { type: 'site' })).view,
    profile: async () => {
      await next('profiling', { type: 'profile' });
      return async () => (await next('profiled', { type: 'profiled' })).split;
    },
    stop: async () => {
      const exit = new Promise<void>((resolve) => (exited ? resolve() : proc.once('exit', () => resolve())));
      await next('stopped', { type: 'stop' }).catch(() => undefined);
      await exit;
    },
  }));
}

export interface LoadResult {
  completed: number;
  ok: number;
  non2xx: number;
  statusCodes: Record<string, number>;
  errors: number;
  timeouts: number;
  seconds: number;
  rps: number;
  /** Latency in ms over every response, exact (not autocannon's integer-ms histogram). */
  latency: { mean: number; p50: number; p90: number; p99: number; p999: number; max: number };
  /** Every response time (ms), for combining runs. */
  samples: Float64Array;
}

export interface LoadOptions {
  url: string;
  headers: Record<string, string>;
  /** A fresh request body per request. */
  nextBody: () => string;
  connections: number;
  amount: number;
  connectionRate?: number;
}

interface Sink {
  latencies: number[];
  /** hrtime of the last response: a rate-limited client idles up to a second before it reports done. */
  last: bigint;
}

/** One autocannon instance; every response time is kept, so percentiles are exact. */
function runInstance(o: LoadOptions, sink: Sink): Promise<autocannon.Result> {
  return new Promise((resolve, reject) => {
    const instance = autocannon(
      {
        url: o.url,
        method: 'POST',
        connections: o.connections,
        pipelining: 1,
        amount: o.amount,
        ...(o.connectionRate ? { connectionRate: o.connectionRate } : {}),
        headers: { 'content-type': 'application/json', ...o.headers },
        requests: [{ setupRequest: (request) => ({ ...request, body: o.nextBody() }) }],
      },
      (err, result) => (err ? reject(err) : resolve(result)),
    );
    instance.on('response', (_client: unknown, _status: number, _bytes: number, ms: number) => {
      sink.latencies.push(ms);
      sink.last = process.hrtime.bigint();
    });
  });
}

function summarise(results: autocannon.Result[], { latencies, last }: Sink, started: bigint): LoadResult {
  const statusCodes: Record<string, number> = {};
  for (const r of results)
    for (const [code, { count }] of Object.entries(r.statusCodeStats))
      statusCodes[code] = (statusCodes[code] ?? 0) + count;
  const sum = (f: (r: autocannon.Result) => number) => results.reduce((n, r) => n + f(r), 0);
  return withLatency({
    ok: sum((r) => r['2xx']),
    non2xx: sum((r) => r.non2xx),
    statusCodes,
    errors: sum((r) => r.errors),
    timeouts: sum((r) => r.timeouts),
    seconds: Number(last - started) / 1e9,
    samples: Float64Array.from(latencies),
  });
}

function withLatency(r: Omit<LoadResult, 'latency' | 'completed' | 'rps'>): LoadResult {
  const sorted = Float64Array.from(r.samples).sort();
  const at = (q: number) => quantile(sorted, q);
  const completed = sorted.length;
  const mean = sorted.reduce((a, b) => a + b, 0) / (completed || 1);
  return {
    ...r,
    completed,
    rps: completed / r.seconds,
    latency: { mean, p50: at(0.5), p90: at(0.9), p99: at(0.99), p999: at(0.999), max: at(1) },
  };
}

/** Runs taken one after the other as one: requests and seconds add up, percentiles over all responses. */
export function combine(runs: LoadResult[]): LoadResult {
  const statusCodes: Record<string, number> = {};
  for (const r of runs)
    for (const [code, n] of Object.entries(r.statusCodes)) statusCodes[code] = (statusCodes[code] ?? 0) + n;
  const sum = (f: (r: LoadResult) => number) => runs.reduce((n, r) => n + f(r), 0);
  const samples = new Float64Array(sum((r) => r.samples.length));
  let offset = 0;
  for (const r of runs) samples.set(r.samples, (offset += r.samples.length) - r.samples.length);
  return withLatency({
    ok: sum((r) => r.ok),
    non2xx: sum((r) => r.non2xx),
    statusCodes,
    errors: sum((r) => r.errors),
    timeouts: sum((r) => r.timeouts),
    seconds: sum((r) => r.seconds),
    samples,
  });
}

/**
 * Closed-loop load: `connections` connections, each sending its next request when the previous one
 * answered, `amount` requests in all. A fixed amount (not a duration) so no request is left in
 * flight when the run ends: every request sent is answered and counted.
 */
export async function runClosedLoop(o: LoadOptions): Promise<LoadResult> {
  const started = process.hrtime.bigint();
  const sink: Sink = { latencies: [], last: started };
  const result = await runInstance(o, sink);
  return summarise([result], sink, started);
}

/**
 * Fixed-rate load of `rate` requests/s for `seconds`. autocannon's rate limiter gives every connection
 * a per-second quota that it spends back-to-back at the top of each second, all connections in phase:
 * with overallRate alone the load would be a burst each second, not a rate. So the rate is split over
 * `streams` single-connection instances (connectionRate = rate/streams, amount = its share), started
 * 1000/streams ms apart: a small burst every few milliseconds, evenly spread over each second.
 */
export async function runFixedRate(
  o: Omit<LoadOptions, 'connections' | 'amount' | 'connectionRate'> & {
    rate: number;
    seconds: number;
    streams: number;
  },
): Promise<LoadResult> {
  const perStream = o.rate / o.streams;
  if (!Number.isInteger(perStream)) throw new Error('rate must be a multiple of streams');
  const started = process.hrtime.bigint();
  const sink: Sink = { latencies: [], last: started };
  const runs = Array.from({ length: o.streams }, (_, i) =>
    new Promise<void>((resolve) => setTimeout(resolve, (i * 1000) / o.streams)).then(() =>
      runInstance({ ...o, connections: 1, connectionRate: perStream, amount: perStream * o.seconds }, sink),
    ),
  );
  const results = await Promise.all(runs);
  return summarise(results, sink, started);
}
