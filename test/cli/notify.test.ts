import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLOSE_TIMEOUT_MS } from '../../src/cli/serve.js';
import { tempDir, TZ } from '../support/box.js';
import { ensureBuilt, ROOT, serveGate } from '../support/gate-process.js';
import { notifySocket, type NotifySocket } from '../support/notify-socket.js';
import { gate } from './run.js';

// The real `gate serve` under a stand-in for systemd's notification socket (Type=notify in
// systemd/gate.service): READY=1 once it answers, WATCHDOG=1 only while it can write its database,
// STOPPING=1 at SIGTERM, and a missing systemd-notify never stops the box.

const children: ChildProcess[] = [];

beforeAll(() => ensureBuilt());
afterAll(() => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});

/** A data dir with the park's tenant, or an empty one (`fresh`: migrations pending, the demo park). */
async function setUp(
  extra: NodeJS.ProcessEnv = {},
  { fresh = false } = {},
): Promise<{ dir: string; socket: NotifySocket; env: NodeJS.ProcessEnv }> {
  const dir = tempDir('gate-notify-');
  if (!fresh) expect((await gate(dir, ['tenants', 'create', 'parque'])).code).toBe(0);
  const socket = await notifySocket(dir, children);
  const env = {
    PATH: process.env.PATH,
    GATE_DATA_DIR: dir,
    GATE_HOST: '127.0.0.1',
    GATE_PORT: '0',
    GATE_TIMEZONE: TZ,
    NOTIFY_SOCKET: socket.path,
    ...(fresh ? {} : { GATE_TENANT: 'parque' }),
    ...extra,
  };
  return { dir, socket, env };
}

const live = (url: string) =>
  new Promise<number>((resolve, reject) => {
    http
      .get(`${url}/health/live`, { agent: false }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      })
      .on('error', reject);
  });

const exited = (child: ChildProcess) =>
  new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('gate serve under systemd (Type=notify)', () => {
  it('READY=1 when the port answers, a ping every third of the watchdog interval, STOPPING=1 and a stop line at SIGTERM', async () => {
    const { socket, env, dir } = await setUp({ WATCHDOG_USEC: '900000' }, { fresh: true });
    const box = await serveGate(env, dir, children);
    const ready = await socket.next((n) => n.fields.READY === '1', 5000);
    // The status names the port the box got (GATE_PORT=0): it was sent after listening.
    expect(ready.fields.STATUS).toBe(`atendendo em ${box.url}`);
    expect(await live(box.url)).toBe(200);
    // Before READY only the migrations' notice (more time for this start): no ping.
    const before = socket.notices.slice(0, socket.notices.indexOf(ready));
    expect(before.map((n) => n.fields)).toEqual([
      { STATUS: expect.stringMatching(/^aplicando \d+ migração/), EXTEND_TIMEOUT_USEC: '1800000000' },
    ]);
    await socket.next((n) => n.fields.WATCHDOG === '1', 3000, socket.notices.indexOf(ready) + 3);
    // Every 300 ms, not in a burst: at most one per interval (a loaded machine only makes them fewer).
    const pings = socket.count('WATCHDOG');
    await sleep(1500);
    expect(socket.count('WATCHDOG') - pings).toBeGreaterThanOrEqual(1);
    expect(socket.count('WATCHDOG') - pings).toBeLessThanOrEqual(6);
    expect(box.output()).toMatch(/"tenant":"demo".*"watchdogSegundos":0.9.*"gate appliance listening"/);

    box.child.kill('SIGTERM');
    expect(await exited(box.child)).toBe(0);
    expect(socket.notices.at(-1)!.fields).toEqual({ STOPPING: '1', STATUS: 'encerrando (SIGTERM)' });
    expect(box.output()).toMatch(/"motivo":"SIGTERM","segundosNoAr":\d+,"eventos":0,"msg":"gate appliance stopping"/);
  });

  it('withholds the pings while the database takes no write (locked by another process) and resumes after', async () => {
    const { socket, env, dir } = await setUp({ WATCHDOG_USEC: '1000000' });
    const box = await serveGate(env, dir, children);
    await socket.next((n) => n.fields.WATCHDOG === '1', 5000);
    const holder = new Database(path.join(dir, 'gate.db'));
    try {
      holder.prepare('BEGIN IMMEDIATE').run();
      // The probe's write waits for the lock (its busy_timeout, 5 s) off the event loop: the next tick finds the
      // probe still unanswered and says so.
      const problem = await socket.next((n) => (n.fields.STATUS ?? '').startsWith('com problema'), 9000);
      expect(problem.fields.STATUS).toBe('com problema: verificação do banco sem resposta');
      const pings = socket.count('WATCHDOG');
      await sleep(2000); // six ping intervals
      expect(socket.count('WATCHDOG')).toBe(pings);
      expect(box.output().match(/watchdog: pings withheld/g)).toHaveLength(1);
    } finally {
      holder.prepare('ROLLBACK').run();
      holder.close();
    }
    const from = socket.notices.length;
    await socket.next((n) => n.fields.WATCHDOG === '1', 12_000, from);
    expect(socket.notices.slice(from).map((n) => n.fields)).toContainEqual({ STATUS: `atendendo em ${box.url}` });
    expect(box.output()).toMatch(/"motivo":"verificação do banco sem resposta","msg":"watchdog: pings resumed"/);
    box.child.kill('SIGTERM');
    expect(await exited(box.child)).toBe(0);
  }, 40_000);

  it('without systemd-notify the box still serves, and says so once', async () => {
    const { env, dir } = await setUp({ WATCHDOG_USEC: '200000', PATH: '/nonexistent/gate-test' });
    const box = await serveGate(env, dir, children);
    expect(await live(box.url)).toBe(200);
    await sleep(800); // several ping intervals
    expect(await live(box.url)).toBe(200);
    expect(box.output().match(/systemd-notify not found/g)).toHaveLength(1);
    box.child.kill('SIGTERM');
    expect(await exited(box.child)).toBe(0);
  });
});

