import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { hubFiles } from '../../src/site/hub-config.js';
import { tempDir } from './temp.js';

// A site's hub for tests: Debian's nats-server with the configuration `gate site hub-config` writes, on loopback
// ports of its own, its JetStream store in a temp folder.

export interface TestHub {
  url: string;
  port: number;
  storeDir: string;
  passwordFile(box: string): string;
  stop(): Promise<void>;
  restart(): Promise<void>;
  /** While stopped: the hub loses its JetStream store (a wiped disk). */
  wipeStore(): void;
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

export async function startHub({ boxes }: { boxes: string[] }): Promise<TestHub> {
  const dir = tempDir('gate-hub-');
  const port = await freePort();
  const storeDir = path.join(dir, 'jetstream');
  const files = hubFiles({ boxes, listen: `127.0.0.1:${port}`, storeDir, monitorPort: await freePort() });
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
    port,
    storeDir,
    passwordFile: (box) => path.join(dir, `senha-${box}`),
    stop,
    restart: async () => {
      await stop();
      await start();
    },
    wipeStore: () => fs.rmSync(storeDir, { recursive: true, force: true }),
    close: async () => {
      await stop();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
