import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Pool } from 'undici';
import { siteAnswerSchema, type SiteMode, type SiteView } from '../../src/site/site.answers.js';
import { gate } from '../cli/run.js';
import { BIN, ROOT } from './gate-process.js';
import { exited, freePort, spawnTied, type Hub } from './site-hub.js';
import { openSiteLane, type SiteLane } from './site-lanes.js';
import { SITE_TZ } from './site-tickets.js';
import { startTcpProxy, type LinkMode, type TcpProxy } from './tcp-proxy.js';

// One box of a test site as a real process (`node bin/gate.js serve` on dist/, as gate-process.ts runs it): its own
// data dir made with the real CLI (tenant, the shared import file, its own API key), its own TCP proxy in front of
// the hub. It counts as started when its HTTP listens (its start line): a box never waits for the hub.

export const SITE_TENANT = 'parque';
const CHECKIN = '/api/v1/api-qrcode-checkin';
const START_LINE = /"url":"(https?:[^"]+)"[^\n]*"gate appliance listening"/;

export interface Answer {
  status: number;
  body: any;
}

export interface BoxLane extends SiteLane {
  /** Scans on the lane's scanner, once the box has the port open. */
  scan(code: string): Promise<void>;
  /** The lane's counters as the box shows them (GET /api/local/gates): leituras, liberadas, negadas... */
  counters(): Promise<Record<string, number>>;
}

export interface SiteBox {
  name: string;
  /** http://127.0.0.1:port; the same after a restart. */
  url: string;
  dataDir: string;
  /** Its own key: vouchers:checkin, vouchers:read, local:read. */
  apiKey: string;
  /** Between this box and the hub; undefined without a hub. */
  proxy: TcpProxy | undefined;
  /** Its entrance lane on ptys, when made with `lanes: true`; `scan` waits until the box has the scanner open. */
  lane: BoxLane | undefined;
  /** The environment it runs with (GATE_SITE_* included when on the site). */
  env: NodeJS.ProcessEnv;
  checkin(qr: string, terminal?: string): Promise<Answer>;
  reverse(qr: string, terminal?: string): Promise<Answer>;
  /** Any request with the box's key, e.g. POST /api/local/saida. */
  request(method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE', urlPath: string, body?: unknown): Promise<Answer>;
  /** Authenticated GET of any path (/api/local/site, /api/local/eventos, /metrics...). */
  get(urlPath: string): Promise<Answer>;
  /** GET /api/local/site's data, checked against its schema. */
  siteView(): Promise<SiteView>;
  /** Its site mode (GET /api/local/site). */
  mode(): Promise<SiteMode>;
  /** Waits until the box is in this mode (the test's timeout bounds it). */
  untilMode(mode: SiteMode): Promise<void>;
  running(): boolean;
  /** SIGKILL (power lost), and waits for the exit. */
  kill(): Promise<void>;
  /** SIGTERM (systemctl stop), and waits for the exit; resolves with its exit code. */
  stop(): Promise<number | null>;
  /** Starts it again: same data dir, port and environment. */
  start(): Promise<void>;
  /** Its stdout and stderr since the boxes were made, every run. */
  logs(): string;
  /** Its JSON log lines (pino) so far, every run, parsed. */
  logLines(): Record<string, unknown>[];
}

/** How a box is made (startBoxes' options, for one box). */
export interface BoxSpec {
  /** Every box of the site (GATE_SITE_BOXES). */
  names: string[];
  hub?: Hub;
  /** Sets GATE_SITE_* (with a hub). */
  site: boolean;
  link: LinkMode;
  env?: NodeJS.ProcessEnv | ((name: string, dataDir: string) => NodeJS.ProcessEnv);
  lanes?: boolean;
}

/** Polls `check` every 50 ms until it holds (the test's own timeout bounds the wait; `what` names the failure). */
export async function until(what: string, check: () => boolean | Promise<boolean>, limitMs = 60_000): Promise<void> {
  const end = Date.now() + limitMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`never happened: ${what}`);
    await sleep(50);
  }
}

async function prepare(dataDir: string, importFile: string, name: string): Promise<string> {
  const steps = [
    ['tenants', 'create', SITE_TENANT, '--name', 'Parque do Site'],
    ['import', '--tenant', SITE_TENANT, importFile],
    ['keys', 'create', '--tenant', SITE_TENANT, '--permissions', 'vouchers:checkin,vouchers:read,local:read'],
  ];
  steps[2]!.push('--name', `caixa-${name}`);
  let key = '';
  for (const argv of steps) {
    const run = await gate(dataDir, argv, { env: { GATE_TIMEZONE: SITE_TZ } });
    if (run.code !== 0) throw new Error(`gate ${argv.join(' ')} failed (${run.code}): ${run.stderr}`);
    key = run.stdout.trim();
  }
  return key;
}

