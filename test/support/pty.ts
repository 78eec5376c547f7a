import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { tempDir } from './temp.js';

/**
 * A linked pair of Linux ptys made by socat: bytes written to one end are read at the other.
 * `unplug()` kills socat (both ends vanish, like a USB device pulled out: the paths are gone when
 * it resolves); `replug()` starts it again on the same paths.
 */
export interface PtyPair {
  /** The box's side (what a lane config names as the port path). */
  readonly box: string;
  /** The device's side (where a simulator or the host-built firmware attaches). */
  readonly device: string;
  unplug(): Promise<void>;
  replug(): Promise<void>;
  close(): Promise<void>;
}

export async function openPtyPair(name = 'port'): Promise<PtyPair> {
  const dir = tempDir('gate-pty-');
  const box = join(dir, `${name}-box`);
  const device = join(dir, `${name}-device`);
  let child: ChildProcess | null = null;

  async function start(): Promise<void> {
    const proc = spawn('socat', [`pty,raw,echo=0,link=${box}`, `pty,raw,echo=0,link=${device}`], { stdio: 'ignore' });
    child = proc;
    const deadline = Date.now() + 5000;
    while (!(existsSync(box) && existsSync(device))) {
      if (proc.exitCode !== null) throw new Error(`socat exited with ${proc.exitCode}`);
      if (Date.now() > deadline) throw new Error('socat did not create the ptys in 5 s');
      await sleep(10);
    }
  }

  async function stop(): Promise<void> {
    const proc = child;
    child = null;
    if (!proc || proc.exitCode !== null) return;
    const exited = new Promise((resolve) => proc.once('exit', resolve));
    proc.kill('SIGKILL');
    await exited;
    // socat removes its links on a clean exit only. A link left dangling could point at a pty
    // number another socat reuses meanwhile: gone at once, as a pulled USB device's node is.
    rmSync(box, { force: true });
    rmSync(device, { force: true });
  }

  await start();
  return { box, device, unplug: stop, replug: start, close: stop };
}

/** Polls `check` until it returns a truthy value or `timeoutMs` passes. */
export async function waitUntil<T>(
  check: () => T | Promise<T>,
  timeoutMs = 3000,
  what = 'condition',
): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value as NonNullable<T>;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(5);
  }
}
