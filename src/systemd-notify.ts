import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { Db } from './db/open.js';
import type { Log } from './lib/log.js';

// What the box tells systemd under Type=notify (systemd/gate.service, docs/operations.md "Service"):
// READY=1 once it listens and its lanes run, WATCHDOG=1 while it is really healthy, STOPPING=1 at
// the stop. Node has no unix datagram socket and native addons are out, so each message is sent by
// systemd's own `systemd-notify`. A message from a child that has already exited may not be
// attributed to the service; since systemd 246, systemd-notify (without --no-block) waits, up to
// 5 s, for the manager to confirm it has processed the message (sd_notify_barrier), so with
// NotifyAccess=all the message counts as the service's (systemd-notify(1), 247 and 252 pages;
// systemd commit 5ec7a99 "sd_notify() race is gone with sd_notify_barrier()"; src/notify/notify.c).
// Debian 12 and Raspberry Pi OS bookworm ship systemd 252.

type Fields = Record<string, string | number>;

export interface Notifier {
  /** NOTIFY_SOCKET is set: a service manager listens. */
  readonly enabled: boolean;
  /** Sends the fields as one message, after any message still being sent; false when it did not go. */
  send(fields: Fields): Promise<boolean>;
  /** WATCHDOG=1, unless a message is still being sent (a hung systemd-notify is never waited behind). */
  ping(): Promise<boolean>;
}

/** A hung systemd-notify is killed after this (its own wait for the manager gives up after 5 s). */
const SEND_TIMEOUT_MS = 10_000;

export function createNotifier({
  env,
  log,
  command = 'systemd-notify',
}: {
  env: NodeJS.ProcessEnv;
  log: Log;
  command?: string;
}): Notifier {
  const socket = env.NOTIFY_SOCKET;
  // Only what systemd-notify needs: the box's environment holds the cloud's keys.
  const childEnv = { NOTIFY_SOCKET: socket, PATH: env.PATH ?? '/usr/local/bin:/usr/bin:/bin' };
  let missing = false;
  let failing = false;
  let busy = 0;
  let tail: Promise<unknown> = Promise.resolve();

  const run = (fields: Fields) =>
    new Promise<boolean>((resolve) => {
      // One assignment per argument; a value never spans lines (the message is newline-separated).
      const args = Object.entries(fields).map(([k, v]) => `${k}=${String(v).replace(/[\r\n]+/g, ' ')}`);
      execFile(
        command,
        args,
        { env: childEnv, timeout: SEND_TIMEOUT_MS, killSignal: 'SIGKILL' },
        (error, _stdout, stderr) => {
          if (!error) {
            failing = false;
            return resolve(true);
          }
          if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
            missing = true;
            log.warn(
              { comando: command },
              'systemd-notify not found: systemd hears nothing from the box (READY, WATCHDOG); install the systemd package',
            );
          } else if (!failing) {
            failing = true;
            log.warn(
              { erro: String(stderr).trim() || error.message },
              'systemd-notify failed; said once until it works again',
            );
          }
          resolve(false);
        },
      );
    });

  const send = (fields: Fields) => {
    if (!socket || missing) return Promise.resolve(false);
    busy++;
    const sent = tail.then(() => (missing ? false : run(fields))).finally(() => busy--);
    tail = sent;
    return sent;
  };

  return {
    enabled: Boolean(socket),
    send,
    ping: () => (busy > 0 ? Promise.resolve(false) : send({ WATCHDOG: 1 })),
  };
}

/**
 * How often to ping: a third of WATCHDOG_USEC, the interval systemd set (WatchdogSec=), so that one
 * withheld ping leaves a gap of two thirds and only two in a row reach the limit (at half, a single
 * withheld ping would race the deadline by the few ms a ping takes). Undefined when there is no
 * watchdog, or it watches another process (WATCHDOG_PID).
 */
export function watchdogEveryMs(env: NodeJS.ProcessEnv, pid = process.pid): number | undefined {
  const usec = Number(env.WATCHDOG_USEC);
  if (!env.NOTIFY_SOCKET || !Number.isFinite(usec) || usec <= 0) return undefined;
  if (env.WATCHDOG_PID !== undefined && env.WATCHDOG_PID !== '' && Number(env.WATCHDOG_PID) !== pid) return undefined;
  return usec / 1000 / 3;
}

/** What keeps the box from being healthy, in Portuguese for the journal and `systemctl status`; null when healthy. */
export type Probe = () => Promise<string | null>;

/** Below this free space the disk counts as full, as for src/db/storage.ts. */
const MIN_FREE_BYTES = 1024 * 1024;

/**
 * Whether the database really takes a write: the file and its directory writable (a chmod, a file
 * system remounted read-only), room on the disk, and a real durable commit through the box's write
 * queue (a row of storage_probe, migration 0005, with the time of the probe): a disk whose writes or
 * fsyncs fail, a database locked by another process. Async: the event loop never waits on it.
 */
