import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { hubFiles } from '../src/site/hub-config.js';
import { STREAM } from '../src/site/site-messages.js';

// The site's hub for site.bench.ts: Debian's nats-server with the configuration `gate site hub-config` writes, on
// loopback ports of its own, its JetStream store in a temp folder (as test/support/site-hub.ts does; bench/ does
// not import test/). Plus what the bench itself asks the hub: the floor (a bare JetStream publish-ack) and the site
// stream's last sequence.

export interface BenchHub {
  url: string;
  passwordFile(box: string): string;
  stop(): Promise<void>;
  /** Starts the stopped hub again on the same store; resolves when it says it is ready. */
  start(): Promise<void>;
  close(): Promise<void>;
}

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });

export async function startHub(boxes: string[]): Promise<BenchHub> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gate-bench-hub-'));
  const port = await freePort();
  const files = hubFiles({
    boxes,
    listen: `127.0.0.1:${port}`,
    storeDir: path.join(dir, 'jetstream'),
    monitorPort: await freePort(),
  });
  const conf = path.join(dir, 'nats-server.conf');
  fs.writeFileSync(conf, files.config, { mode: 0o600 });
  for (const [box, password] of files.passwords)
    fs.writeFileSync(path.join(dir, `senha-${box}`), password, { mode: 0o600 });
  let server: ChildProcess | undefined;
  const start = () =>
    new Promise<void>((resolve, reject) => {
      const child = spawn('nats-server', ['-c', conf], { stdio: ['ignore', 'pipe', 'pipe'] });
      server = child;
      let log = '';
      const timer = setTimeout(() => reject(new Error(`nats-server did not start:\n${log}`)), 20_000);
      const read = (chunk: Buffer) => {
        log += chunk.toString();
        if (log.includes('Server is ready')) {
          clearTimeout(timer);
          resolve();
        }
      };
      child.stdout!.on('data', read);
      child.stderr!.on('data', read);
      child.once('exit', (code) => reject(new Error(`nats-server exited (${code}):\n${log}`)));
    });
  const stop = async () => {
    const child = server;
    server = undefined;
    if (!child || child.exitCode !== null) return;
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    await exited;
  };
  await start();
  return {
    url: `nats://127.0.0.1:${port}`,
    passwordFile: (box) => path.join(dir, `senha-${box}`),
    stop,
    start,
    close: async () => {
      await stop();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The bench's own connection to the hub, as user gate-<box>. */
export async function benchClient(hub: BenchHub, box: string) {
  const nc = await connect({
    servers: [hub.url],
    user: `gate-${box}`,
    pass: fs.readFileSync(hub.passwordFile(box), 'utf8').trim(),
    maxReconnectAttempts: -1,
    reconnectTimeWait: 250,
  });
  const js = jetstream(nc);
  const jsm = await jetstreamManager(nc);
  return {
    /** The site stream's last sequence. */
    lastSeq: async () => (await jsm.streams.info(STREAM)).state.last_seq,
    /**
     * The floor of a claim: `count` publishes one at a time, each on a subject of its own expecting its last
     * sequence to be 0 (what a claim of a fresh ticket sends), on a stream of the bench's own with the site's
     * storage (file, one replica); the publish-ack round trip of each, in ms.
     */
    async publishAck(count: number): Promise<number[]> {
      await jsm.streams.add({ name: 'BENCH_FLOOR', subjects: ['bench.floor.>'] });
      const times: number[] = [];
      const body = new Uint8Array(400).fill(120); // about a movement's size
      for (let i = 0; i < count; i++) {
        const t0 = performance.now();
        await js.publish(`bench.floor.${i}`, body, { msgID: `floor-${i}`, expect: { lastSubjectSequence: 0 } });
        times.push(performance.now() - t0);
      }
      await jsm.streams.delete('BENCH_FLOOR');
      return times;
    },
    close: () => nc.close(),
  };
}
