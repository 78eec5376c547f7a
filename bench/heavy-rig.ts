import { fork } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { request } from 'undici';
import { createApiKey } from '../src/auth/api-keys.js';
import { addDays, type Clock } from '../src/clock.js';
import { openDatabase } from '../src/db/open.js';
import type { SyncSpec } from '../src/sync/sync.start.js';
import { createOperator } from '../src/operators/operators.repo.js';
import { findTenant } from '../src/tenants/tenants.repo.js';
import { startTcpProxy, type TcpProxy } from '../test/support/tcp-proxy.js';
import { fillDatabase, TENANT, type FillResult } from './fill.js';
import { startChild, type Child } from './load.js';
import { siteLinkOf, startHub, type BenchHub } from './site-hub.js';
import { when } from './site-load.js';

// The parts of heavy.bench.ts besides the box itself: the database (with old events for the archive), the fake
// cloud, the site's hub with a second box (norte) and a TCP proxy on each box's link, a paired handheld.

const here = path.dirname(fileURLToPath(import.meta.url));

export interface Cloud {
  pid: number;
  spec: SyncSpec;
  seedSeconds: number;
  /** Makes round `r`'s orders new to the box's key; resolves to how many. */
  release(round: number): Promise<number>;
  close(): Promise<void>;
}

