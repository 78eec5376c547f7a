import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../support/site-hub.js';
import { tempDir } from '../support/temp.js';
import { gate } from '../cli/run.js';

// `gate site hub-config` (docs/site.md): the configuration it writes is run by Debian's real nats-server, which
// lets each box in with its own password and JetStream, and nobody else in at all.

const dir = tempDir('gate-hub-');
const out = path.join(dir, 'hub');
let port: number;
let monitorPort: number;
let hub: ChildProcess | undefined;

beforeAll(async () => {
  port = await freePort();
  monitorPort = await freePort();
  const made = await gate(dir, [
    'site',
    'hub-config',
    '--boxes',
    'norte,sul,leste',
    '--out',
    out,
    '--listen',
    `127.0.0.1:${port}`,
    '--store-dir',
    path.join(dir, 'jetstream'),
    '--monitor-port',
    String(monitorPort),
  ]);
  expect(made.code).toBe(0);
  hub = spawn('nats-server', ['-c', path.join(out, 'nats-server.conf')], { stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`nats-server did not start:\n${log}`)), 20_000);
    const read = (chunk: Buffer) => {
      log += chunk.toString();
      if (log.includes('Server is ready')) {
        clearTimeout(timer);
        resolve();
      }
    };
    hub!.stdout!.on('data', read);
    hub!.stderr!.on('data', read);
    hub!.once('exit', (code) => reject(new Error(`nats-server exited with ${code}:\n${log}`)));
  });
});

afterAll(async () => {
  if (hub && hub.exitCode === null) {
    const exited = new Promise((r) => hub!.once('exit', r));
    hub.kill('SIGTERM');
    await exited;
  }
});

const passwordOf = (box: string) => fs.readFileSync(path.join(out, 'senhas', box), 'utf8').trim();
const servers = () => `127.0.0.1:${port}`;

describe('gate site hub-config', () => {
  it('writes the configuration and one password file per box, readable by their owner only', () => {
    for (const file of ['nats-server.conf', 'senhas/norte', 'senhas/sul', 'senhas/leste'])
      expect(fs.statSync(path.join(out, file)).mode & 0o777).toBe(0o600);
    const passwords = ['norte', 'sul', 'leste'].map(passwordOf);
    expect(new Set(passwords).size).toBe(3);
    for (const p of passwords) expect(p).toMatch(/^[A-Za-z0-9_-]{32}$/);
  });

  it('lets each box in with its own password, with JetStream', async () => {
    for (const box of ['norte', 'sul', 'leste']) {
      const nc = await connect({ servers: servers(), user: `gate-${box}`, pass: passwordOf(box), reconnect: false });
      try {
        const info = await (await jetstreamManager(nc)).getAccountInfo();
        expect(info.limits).toBeDefined();
      } finally {
        await nc.close();
      }
    }
  });

  it('lets nobody else in: no user, a wrong password, or another box password', async () => {
    const attempts = [
      {},
      { user: 'gate-norte', pass: 'errada' },
      { user: 'gate-norte', pass: passwordOf('sul') },
      { user: 'gate-oeste', pass: passwordOf('norte') },
    ];
    for (const creds of attempts)
      await expect(connect({ servers: servers(), reconnect: false, ...creds })).rejects.toThrow(/Authorization/i);
  });

  it('serves monitoring on the hub itself only, and opens no route, leaf node or gateway', async () => {
    const conf = fs.readFileSync(path.join(out, 'nats-server.conf'), 'utf8');
    expect(conf).toContain(`http: "127.0.0.1:${monitorPort}"`);
    expect(conf).not.toMatch(/no_auth_user|cluster|leafnodes|gateway/);
    const varz = (await (await fetch(`http://127.0.0.1:${monitorPort}/varz`)).json()) as Record<string, unknown>;
    expect(varz).toMatchObject({ cluster: {}, leaf: {}, gateway: {} });
    expect((varz.cluster as { port?: number }).port ?? 0).toBe(0);
  });

  it('refuses to overwrite the passwords without --force, and names every bad box name', async () => {
    const again = await gate(dir, ['site', 'hub-config', '--boxes', 'norte', '--out', out]);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/já existe.*--force/);
    const bad = await gate(dir, ['site', 'hub-config', '--boxes', 'Norte,sul,sul', '--out', path.join(dir, 'x')]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/nome de caixa inválido: "Norte"/);
    expect(bad.stderr).toMatch(/caixa repetida: sul/);
  });
});
