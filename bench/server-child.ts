import fs from 'node:fs';
import { Session } from 'node:inspector/promises';
import v8 from 'node:v8';
import Fastify from 'fastify';
import pino from 'pino';
import { createLogger } from '../src/main.js';
import { splitProfile, type CpuProfile } from './cpu-split.js';
import { buildApp } from '../src/app.js';
import { createAuth } from '../src/auth/auth.js';
import { createBox } from '../src/box.js';
import type { SiteConfig } from '../src/site-config.js';
import type { SiteView } from '../src/site/site.answers.js';
import type { HandheldSpec } from '../src/handheld/handheld.start.js';
import type { SyncSpec } from '../src/sync/sync.start.js';
import { asJson } from '../src/checkin/checkin.payload.js';
import { checkinRoutes } from '../src/checkin/checkin.routes.js';
import { createByteSlots } from '../src/lib/byte-slots.js';
import type { CheckinService } from '../src/checkin/checkin.service.js';
import { createClock } from '../src/clock.js';
import { migrateToLatest, openDatabase, type Db } from '../src/db/open.js';
import { TENANT } from './fill.js';
import { observe, type CommitLog, type Observed } from './observe.js';
import { floorApp } from './floor.js';

// Forked by checkin.bench.ts: `box <db file>` runs the real box (durable pragmas of openDatabase, createBox,
// main.ts's logger at info writing to <db file>.log, metrics, the console); `baseline` runs a bare fastify 5 app
// with one POST JSON route; `floor <db file>` the least a durable, logged check-in costs (bench/floor.ts);
// `door <db file> <answer file>` runs the box's HTTP door alone: the same app, auth,
// validation and routes, with
// a check-in service that does no database work and answers every request with one real answer.
// Talks to the parent over IPC: {type:'ready', port}, then answers {type:'mem'}, {type:'heap'}, {type:'observe'} /
// {type:'observed'} (server-side latency, GC and event-loop delay between the two), {type:'profile'} /
// {type:'profiled'} (a CPU profile of the main thread between the two, split by bench/cpu-split.ts) and {type:'stop'}.

// BENCH_SITE (JSON of a SiteConfig) gives the box a site link (site.bench.ts); {type:'site'} asks for its view.
// BENCH_CLOUD (JSON of a SyncSpec) gives it a cloud, its sync schedules running as in production; BENCH_HANDHELD
// (JSON of a HandheldSpec) turns the handhelds' endpoints on, over plain HTTP (heavy.bench.ts).

export type ParentMessage =
  | { type: 'mem' }
  | { type: 'heap' }
  | { type: 'observe' }
  | { type: 'observed' }
  | { type: 'site' }
  | { type: 'profile' }
  | { type: 'profiled' }
  | { type: 'stop' };
export type ChildMessage =
  | { type: 'ready'; port: number; pid: number }
  | { type: 'mem'; rss: number; hwm: number; wal: number }
  | ({ type: 'heap' } & HeapParts)
  | { type: 'observing' }
  | ({ type: 'observed' } & Observed)
  | { type: 'site'; view: SiteView | null }
  | { type: 'profiling' }
  | { type: 'profiled'; split: ReturnType<typeof splitProfile> }
  | { type: 'stopped' }
  | { type: 'error'; message: string };

const send = (m: ChildMessage) => process.send!(m);

/** process.memoryUsage()'s parts and the V8 young generation's size now (bench/memory.bench.ts). */
export interface HeapParts {
  heapUsed: number;
  heapTotal: number;
  external: number;
  arrayBuffers: number;
  newSpace: number;
}

function heapParts(): HeapParts {
  const { heapUsed, heapTotal, external, arrayBuffers } = process.memoryUsage();
  const newSpace = v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space')?.space_size ?? 0;
  return { heapUsed, heapTotal, external, arrayBuffers, newSpace };
}

/** Resident set now and its high-water mark since start (VmHWM), in bytes; and the WAL file's size. */
function memory(): { rss: number; hwm: number; wal: number } {
  const rss = process.memoryUsage().rss;
  const m = /VmHWM:\s+(\d+) kB/.exec(fs.readFileSync('/proc/self/status', 'utf8'));
  const file = process.argv[3];
  const wal = file && fs.existsSync(`${file}-wal`) ? fs.statSync(`${file}-wal`).size : 0;
  return { rss, hwm: m ? Number(m[1]) * 1024 : rss, wal };
}

type Listening = {
  port: number;
  server: import('node:http').Server;
  close: () => Promise<void>;
  commits?: CommitLog;
  walFile?: string;
  site?: () => SiteView | null;
};

/** Listens on 127.0.0.1, any free port; closing stops the app, then its database. */
async function listen(
  app: {
    listen(o: { host: string; port: number }): Promise<string>;
    close(): PromiseLike<unknown>;
    server: import('node:http').Server;
  },
  db?: Db,
): Promise<Listening> {
  await app.listen({ host: '127.0.0.1', port: 0 });
  return {
    port: (app.server.address() as { port: number }).port,
    server: app.server,
    close: async () => {
      await app.close();
      db?.close();
    },
  };
}

