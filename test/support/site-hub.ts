import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connect, type ConnectionOptions, type NatsConnection } from '@nats-io/transport-node';
import { hubFiles, natsUser } from '../../src/site/hub-config.js';
import { hubTls } from '../../src/site/hub-tls.js';
import { encodeMessage, signingKey, subjectOf } from '../../src/site/site-messages.js';
import { tempDir } from './temp.js';

// The site's hub as a park runs it (docs/site.md): Debian's nats-server with the configuration `gate site
// hub-config` writes, on loopback ports the test picks. Every process started here is killed when the test file
// ends, also when it ends by a failure before its own cleanup ran.

export const NATS_SERVER = '/usr/sbin/nats-server';

/** A free TCP port on loopback (free now; the caller binds it next). */
export const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });

/** Children of this test file: SIGKILLed at its exit, whatever happened before. */
const running = new Set<ChildProcess>();
let exitHookSet = false;
export function track(child: ChildProcess): void {
  running.add(child);
  child.once('exit', () => running.delete(child));
  if (exitHookSet) return;
  exitHookSet = true;
  process.once('exit', () => {
    for (const c of running) c.kill('SIGKILL');
  });
}

// util-linux's setpriv (Essential on Debian) execs the program with "kill me when my parent dies": a test worker
// killed outright (a timeout, SIGKILL) leaves no nats-server or box behind either. Same pid, so signals reach it.
const SETPRIV = '/usr/bin/setpriv';
const tie = fs.existsSync(SETPRIV);

/** Spawns `command` as a child of this test file that dies with it. */
export function spawnTied(command: string, args: string[], options: SpawnOptions): ChildProcess {
  const child = tie
    ? spawn(SETPRIV, ['--pdeathsig', 'KILL', '--', command, ...args], options)
    : spawn(command, args, options);
  track(child);
  return child;
}

/** Resolves when `child` exits (at once if it already has). */
export const exited = (child: ChildProcess) =>
  new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once('exit', () => resolve());
  });

export interface StoredMessage {
  seq: number;
  subject: string;
  data: string;
  /** Nats-Msg-Id, when published with one. */
  msgId: string | undefined;
}

/** The name the first site tests knew it by. */
export type TestHub = Hub;

export interface Hub {
  /** nats://127.0.0.1:port, straight to the hub (a box reaches it through its own proxy). */
  url: string;
  port: number;
  monitorPort: number;
  storeDir: string;
  boxes: readonly string[];
  /** The box's password file (mode 0600): what GATE_SITE_NATS_PASSWORD_FILE names. */
  passwordFile(box: string): string;
  password(box: string): string;
  /** A client as that box's user; `servers` defaults to the hub itself (give a proxy's URL to go through it). */
  connect(box: string, options?: ConnectionOptions): Promise<NatsConnection>;
  /** Every message of a stream now on the hub, in order (read as the first box's user): what the boxes published. */
  read(stream: string): Promise<StoredMessage[]>;
  /** GET of the hub's monitoring endpoint (`varz`, `connz`, `jsz`...), parsed. */
  monitor(endpoint: string): Promise<Record<string, unknown>>;
  /** Whether nats-server is running. */
  running(): boolean;
  /** Everything nats-server wrote since it was last started. */
  logs(): string;
  /** SIGTERM, and waits for the exit (nats-server flushes its store). */
  stop(): Promise<void>;
  /** SIGKILL, and waits for the exit. */
  kill(): Promise<void>;
  /** Starts it again on the same port, with the same configuration and store (stopping it first if it runs). */
  restart(): Promise<void>;
  /** While stopped: removes the JetStream store ("the hub lost its data"). */
  wipeStore(): void;
  /** Stops it and removes every file. */
  close(): Promise<void>;
}

export interface HubStart {
  boxes: string[];
  /** TLS only (hub-config's --tls-cert/--tls-key); the test's own clients check the hub against `caFile`. */
  tls?: { certFile: string; keyFile: string; caFile: string };
}

