import { spawn } from 'node:child_process';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { Agent, request } from 'undici';
import { qrOf } from './fill.js';
import type { Child } from './load.js';
import { int } from './report.js';
import { ARCHIVE_DAYS, gateEnv, type Cloud, type Device, type Prepared, type Site } from './heavy-rig.js';
import { benchClient } from './site-hub.js';
import { boxFile, when } from './site-load.js';

// The heavy work of heavy.bench.ts, one workload per phase. Each may set things up first (not measured), then runs
// while the probe times its check-ins; a workload whose work starts later than the phase (the box's next scheduled
// pull) gives the window, in ms since the epoch, of its own work: the probe's check-ins outside it are left out.

export interface Ctx {
  box: Child;
  /** The site's box (sul), on its own copy of the database: the catch-up's, with a baseline of its own. */
  siteBox?: Child | undefined;
  siteFile: string;
  base: string;
  agent: Agent;
  fill: Prepared;
  seconds: number;
  dataDir: string;
  /** People for each kind of work, so that none scans a ticket another already used (after a pass: refusals). */
  people: { batches: number; catchUp: (round: number) => number; handheld: (round: number) => number };
  catchUp: number;
  uploads: number;
  cloud?: Cloud | undefined;
  site?: Site | undefined;
  device?: Device | undefined;
}

export interface Done {
  text: string;
  window?: [number, number];
  /** orders/s (ingest), movements/s (catch-up). */
  rate?: number;
}

export interface Workload {
  name: string;
  /** The site's box (ctx.siteBox) instead of the main one. */
  site?: boolean;
  prepare?(ctx: Ctx, round: number): Promise<void>;
  run(ctx: Ctx, round: number): Promise<Done>;
}

const here = path.dirname(fileURLToPath(import.meta.url));
const GATE = path.resolve(here, '../../bin/gate.js');
const epoch = () => performance.timeOrigin + performance.now();

// The heavy clients stand for ERPs and back offices on other machines: they read each answer's bytes without
// decoding them, so that this process takes as little as it can of the two cores it shares with the box.
async function drain(body: AsyncIterable<unknown>) {
  for await (const _ of body);
}