/** The fake cloud in its own process at nice 19 (a real cloud is not on the box's two cores), all rounds seeded. */
export async function startCloud(rounds: number, orders: number): Promise<Cloud> {
  const child = fork(path.join(here, 'heavy-cloud.js'), [String(rounds), String(orders), '2'], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  os.setPriority(child.pid!, 19);
  const next = <T>(type: string) =>
    new Promise<T>((resolve, reject) => {
      const onExit = (code: number | null) => reject(new Error(`the fake cloud exited with ${code}`));
      child.once('exit', onExit);
      child.on('message', function on(m: { type: string }) {
        if (m.type !== type) return;
        child.off('message', on);
        child.off('exit', onExit);
        resolve(m as T);
      });
    });
  const ready = await next<{ url: string; keys: { box: string; integration: string }; seedSeconds: number }>('ready');
  return {
    pid: child.pid!,
    seedSeconds: ready.seedSeconds,
    // GATE_CLOUD_* as systemd/gate.env.example leaves them (config.ts defaults): a pull every 5 s, a push every 1 s.
    spec: {
      url: ready.url,
      apiKey: ready.keys.box,
      integrationKey: ready.keys.integration,
      tenant: TENANT,
      timeoutMs: 15_000,
      pullSeconds: 5,
      pushSeconds: 1,
      refreshCron: '*/15 * * * *',
      fullRefreshCron: '30 3 * * *',
      daysAhead: 3,
    },
    async release(round) {
      const done = next<{ orders: number }>('released');
      child.send({ cmd: 'release', round });
      return (await done).orders;
    },
    close: async () => {
      if (child.exitCode !== null) return;
      const exit = new Promise((r) => child.once('exit', r));
      child.send({ cmd: 'close' });
      await exit;
    },
  };
}

/** Days ago of each round's old events: round r's archive (GATE_ARCHIVE_DAYS = ARCHIVE_DAYS[r]) moves them. */
const OLD_AGE = [300, 200, 100];
export const ARCHIVE_DAYS = [250, 150, 90];

export interface Prepared extends FillResult {
  file: string;
  readerKey: string;
  supervisor: { nome: string; segredo: string };
}

/**
 * The box's database: `orders` orders of 4 people, a key that reads listings, a supervisor, and per round
 * `oldEvents` check-ins dated OLD_AGE[r] days ago that the cloud accepted long since (what `gate archive` moves).
 */
export async function prepareDatabase(file: string, clock: Clock, orders: number, oldEvents: number, rounds: number) {
  const fill = await fillDatabase(file, clock, orders);
  const db = openDatabase(file);
  try {
    const tenantId = findTenant(db, TENANT)!.id;
    const nowIso = clock.nowIso();
    const readerKey = createApiKey(db, { tenantId, name: 'bench-erp', permissions: ['all'], nowIso }).key;
    const supervisor = { nome: 'Sara', segredo: '4321' };
    await createOperator(db, { tenantId, papel: 'supervisor', nowIso, ...supervisor });
    const event = db.sqlite.prepare(
      `INSERT INTO events (tenant_id, occurred_at, action, mode, code, qr_code, result, key_name, terminal, source)
       VALUES (?, ?, 'checkin', 'qr', ?, ?, 'ok', 'bench-gate', 'catraca-1', 'api')`,
    );
    const push = db.sqlite.prepare(
      `INSERT INTO sync_push (event_id, tenant_id, chave, action, status, attempts, first_sent_at, last_sent_at, resultado, settled_at)
       VALUES (?, ?, ?, 'checkin', 'concluido', 1, ?, ?, 'aceito', ?)`,
    );
    db.sqlite.pragma('synchronous = OFF');
    for (let r = 0; r < rounds; r++) {
      const day = addDays(clock.today(), -OLD_AGE[r % OLD_AGE.length]!);
      const start = clock.startOfLocalDate(day).getTime() + 9 * 3_600_000;
      db.sqlite.transaction(() => {
        for (let i = 0; i < oldEvents; i++) {
          const at = new Date(start + i * 1000).toISOString();
          const qr = `OLD${r}-${i}`;
          const id = Number(event.run(tenantId, at, qr, qr).lastInsertRowid);
          const settled = new Date(start + i * 1000 + 60_000).toISOString();
          push.run(id, tenantId, qr, at, at, settled);
        }
      })();
    }
    db.sqlite.pragma('wal_checkpoint(TRUNCATE)');
    return { ...fill, file, readerKey, supervisor } satisfies Prepared;
  } finally {
    db.close();
  }
}

export interface Site {
  hub: BenchHub;
  /** The second box, on its own copy of the database. */
  a: Child;
  proxyA: TcpProxy;
  proxyB: TcpProxy;
  /** The measured box's BENCH_SITE. */
  envB: string;
  close(): Promise<void>;
}

/** The hub, norte (A) started on `fileA` behind its proxy; the measured box (sul, B) is started by the caller. */
export async function startSite(fileA: string): Promise<Site> {
  const boxes = ['norte', 'sul'];
  const hub = await startHub([...boxes, 'bench']);
  const target = { host: '127.0.0.1', port: hub.port };
  const [proxyA, proxyB] = [await startTcpProxy(target), await startTcpProxy(target)];
  const link = (box: string, proxy: TcpProxy) => JSON.stringify({ ...siteLinkOf(hub, box, boxes), urls: [proxy.url] });
  const a = await startChild(['box', fileA], [], { ...process.env, BENCH_SITE: link('norte', proxyA) });
  await when('norte in site mode', async () => (await a.site())?.modo === 'site', 30_000, 20);
  return {
    hub,
    a,
    proxyA,
    proxyB,
    envB: link('sul', proxyB),
    close: async () => {
      await a.stop();
      await proxyA.close();
      await proxyB.close();
      await hub.close();
    },
  };
}

export interface Device {
  key: string;
  name: string;
}

/** Pairs a handheld as a park does (docs/handheld.md): the supervisor's console makes a token, the device sends it. */
export async function pairHandheld(base: string, supervisor: Prepared['supervisor']): Promise<Device> {
  const post = async (url: string, body: object, headers: Record<string, string> = {}) => {
    const res = await request(`${base}${url}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });
    const text = await res.body.text();
    if (res.statusCode >= 300) throw new Error(`${url} answered ${res.statusCode}: ${text}`);
    return { json: JSON.parse(text) as { data: Record<string, unknown> }, cookie: res.headers['set-cookie'] };
  };
  const signIn = await post('/api/console/entrar', { ...supervisor, tenant: TENANT, estacao: 'escritorio' });
  const cookie = String(signIn.cookie).split(';')[0]!;
  const csrf = signIn.json.data.csrf as string;
  const token = (await post('/api/console/handhelds/pareamento', {}, { cookie, 'x-csrf-token': csrf })).json.data
    .token as string;
  const paired = await post('/api/handheld/parear', { token, nome: 'coletor-1', versao_app: '1.0.0' });
  return { key: paired.json.data.chave as string, name: 'coletor-1' };
}

/** The `gate` command on the box's data directory, with the box's own environment (systemd/gate.env). */
export function gateEnv(dataDir: string, cloud: SyncSpec | undefined): NodeJS.ProcessEnv {
  return {
    ...process.env,
    GATE_DATA_DIR: dataDir,
    GATE_TENANT: TENANT,
    ...(cloud
      ? {
          GATE_CLOUD_URL: cloud.url,
          GATE_CLOUD_API_KEY: cloud.apiKey,
          GATE_CLOUD_INTEGRATION_KEY: cloud.integrationKey,
        }
      : {}),
  };
}

export const removeDir = (dir: string) => fs.rmSync(dir, { recursive: true, force: true });