export function databaseWriteProbe(db: Db, nowIso: () => string): Probe {
  const file = db.sqlite.memory ? undefined : db.sqlite.name;
  const stamp = db.statement('INSERT OR REPLACE INTO storage_probe (id, at) VALUES (1, ?)');
  return async () => {
    try {
      if (file) {
        await fs.access(file, fs.constants.W_OK);
        await fs.access(path.dirname(file), fs.constants.W_OK);
        const { bavail, bsize } = await fs.statfs(path.dirname(file));
        if (bavail * bsize < MIN_FREE_BYTES) return 'banco sem gravação: disco cheio';
      }
      await db.writes.run(() => stamp.run(nowIso()));
      return null;
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      return `banco sem gravação: ${typeof code === 'string' ? code : error instanceof Error ? error.message : String(error)}`;
    }
  };
}

export interface Watchdog {
  stop(): void;
}

/**
 * Pings every `everyMs` while the box is healthy: the event loop turns (the timer runs on it) and
 * was not held longer than half a ping interval (at least 1 s) since the last check, and the probe
 * passes. Otherwise it withholds the ping and says why, once per change (journal and STATUS=);
 * systemd restarts the box when no ping comes for the whole WatchdogSec. A probe that never ends
 * (a hung disk) withholds every later ping.
 */
export function startWatchdog({
  notifier,
  everyMs,
  probe,
  log,
  status,
}: {
  notifier: Notifier;
  everyMs: number;
  probe: Probe;
  log: Log;
  status: string;
}): Watchdog {
  const lagLimitMs = Math.max(1000, everyMs / 2);
  const delay = monitorEventLoopDelay({ resolution: 20 });
  delay.enable();
  let withheld: string | null = null;
  let checking = false;
  let stopped = false;

  const judge = (problem: string | null) => {
    // Said on each change between healthy and not, with the first reason, not on every tick.
    if (stopped || (problem === null) === (withheld === null)) return;
    if (problem) log.warn({ motivo: problem }, 'watchdog: pings withheld; systemd restarts the box if this lasts');
    else log.info({ motivo: withheld }, 'watchdog: pings resumed');
    withheld = problem;
    void notifier.send({ STATUS: problem ? `com problema: ${problem}` : status });
  };

  const tick = async () => {
    if (checking) return judge('verificação do banco sem resposta');
    checking = true;
    try {
      const lagMs = Math.round(delay.max / 1e6);
      delay.reset();
      const problem = lagMs > lagLimitMs ? `laço de eventos parado por ${lagMs} ms` : await probe();
      judge(problem);
      if (!problem && !stopped) await notifier.ping();
    } finally {
      checking = false;
    }
  };

  void tick();
  const timer = setInterval(() => void tick(), everyMs);
  timer.unref();
  return {
    stop() {
      stopped = true;
      clearInterval(timer);
      delay.disable();
    },
  };
}

/** A start may take this long once migrations are pending (EXTEND_TIMEOUT_USEC): a large database on an SD card. */
const MIGRATION_ALLOWANCE_USEC = 30 * 60 * 1_000_000;

export interface SystemdLink {
  /** Seconds of WatchdogSec= (WATCHDOG_USEC), null without a watchdog. */
  readonly watchdogSeconds: number | null;
  /** Before migrating: more time for the start than TimeoutStartSec=, only when there is something to migrate. */
  migrating(pending: number): Promise<void>;
  /** READY=1 with a status line, then the watchdog's pings. */
  ready(status: string, probe: Probe): Promise<void>;
  /** STOPPING=1: no more pings. */
  stopping(reason: string): Promise<void>;
}

/** The box's side of Type=notify; does nothing when the box was not started by systemd (no NOTIFY_SOCKET). */
export function linkToSystemd({
  env,
  log,
  pid = process.pid,
}: {
  env: NodeJS.ProcessEnv;
  log: Log;
  pid?: number;
}): SystemdLink {
  const notifier = createNotifier({ env, log });
  const everyMs = watchdogEveryMs(env, pid);
  let watchdog: Watchdog | undefined;
  const sent = async (fields: Fields) => void (await notifier.send(fields));
  return {
    watchdogSeconds: everyMs === undefined ? null : Number(env.WATCHDOG_USEC) / 1_000_000,
    migrating: (pending) =>
      pending > 0
        ? sent({ STATUS: `aplicando ${pending} migração(ões) do banco`, EXTEND_TIMEOUT_USEC: MIGRATION_ALLOWANCE_USEC })
        : Promise.resolve(),
    async ready(status, probe) {
      await sent({ READY: 1, STATUS: status });
      if (everyMs !== undefined && notifier.enabled)
        watchdog = startWatchdog({ notifier, everyMs, probe, log, status });
    },
    stopping(reason) {
      watchdog?.stop();
      return sent({ STOPPING: 1, STATUS: `encerrando (${reason})` });
    },
  };
}