async function start(): Promise<Listening> {
  const [mode, file] = process.argv.slice(2);
  if (mode === 'box') {
    const db = openDatabase(file!);
    await migrateToLatest(db); // as main.ts does; a no-op on the filled database
    // The bench hears the write queue's commits too, beside the box's metrics (its one observer), once the box
    // has started and set it.
    const commits: CommitLog = { active: false, commits: [], fsyncs: [], pieces: [] };
    const hearCommits = () => {
      const o = db.writes.observe(undefined);
      db.writes.observe({
        committed: (priority, units, ms) => {
          o?.committed(priority, units, ms);
          if (commits.active && priority === 'foreground') commits.commits.push({ units, ms });
          if (commits.active && priority === 'background') commits.pieces?.push(ms);
        },
        synced: (priority, ms) => {
          o?.synced(priority, ms);
          if (commits.active && priority === 'foreground') commits.fsyncs.push(ms);
        },
        failed: (priority, stage) => o?.failed(priority, stage),
      });
    };
    // The site needs the box's tenant named (fill.ts makes one more for the key's owner).
    const tenant = process.env.BENCH_SITE || process.env.BENCH_CLOUD ? TENANT : undefined;
    const siteLink = process.env.BENCH_SITE ? (JSON.parse(process.env.BENCH_SITE) as SiteConfig) : undefined;
    const cloud = process.env.BENCH_CLOUD ? (JSON.parse(process.env.BENCH_CLOUD) as SyncSpec) : undefined;
    const handheld = process.env.BENCH_HANDHELD ? (JSON.parse(process.env.BENCH_HANDHELD) as HandheldSpec) : undefined;
    // As `npm start` runs it (issue 25): the logger of main.ts at info, writing each line to a file (BENCH_LOGGER=off:
    // none, the figures of earlier issues).
    const logger =
      process.env.BENCH_LOGGER === 'off'
        ? false
        : createLogger({ logLevel: 'info' }, pino.destination({ dest: `${file}.log`, sync: true, mkdir: true }));
    const clock = createClock('America/Sao_Paulo');
    const box = createBox({ database: db, clock, logger, siteLink, tenant, cloud, handheld });
    const { app, status } = await box.start();
    hearCommits();
    const listening = await listen(app, db);
    // The box closes its parts (the site link drains and leaves the hub), then the database it was given.
    const close = async () => {
      await box.close();
      db.close();
    };
    return { ...listening, close, commits, walFile: `${file}-wal`, site: () => status.site() };
  }
  if (mode === 'door') {
    const db = openDatabase(file!);
    const data = JSON.parse(fs.readFileSync(process.argv[4]!, 'utf8')) as Record<string, unknown>;
    const auth = createAuth({ db, clock: createClock('America/Sao_Paulo') });
    // The recorded answer stands for the view the route asks for (serialised on every request, as the
    // box's view does); the result only says "granted".
    const reply = async () => ({ batch: false, result: { ok: true }, view: asJson(data) });
    const checkin = { checkIn: reply, reverse: reply } as unknown as CheckinService;
    return listen(
      await buildApp({ logger: false, v1: [checkinRoutes({ auth, checkin, slots: createByteSlots(), db })] }),
      db,
    );
  }
  if (mode === 'floor') {
    const { app, db } = floorApp(file!, `${file}.log`);
    return listen(app, db);
  }
  if (mode === 'baseline') {
    const app = Fastify({ logger: false });
    app.post('/echo', async (request) => {
      const body = request.body as { qr_code?: string; terminal?: string };
      return { success: true, data: { message: 'ok', qr_code: body.qr_code ?? null, terminal: body.terminal ?? null } };
    });
    return listen(app);
  }
  throw new Error(
    `unknown mode ${mode ?? '(none)'}: use box <file>, door <file> <answer file>, floor <file> or baseline`,
  );
}

try {
  const server = await start();
  let stopObserving: (() => Observed) | null = null;
  const profiler = createProfiler();
  process.on('message', (m: ParentMessage) => {
    if (m.type === 'mem') send({ type: 'mem', ...memory() });
    if (m.type === 'heap') send({ type: 'heap', ...heapParts() });
    if (m.type === 'site') send({ type: 'site', view: server.site?.() ?? null });
    if (m.type === 'observe') {
      stopObserving = observe(server.server, { commits: server.commits, walFile: server.walFile });
      send({ type: 'observing' });
    }
    if (m.type === 'observed' && stopObserving) {
      send({ type: 'observed', ...stopObserving() });
      stopObserving = null;
    }
    if (m.type === 'profile') void profiler.start().then(() => send({ type: 'profiling' }));
    if (m.type === 'profiled')
      void profiler.stop().then((profile) => send({ type: 'profiled', split: splitProfile(profile) }));
    if (m.type === 'stop')
      void server.close().then(() => {
        send({ type: 'stopped' });
        process.disconnect();
      });
  });
  send({ type: 'ready', port: server.port, pid: process.pid });
} catch (err) {
  send({ type: 'error', message: err instanceof Error ? (err.stack ?? err.message) : String(err) });
  process.exitCode = 1;
  process.disconnect();
}

/** The main thread's CPU profile between start and stop, sampled every 250 µs. */
function createProfiler() {
  const session = new Session();
  session.connect();
  return {
    async start() {
      await session.post('Profiler.enable');
      await session.post('Profiler.setSamplingInterval', { interval: 250 });
      await session.post('Profiler.start');
    },
    async stop(): Promise<CpuProfile> {
      const { profile } = await session.post('Profiler.stop');
      await session.post('Profiler.disable');
      return profile as unknown as CpuProfile;
    },
  };
}