/** Makes the box's data dir, proxy and lane; does not start it. */
export async function makeBox(name: string, root: string, importFile: string, opts: BoxSpec) {
  const dataDir = path.join(root, name);
  fs.mkdirSync(dataDir);
  const apiKey = await prepare(dataDir, importFile, name);
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const proxy = opts.hub ? await startTcpProxy({ host: '127.0.0.1', port: opts.hub.port }) : undefined;
  proxy?.mode(opts.link);
  const rig = opts.lanes ? await openSiteLane(name, dataDir) : undefined;
  const extra = typeof opts.env === 'function' ? opts.env(name, dataDir) : (opts.env ?? {});
  const inherited = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('GATE_')));
  const env: NodeJS.ProcessEnv = {
    ...inherited,
    GATE_DATA_DIR: dataDir,
    GATE_TENANT: SITE_TENANT,
    GATE_TIMEZONE: SITE_TZ,
    GATE_HOST: '127.0.0.1',
    GATE_PORT: String(port),
    GATE_LOG_LEVEL: 'info',
    ...(rig ? { GATE_CONFIG: rig.file } : {}),
    ...(opts.site && opts.hub && proxy
      ? {
          GATE_SITE_NATS_URLS: proxy.url,
          GATE_SITE_BOX: name,
          GATE_SITE_BOXES: opts.names.join(','),
          GATE_SITE_NATS_PASSWORD_FILE: opts.hub.passwordFile(name),
        }
      : {}),
    ...extra,
  };

  let child: ChildProcess | undefined;
  let pool: Pool | undefined;
  let log = '';
  let laneOpen = false;
  const running = () => child !== undefined && child.exitCode === null && child.signalCode === null;

  const start = async () => {
    if (running()) throw new Error(`box ${name} is running`);
    const c = spawnTied(process.execPath, [BIN, 'serve'], { env, cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    child = c;
    const from = log.length;
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`box ${name} did not start in 60 s:\n${log.slice(from)}`)),
        60_000,
      );
      const read = (chunk: Buffer) => {
        log += chunk.toString();
        if (START_LINE.test(log.slice(from))) {
          clearTimeout(timer);
          resolve();
        }
      };
      c.stdout!.on('data', read);
      c.stderr!.on('data', read);
      c.once('exit', (code, signal) => {
        clearTimeout(timer);
        reject(new Error(`box ${name} exited (${code ?? signal}) while starting:\n${log.slice(from)}`));
      });
    });
    pool = new Pool(url, { connections: 16 });
    laneOpen = false;
  };
  // The process goes first, then the client's connections: an answer already on its way is still read, and a
  // request in flight when the box dies fails as a client would see it.
  const signal = async (sig: NodeJS.Signals) => {
    const c = child;
    if (c && running()) {
      const done = exited(c);
      c.kill(sig);
      await done;
    }
    const p = pool;
    pool = undefined;
    await p?.destroy();
    return c?.exitCode ?? null;
  };

  const request: SiteBox['request'] = async (method, urlPath, body) => {
    if (!pool) throw new Error(`box ${name} is not running`);
    const res = await pool.request({
      method,
      path: urlPath,
      headers: { 'x-api-key': apiKey, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? null : JSON.stringify(body),
    });
    const text = await res.body.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      // Not JSON (/metrics): the text itself.
    }
    return { status: res.statusCode, body: parsed };
  };
  const siteView = async () => {
    const answer = await request('GET', '/api/local/site');
    if (answer.status !== 200)
      throw new Error(`GET /api/local/site at ${name}: ${answer.status} ${JSON.stringify(answer.body)}`);
    return siteAnswerSchema.parse(answer.body).data;
  };
  const mode = async (): Promise<SiteMode> => (await siteView()).modo;
  const withTerminal = (qr: string, terminal: string | undefined) => ({
    qr_code: qr,
    ...(terminal === undefined ? {} : { terminal }),
  });

  return {
    name,
    url,
    dataDir,
    apiKey,
    proxy,
    lane: rig && {
      ...rig,
      async scan(code: string) {
        if (!laneOpen) {
          await until(`box ${name} opens its scanner`, async () => {
            const gates = await request('GET', '/api/local/gates');
            return gates.body?.data?.pistas?.[0]?.leitores?.[0]?.conectado === true;
          });
          laneOpen = true;
        }
        await rig.scanRaw(code);
      },
      counters: async () => (await request('GET', '/api/local/gates')).body.data.pistas[0].contadores,
    },
    env,
    checkin: (qr: string, terminal = `catraca-${name}`) => request('POST', CHECKIN, withTerminal(qr, terminal)),
    reverse: (qr: string, terminal = `catraca-${name}`) => request('PATCH', CHECKIN, withTerminal(qr, terminal)),
    request,
    get: (urlPath: string) => request('GET', urlPath),
    siteView,
    mode,
    untilMode: (wanted: SiteMode) => until(`box ${name} in mode ${wanted}`, async () => (await mode()) === wanted),
    running,
    kill: async () => {
      await signal('SIGKILL');
    },
    stop: () => signal('SIGTERM'),
    start,
    logs: () => log,
    logLines: () => parseLines(log),
    dispose: async () => {
      await signal('SIGKILL');
      await proxy?.close();
      await rig?.close();
    },
  };
}

const parseLines = (text: string) =>
  text
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .flatMap((l) => {
      try {
        return [JSON.parse(l) as Record<string, unknown>];
      } catch {
        return []; // a line being written
      }
    });
