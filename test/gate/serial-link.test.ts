import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { SerialPort } from 'serialport';
import { afterEach, describe, expect, it } from 'vitest';
import type { LinkState } from '../../src/gate/serial/byte-link.js';
import type { TimerFns } from '../../src/lib/timers.js';
import { openSerialLink, type SerialLinkOptions } from '../../src/gate/serial/serial-link.js';
import { listSerialPorts, openSerialPort, type OpenPort } from '../../src/gate/serial/serial-port.js';
import type { Log } from '../../src/lib/log.js';
import { openPtyPair, waitUntil, type PtyPair } from '../support/pty.js';
import { tempDir } from '../support/temp.js';

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

function recordingLog() {
  const entries: { level: string; msg: string; obj: object }[] = [];
  const at = (level: string) => (obj: object, msg: string) => void entries.push({ level, msg, obj });
  const log: Log = { info: at('info'), warn: at('warn'), error: at('error'), debug: at('debug') };
  return { log, entries, count: (level: string) => entries.filter((e) => e.level === level).length };
}

async function pair(): Promise<PtyPair> {
  const p = await openPtyPair('link');
  cleanup.push(() => p.close());
  return p;
}

function link(opts: Partial<SerialLinkOptions> & { path: string; log: Log }) {
  const l = openSerialLink({ baudRate: 115200, backoff: { initialMs: 20, maxMs: 200 }, ...opts });
  const states: LinkState[] = [];
  const received: Buffer[] = [];
  l.onState((s) => states.push(s));
  l.onData((c) => received.push(c));
  cleanup.push(() => l.close());
  return { l, states, received, text: () => Buffer.concat(received).toString() };
}

/** The device's side of the pty: a plain SerialPort, closed after the test. */
async function device(path: string) {
  const port = new SerialPort({ path, baudRate: 115200, autoOpen: false });
  await new Promise<void>((resolve, reject) => port.open((err) => (err ? reject(err) : resolve())));
  port.on('error', () => undefined);
  const chunks: Buffer[] = [];
  port.on('data', (c: Buffer) => chunks.push(c));
  cleanup.push(() => new Promise<void>((resolve) => (port.isOpen ? port.close(() => resolve()) : resolve())));
  return { port, text: () => Buffer.concat(chunks).toString(), send: (s: string) => port.write(s) };
}