async function post(ctx: Ctx, url: string, body: unknown, headers: Record<string, string>, base = ctx.base) {
  const res = await request(`${base}${url}`, {
    method: 'POST',
    dispatcher: ctx.agent,
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  await drain(res.body);
  if (res.statusCode !== 200) throw new Error(`${url} answered ${res.statusCode}`);
}

let nextBatch = 0;
const batches: Workload = {
  name: 'batches',
  async run(ctx) {
    const until = performance.now() + ctx.seconds * 1000;
    let n = 0;
    const client = async () => {
      while (performance.now() < until) {
        const codes = Array.from({ length: 1000 }, () => qrOf(nextBatch++ % ctx.people.batches)).join(',');
        await post(
          ctx,
          '/api/v1/api-qrcode-checkin',
          { qr_code: codes, terminal: 'lote' },
          { 'x-api-key': ctx.fill.apiKey },
        );
        n++;
      }
    };
    await Promise.all([client(), client()]);
    return { text: `${n} batches of 1,000 codes (2 clients)` };
  },
};

const listings: Workload = {
  name: 'listings',
  async run(ctx) {
    const until = performance.now() + ctx.seconds * 1000;
    let n = 0;
    const client = async () => {
      while (performance.now() < until) {
        const offset = (n++ * 1000) % ctx.fill.orders;
        const res = await request(
          `${ctx.base}/api/v1/api-vouchers?limit=1000&marcar_sincronizado=false&offset=${offset}`,
          {
            dispatcher: ctx.agent,
            headers: { 'x-api-key': ctx.fill.readerKey },
          },
        );
        await drain(res.body);
      }
    };
    await Promise.all([client(), client()]);
    return { text: `${n} pages of 1,000 orders (2 clients)` };
  },
};

/** New orders in the cloud; the box's own pull schedule (every 5 s) finds and stores them. */
const ingest: Workload = {
  name: 'ingest',
  async run(ctx, round) {
    const db = new Database(ctx.fill.file, { readonly: true, fileMustExist: true });
    try {
      // The new orders take the ids after the newest (a rowid is the largest plus one; none is deleted meanwhile), so
      // the newest id says how many are stored: counting them read up to 100,000 rows every 20 ms, a third of a core
      // taken from the box it measures (bench's CPU 25–31 % during the ingest).
      const newestId = db.prepare('SELECT coalesce(max(id), 0) FROM orders').pluck();
      const newest = newestId.get() as number;
      const orders = await ctx.cloud!.release(round);
      const released = epoch();
      let first = NaN;
      let atFirst = 0;
      await when(
        `the box to store ${orders} orders`,
        () => {
          const n = (newestId.get() as number) - newest;
          if (n > 0 && Number.isNaN(first)) [first, atFirst] = [epoch(), n];
          return n >= orders;
        },
        600_000,
        20,
      );
      const end = epoch();
      const rate = (orders - atFirst) / ((end - first) / 1000);
      return {
        text: `${int(orders)} orders stored in ${((end - first) / 1000).toFixed(1)} s after the first page (the pull began ${((first - released) / 1000).toFixed(1)} s after the release): ${int(rate)} orders/s`,
        window: [first, end],
        rate,
      };
    } finally {
      db.close();
    }
  },
};

/** The box (sul) away from the hub while norte checks in `catchUp` people; then its link comes back. */
const catchUp: Workload = {
  name: 'catchup',
  site: true,
  async prepare(ctx, round) {
    const site = ctx.site!;
    const hub = await benchClient(site.hub, 'bench');
    try {
      // norte is kept away between catch-ups (on a site it is another machine: here it would share the 2 cores).
      site.proxyA.mode('pass');
      await when('norte in site mode', async () => (await site.a.site())?.modo === 'site', 60_000, 50);
      site.proxyB.mode('reset');
      await when('sul in local mode', async () => (await ctx.siteBox!.site())?.modo === 'local', 60_000, 20);
      const from = ctx.people.catchUp(round);
      const base = `http://127.0.0.1:${site.a.port}`;
      for (let i = 0; i < ctx.catchUp; i += 1000) {
        const codes = Array.from({ length: Math.min(1000, ctx.catchUp - i) }, (_, j) => qrOf(from + i + j));
        await post(
          ctx,
          '/api/v1/api-qrcode-checkin',
          { qr_code: codes.join(','), terminal: 'norte' },
          { 'x-api-key': ctx.fill.apiKey },
          base,
        );
      }
      // Everything norte decided is on the hub (the stream stops growing) before it goes away again.
      let last = -1;
      for (let seq = await hub.lastSeq(); seq !== last; seq = await hub.lastSeq()) {
        last = seq;
        await sleep(500);
      }
      site.proxyA.mode('reset');
    } finally {
      await hub.close();
    }
  },
  async run(ctx) {
    const site = ctx.site!;
    const hub = await benchClient(site.hub, 'bench');
    const file = boxFile(ctx.siteFile);
    try {
      const target = await hub.lastSeq();
      const before = file.applied();
      const t0 = epoch();
      site.proxyB.mode('pass');
      await when('sul to apply every movement', () => file.applied() >= target, 300_000, 5);
      const end = epoch();
      const rate = (target - before) / ((end - t0) / 1000);
      return {
        text: `${int(target - before)} movements applied in ${((end - t0) / 1000).toFixed(2)} s from the link's return: ${int(rate)}/s`,
        window: [t0, end],
        rate,
      };
    } finally {
      file.close();
      await hub.close();
    }
  },
};

/** One handheld's offline queue uploaded as the app does: requests of up to 500 movements, one after another. */
const handheld: Workload = {
  name: 'handheld',
  async run(ctx, round) {
    const from = ctx.people.handheld(round);
    const today = ctx.fill.today;
    const decided = new Date(Date.now() - 60_000).toISOString();
    for (let i = 0; i < ctx.uploads; i += 500) {
      const itens = Array.from({ length: Math.min(500, ctx.uploads - i) }, (_, j) => ({
        id: `r${round}-mv-${i + j}`,
        codigo: qrOf(from + i + j),
        acao: 'checkin',
        resultado: 'ok',
        decidido_em: decided,
        operador: 'Bia',
        dados_de: today,
      }));
      await post(
        ctx,
        '/api/handheld/movimentos',
        { enviado_em: new Date().toISOString(), itens },
        {
          'x-handheld-key': ctx.device!.key,
        },
      );
    }
    return { text: `${int(ctx.uploads)} movements in ${Math.ceil(ctx.uploads / 500)} requests` };
  },
};

/** `gate ...` as a process of its own; `prefix`: the nice/ionice of its systemd unit. */
function gate(ctx: Ctx, args: string[], prefix: string[] = []) {
  const [cmd, ...rest] = [...prefix, process.execPath, GATE, ...args];
  const child = spawn(cmd!, rest, { env: gateEnv(ctx.dataDir, ctx.cloud?.spec), stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr.on('data', (d: Buffer) => (output += d.toString()));
  return new Promise<string>((resolve, reject) =>
    child.once('exit', (code) =>
      code === 0 ? resolve(output) : reject(new Error(`gate ${args[0]} exited ${code}: ${output}`)),
    ),
  );
}

/** `gate backup`: typed by the operator at the box's shell, or as systemd/gate-backup.service runs it nightly. */
const backupAs = (name: string, prefix: string[]): Workload => ({
  name,
  async run(ctx) {
    const t0 = performance.now();
    const said = await gate(ctx, ['backup', '--to', path.join(ctx.dataDir, 'backups'), '--keep', '1'], prefix);
    const size = /(\d+\.\d) MB/.exec(said)?.[1] ?? '?';
    const stages = /\(cópia ([\d.]+) s, verificação ([\d.]+) s\)/.exec(said);
    const split = stages ? ` (copy ${stages[1]} s, check ${stages[2]} s)` : '';
    return { text: `${size} MB copied and checked in ${((performance.now() - t0) / 1000).toFixed(1)} s${split}` };
  },
});
const backup = backupAs('backup', []);
/** The timer's unit: Nice=10, idle I/O class. */
const backupTimer = backupAs('backup-timer', ['ionice', '-c3', 'nice', '-n10']);

/** The nightly archive as systemd/gate-archive.service runs it (Nice=10, best-effort I/O priority 7). */
const archive: Workload = {
  name: 'archive',
  async run(ctx, round) {
    const t0 = performance.now();
    const days = String(ARCHIVE_DAYS[round % ARCHIVE_DAYS.length]);
    const said = await gate(ctx, ['archive', '--days', days], ['ionice', '-c2', '-n7', 'nice', '-n10']);
    const moved = /movidos: (\d+) eventos?/.exec(said)?.[1] ?? '0';
    const longest = /maior transação no banco: ([\d.]+) ms/.exec(said)?.[1] ?? '?';
    return {
      text: `${int(Number(moved))} events moved in ${((performance.now() - t0) / 1000).toFixed(1)} s (longest delete ${longest} ms)`,
    };
  },
};

export const WORKLOADS: readonly Workload[] = [
  batches,
  listings,
  ingest,
  catchUp,
  handheld,
  backup,
  backupTimer,
  archive,
];