describe('systemd/gate.service', () => {
  const unit = fs.readFileSync(path.join(ROOT, 'systemd/gate.service'), 'utf8');
  const values = (key: string) => [...unit.matchAll(new RegExp(`^${key}=(.*)$`, 'gm'))].map((m) => m[1]!.trim());
  const value = (key: string) => {
    const all = values(key);
    expect(all, key).toHaveLength(1);
    return all[0]!;
  };

  it('is Type=notify with a watchdog, and what the box does fits it', () => {
    expect(value('Type')).toBe('notify');
    // systemd-notify is a child of the box: its messages count only with NotifyAccess=all.
    expect(value('NotifyAccess')).toBe('all');
    expect(values('RestrictAddressFamilies').join(' ')).toMatch(/\bAF_UNIX\b/);
    // A box busy for a few seconds (a 5 s wait on a lock) is not killed on one missed ping.
    expect(Number(value('WatchdogSec'))).toBeGreaterThanOrEqual(20);
    // The box gives up its graceful stop before systemd kills it.
    expect(Number(value('TimeoutStopSec')) * 1000).toBeGreaterThan(CLOSE_TIMEOUT_MS);
    // Node itself is the main process (WATCHDOG_PID is its pid): no shell in between.
    const [node, script, command] = value('ExecStart').split(/\s+/);
    expect(node).toBe('/usr/bin/node');
    expect(script).toBe('/opt/gate/current/bin/gate.js');
    expect(fs.existsSync(path.join(ROOT, 'bin/gate.js'))).toBe(true);
    expect(command).toBe('serve');
    // The Raspberry Pi's UART (PL011) next to USB-serial adapters, CDC boards and 8250 UARTs.
    expect(values('DeviceAllow')).toEqual(
      expect.arrayContaining(['char-ttyUSB rw', 'char-ttyACM rw', 'char-ttyS rw', 'char-ttyAMA rw']),
    );
  });
});