/** Starts nats-server for these boxes on a free loopback port; resolves once it accepts clients. */
export async function startHub(opts: HubStart): Promise<Hub> {
  const dir = tempDir('gate-hub-');
  const port = await freePort();
  const monitorPort = await freePort();
  const storeDir = path.join(dir, 'jetstream');
  const conf = path.join(dir, 'nats-server.conf');
  const files = hubFiles({ boxes: opts.boxes, listen: `127.0.0.1:${port}`, storeDir, monitorPort, tls: opts.tls });
  fs.writeFileSync(conf, files.config, { mode: 0o600 });
  fs.mkdirSync(path.join(dir, 'senhas'), { mode: 0o700 });
  for (const [box, password] of files.passwords)
    fs.writeFileSync(path.join(dir, 'senhas', box), `${password}\n`, { mode: 0o600 });

  let child: ChildProcess | undefined;
  let log = '';
  const running = () => child !== undefined && child.exitCode === null && child.signalCode === null;

  const start = async () => {
    log = '';
    const c = spawnTied(NATS_SERVER, ['-c', conf], { stdio: ['ignore', 'pipe', 'pipe'] });
    child = c;
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`nats-server did not start in 20 s:\n${log}`)), 20_000);
      const read = (chunk: Buffer) => {
        log += chunk.toString();
        if (log.includes('Server is ready')) {
          clearTimeout(timer);
          resolve();
        }
      };
      c.stdout!.on('data', read);
      c.stderr!.on('data', read);
      c.once('exit', (code, signal) => {
        clearTimeout(timer);
        reject(new Error(`nats-server exited (${code ?? signal}):\n${log}`));
      });
    });
  };
  const signal = async (sig: NodeJS.Signals) => {
    if (!child || !running()) return;
    const done = exited(child);
    child.kill(sig);
    await done;
  };

  await start();
  const connectAs = (box: string, options: ConnectionOptions = {}) =>
    connect({
      servers: `127.0.0.1:${port}`,
      user: natsUser(box),
      pass: fs.readFileSync(passwordFile(box), 'utf8').trim(),
      ...(opts.tls ? hubTls({ urls: [`nats://127.0.0.1:${port}`], caFile: opts.tls.caFile }) : {}),
      ...options,
    });
  const passwordFile = (box: string) => {
    if (!files.passwords.has(box)) throw new Error(`box ${box} is not in this hub's configuration`);
    return path.join(dir, 'senhas', box);
  };
  return {
    url: `nats://127.0.0.1:${port}`,
    port,
    monitorPort,
    storeDir,
    boxes: Object.freeze([...opts.boxes]),
    passwordFile,
    password: (box) => fs.readFileSync(passwordFile(box), 'utf8').trim(),
    connect: connectAs,
    read: async (stream) => {
      const nc = await connectAs(opts.boxes[0]!, { reconnect: false });
      try {
        return await readStream(nc, stream);
      } finally {
        await nc.close();
      }
    },
    monitor: async (endpoint) =>
      (await (await fetch(`http://127.0.0.1:${monitorPort}/${endpoint}`)).json()) as Record<string, unknown>,
    running,
    logs: () => log,
    stop: () => signal('SIGTERM'),
    kill: () => signal('SIGKILL'),
    restart: async () => {
      await signal('SIGTERM');
      await start();
    },
    wipeStore: () => {
      if (running()) throw new Error('the hub is running: stop() or kill() it before wiping its store');
      fs.rmSync(storeDir, { recursive: true, force: true });
    },
    close: async () => {
      await signal('SIGKILL');
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function readStream(nc: NatsConnection, stream: string): Promise<StoredMessage[]> {
  const { state } = await (await jetstreamManager(nc)).streams.info(stream);
  const out: StoredMessage[] = [];
  if (state.messages === 0) return out;
  const messages = await (await jetstream(nc).consumers.get(stream)).consume();
  for await (const m of messages) {
    out.push({ seq: m.seq, subject: m.subject, data: m.string(), msgId: m.headers?.get('Nats-Msg-Id') || undefined });
    if (m.seq >= state.last_seq) break;
  }
  await messages.close();
  return out;
}

/** A box's place in a test site on this hub, as GATE_SITE_* would say it (the hub's URL, the box's password file). */
export const siteLinkOf = (hub: Hub, box: string, boxes: readonly string[] = hub.boxes, casTimeoutMs = 150) => ({
  urls: [hub.url],
  box,
  boxes: [...boxes],
  user: `gate-${box}`,
  passwordFile: hub.passwordFile(box),
  caFile: undefined,
  casTimeoutMs,
  replicas: 1,
});

/**
 * A claim a box published on the hub under one of its database's runs and never recorded (it died before committing):
 * a person's `action` on `qr` at `at`, signed as that box, with the site id `id`. Its stream sequence.
 */
export async function publishUnrecordedClaim(
  hub: Hub,
  c: { box: string; run: string; id: string; action: 'checkin' | 'estorno'; qr: string; at: string },
): Promise<number> {
  const origin = {
    tenant: 'parque',
    box: c.box,
    boxes: hub.boxes,
    run: c.run,
    earlierRuns: new Set<string>(),
    secret: signingKey(hub.password(c.box)),
  };
  const body = encodeMessage(origin, {
    id: c.id,
    action: c.action,
    kind: 'person',
    qr: c.qr,
    code: c.qr,
    mode: 'qr',
    at: c.at,
    area: 'parque',
    terminal: `${c.box}-1`,
    operator: null,
    source: 'lane',
    local: false,
  });
  const nc = await connect({ servers: hub.url, user: `gate-${c.box}`, pass: hub.password(c.box) });
  try {
    return (await jetstream(nc).publish(subjectOf('parque', 'person', c.qr), body, { msgID: c.id })).seq;
  } finally {
    await nc.close();
  }
}