describe('openSerialLink on a socat pty', () => {
  it('carries bytes both ways once up', async () => {
    const p = await pair();
    const { log } = recordingLog();
    const { l, states, text } = link({ path: p.box, log });
    await waitUntil(() => l.isUp(), 5000, 'link up');
    expect(states).toEqual(['up']);
    const dev = await device(p.device);
    await l.write(Buffer.from('ping\n'));
    await waitUntil(() => dev.text() === 'ping\n', 5000, 'device to read ping');
    dev.send('pong\n');
    await waitUntil(() => text() === 'pong\n', 5000, 'link to read pong');
    expect(l.status()).toMatchObject({ path: p.box, up: true, reconnects: 0, lastError: null });
  });

  it('reports an unplug as down, logs it once however many retries fail, and comes back by itself on replug', async () => {
    const p = await pair();
    const rec = recordingLog();
    const { l, states, text } = link({ path: p.box, log: rec.log });
    await waitUntil(() => l.isUp(), 5000, 'link up');

    await p.unplug();
    await waitUntil(() => !l.isUp(), 5000, 'link down');
    expect(states).toEqual(['up', 'down']);
    await expect(l.write(Buffer.from('x'))).rejects.toThrow(/fechada/);
    // Let several reopen attempts fail (backoff tops out at 200 ms).
    await waitUntil(
      () => rec.entries.filter((e) => e.msg === 'serial port reopen failed').length >= 3,
      10_000,
      'failed retries',
    );
    expect(rec.count('warn')).toBe(1);
    expect(l.status()).toMatchObject({ up: false, reconnects: 0 });
    expect(l.status().lastError).toBeTruthy();

    await p.replug();
    await waitUntil(() => l.isUp(), 10_000, 'link up again');
    expect(states).toEqual(['up', 'down', 'up']);
    expect(l.status()).toMatchObject({ up: true, reconnects: 1 });
    expect(rec.entries.filter((e) => e.level === 'info').map((e) => e.msg)).toEqual([
      'serial port open',
      'serial port open again',
    ]);

    const dev = await device(p.device);
    await l.write(Buffer.from('again\n'));
    await waitUntil(() => dev.text() === 'again\n', 5000, 'device to read after replug');
    dev.send('back\n');
    await waitUntil(() => text() === 'back\n', 5000, 'link to read after replug');
  });

  it('keeps retrying a path that does not exist, with growing delays, and opens it once it appears', async () => {
    const dir = tempDir('gate-link-');
    const path = join(dir, 'later');
    const rec = recordingLog();
    const delays: number[] = [];
    const timers: TimerFns = {
      setTimeout: (fn, ms) => {
        delays.push(ms);
        return setTimeout(fn, ms);
      },
      clearTimeout: (h) => clearTimeout(h as ReturnType<typeof setTimeout>),
    };
    // random() = 1 puts every delay at the top of its jitter range: exactly the backoff ceiling.
    const { l, states } = link({ path, log: rec.log, timers, random: () => 1, backoff: { initialMs: 20, maxMs: 100 } });
    await waitUntil(() => delays.length >= 6, 10_000, 'six retries');
    expect(delays.slice(0, 6)).toEqual([20, 40, 80, 100, 100, 100]);
    expect(l.isUp()).toBe(false);
    // Down once, from the first failed open; the retries add nothing.
    expect(states).toEqual(['down']);
    expect(rec.count('warn')).toBe(1);
    expect(rec.entries.find((e) => e.level === 'warn')?.msg).toMatch(/cannot open serial port/);
    expect(l.status().lastError).toMatch(/no such file|ENOENT/i);

    const p = await openPtyPairAt(path);
    await waitUntil(() => l.isUp(), 10_000, 'link up once the path exists');
    expect(states).toEqual(['down', 'up']);
    const dev = await device(p.device);
    await l.write(Buffer.from('hi'));
    await waitUntil(() => dev.text() === 'hi', 5000, 'device to read');
  });

  it('notices a dead device by its path even when the port itself reports nothing (drivers that never write)', async () => {
    const p = await pair();
    const rec = recordingLog();
    // A port whose hang-up goes unnoticed: only the path probe can tell.
    const deaf: OpenPort = (o) => openSerialPort({ ...o, onLost: () => undefined });
    const { l, states } = link({ path: p.box, log: rec.log, openPort: deaf, probe: { intervalMs: 50 } });
    await waitUntil(() => l.isUp(), 5000, 'link up');
    await p.unplug();
    await waitUntil(() => !l.isUp(), 5000, 'probe to notice');
    expect(states).toEqual(['up', 'down']);
    expect(rec.entries.find((e) => e.level === 'warn')?.msg).toMatch(/serial device path gone/);
    await p.replug();
    await waitUntil(() => l.isUp(), 10_000, 'link up again');
  });

  it('a hang-up the port did not report, with the device back behind the same path before the next probe, is one loss and one return', async () => {
    const p = await pair();
    const rec = recordingLog();
    const deaf: OpenPort = (o) => openSerialPort({ ...o, onLost: () => undefined });
    // The probe runs when the test says so; the path looks the same before and after (as a reused pty number does).
    const PROBE_MS = 777;
    const held: (() => void)[] = [];
    const timers: TimerFns = {
      setTimeout: (fn, ms) => (ms === PROBE_MS ? void held.push(fn) : setTimeout(fn, ms)),
      clearTimeout: (h) => clearTimeout(h as ReturnType<typeof setTimeout>),
    };
    const { l, states } = link({
      path: p.box,
      log: rec.log,
      openPort: deaf,
      timers,
      probe: { intervalMs: PROBE_MS, identify: async () => 'same' },
    });
    await waitUntil(() => l.isUp() && held.length === 1, 5000, 'link up, probe scheduled');
    await p.unplug();
    await p.replug();
    expect(states).toEqual(['up']);
    held.shift()!();
    await waitUntil(() => states.length === 3, 5000, 'down and up again');
    expect(states).toEqual(['up', 'down', 'up']);
    expect(rec.entries.find((e) => e.level === 'warn')?.msg).toMatch(/serial port hung up/);
    const dev = await device(p.device);
    await l.write(Buffer.from('back\n'));
    await waitUntil(() => dev.text() === 'back\n', 5000, 'device to read on the new port');
  });

  it('treats a different device behind the same path as a loss', async () => {
    const p = await pair();
    const rec = recordingLog();
    let id = 'usb-A';
    const { l, states } = link({ path: p.box, log: rec.log, probe: { intervalMs: 20, identify: async () => id } });
    await waitUntil(() => l.isUp(), 5000, 'link up');
    id = 'usb-B';
    await waitUntil(() => states.length >= 3, 5000, 'down and up again');
    expect(states.slice(0, 3)).toEqual(['up', 'down', 'up']);
    expect(rec.entries.find((e) => e.level === 'warn')?.msg).toMatch(/serial device replaced/);
  });

  it('reopens the port when its driver asks, logging one outage for a peer that keeps not answering', async () => {
    const p = await pair();
    const rec = recordingLog();
    const { l, states } = link({ path: p.box, log: rec.log, backoff: { initialMs: 10, maxMs: 40, stableMs: 60_000 } });
    await waitUntil(() => l.isUp(), 5000, 'link up');
    for (let i = 1; i <= 3; i++) {
      l.reconnect('placa não responde');
      await waitUntil(() => states.filter((s) => s === 'up').length === i + 1, 5000, `reopen ${i}`);
    }
    expect(states).toEqual(['up', 'down', 'up', 'down', 'up', 'down', 'up']);
    expect(rec.count('warn')).toBe(1);
    expect(l.status()).toMatchObject({ up: true, reconnects: 3, lastError: 'placa não responde' });
  });

  it('close() stops retrying and emits nothing more', async () => {
    const dir = tempDir('gate-link-');
    let opens = 0;
    const counting: OpenPort = (o) => {
      opens++;
      return openSerialPort(o);
    };
    const { l, states } = link({ path: join(dir, 'never'), log: recordingLog().log, openPort: counting });
    await waitUntil(() => opens >= 2, 5000, 'a retry');
    await l.close();
    const after = opens;
    await sleep(300);
    expect(opens).toBe(after);
    expect(states).toEqual(['down']);
    expect(l.isUp()).toBe(false);
  });

  it('close() on an open link releases the port: the path can be opened again at once', async () => {
    const p = await pair();
    const { l } = link({ path: p.box, log: recordingLog().log });
    await waitUntil(() => l.isUp(), 5000, 'link up');
    await l.close();
    // serialport takes an exclusive lock: a second open would fail if the first were still held.
    const again = await device(p.box);
    expect(again.port.isOpen).toBe(true);
  });
});

describe('listSerialPorts', () => {
  it('returns [] and warns when the listing fails (no udevadm in containers)', async () => {
    const rec = recordingLog();
    const ports = await listSerialPorts(rec.log, () => Promise.reject(new Error('spawn udevadm ENOENT')));
    expect(ports).toEqual([]);
    expect(rec.count('warn')).toBe(1);
  });

  it('never throws with the real listing', async () => {
    await expect(listSerialPorts(recordingLog().log)).resolves.toBeInstanceOf(Array);
  });
});

/** A pty pair whose box side appears at `path` (for the "path appears later" case). */
async function openPtyPairAt(path: string): Promise<{ device: string }> {
  const deviceLink = `${path}-device`;
  const proc = spawn('socat', [`pty,raw,echo=0,link=${path}`, `pty,raw,echo=0,link=${deviceLink}`], {
    stdio: 'ignore',
  });
  cleanup.push(async () => {
    if (proc.exitCode !== null) return;
    const exited = new Promise((resolve) => proc.once('exit', resolve));
    proc.kill('SIGKILL');
    await exited;
  });
  await waitUntil(() => existsSync(path) && existsSync(deviceLink), 5000, 'socat ptys');
  return { device: deviceLink };
}
