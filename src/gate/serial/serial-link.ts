import type { ByteLink, LinkState } from './byte-link.js';
import { systemClock, type Clock } from '../../clock.js';
import type { Log } from '../../lib/log.js';
import { realTimers, type TimerFns } from '../../lib/timers.js';
import { identifyDevice, openSerialPort, type OpenedPort, type OpenPort } from './serial-port.js';

// A serial port that keeps itself open: every loss (open failure, port error or close, failed or
// stuck write, a driver's reconnect request, the path probe) takes the link 'down', logs once per
// outage, and reopens with exponential backoff and jitter, forever. Nothing here throws out.
// How a dead port is detected: serial-port.ts.

export interface SerialLinkStatus {
  path: string;
  up: boolean;
  /** ISO time of the last change between up and down. */
  since: string;
  /** Successful reopens after the first open. */
  reconnects: number;
  lastError: string | null;
}

export interface SerialLink extends ByteLink {
  reconnect(reason: string): void;
  status(): SerialLinkStatus;
}

export interface SerialLinkOptions {
  path: string;
  baudRate: number;
  log: Log;
  /** stableMs: a link up at least this long starts its next outage from initialMs again. */
  backoff?: { initialMs: number; maxMs: number; stableMs?: number };
  /** `identify` resolves to a string naming the device behind the path; rejects when it is gone. */
  probe?: false | { intervalMs?: number; identify?: (path: string) => Promise<string> };
  openPort?: OpenPort;
  writeTimeoutMs?: number;
  timers?: TimerFns;
  random?: () => number;
  clock?: Clock;
}

const message = (err: unknown) => (err instanceof Error ? err.message : String(err));

/** One link's state; the steps below read and change it. */
export interface SerialLinkState {
  readonly path: string;
  readonly baudRate: number;
  readonly log: Log;
  readonly timers: TimerFns;
  readonly random: () => number;
  readonly clock: Clock;
  readonly backoff: { initialMs: number; maxMs: number; stableMs: number };
  /** null: no probe. */
  readonly probeEvery: number | null;
  readonly identify: (path: string) => Promise<string>;
  readonly openPort: OpenPort;
  readonly writeTimeoutMs: number;
  readonly dataListeners: Set<(chunk: Buffer) => void>;
  readonly stateListeners: Set<(state: LinkState) => void>;
  port: OpenedPort | null;
  closed: boolean;
  since: Date;
  /** Successful opens so far. */
  opened: number;
  /** Failed opens and losses since the link was last stable: the backoff's step. */
  failures: number;
  lastError: string | null;
  /** One outage lasts until the link has stayed up for stableMs; only its first down and first up are logged. */
  outage: { announcedUp: boolean } | null;
  retryTimer: unknown;
  probeTimer: unknown;
  stableTimer: unknown;
}

export function openSerialLink(opts: SerialLinkOptions): SerialLink {
  const s = createLinkState(opts);
  void connect(s);
  return {
    path: s.path,
    write: (data) => write(s, data),
    onData(listener) {
      s.dataListeners.add(listener);
      return () => s.dataListeners.delete(listener);
    },
    onState(listener) {
      s.stateListeners.add(listener);
      return () => s.stateListeners.delete(listener);
    },
    isUp: () => s.port !== null,
    reconnect(reason) {
      lose(s, new Error(reason), 'serial peer not answering');
    },
    status: () => ({
      path: s.path,
      up: s.port !== null,
      since: s.since.toISOString(),
      reconnects: Math.max(0, s.opened - 1),
      lastError: s.lastError,
    }),
    async close() {
      s.closed = true;
      clearTimers(s);
      const current = s.port;
      s.port = null;
      s.dataListeners.clear();
      s.stateListeners.clear();
      if (current) await current.close().catch(() => undefined);
    },
  };
}

export function createLinkState(opts: SerialLinkOptions): SerialLinkState {
  const { path, baudRate, log, timers = realTimers, random = Math.random, clock = systemClock } = opts;
  const { initialMs, maxMs, stableMs = 10_000 } = opts.backoff ?? { initialMs: 200, maxMs: 5_000 };
  return {
    path,
    baudRate,
    log,
    timers,
    random,
    clock,
    backoff: { initialMs, maxMs, stableMs },
    probeEvery: opts.probe === false ? null : (opts.probe?.intervalMs ?? 1_000),
    identify: (opts.probe !== false && opts.probe?.identify) || identifyDevice,
    openPort: opts.openPort ?? openSerialPort,
    writeTimeoutMs: opts.writeTimeoutMs ?? 2_000,
    dataListeners: new Set(),
    stateListeners: new Set(),
    port: null,
    closed: false,
    since: clock.now(),
    opened: 0,
    failures: 0,
    lastError: null,
    outage: null,
    retryTimer: null,
    probeTimer: null,
    stableTimer: null,
  };
}

const quiet = (s: SerialLinkState, obj: object, msg: string) => s.log.debug?.(obj, msg);

function emit<T>(s: SerialLinkState, listeners: Set<(v: T) => void>, value: T): void {
  for (const l of listeners) {
    try {
      l(value);
    } catch (err) {
      s.log.error({ err, path: s.path }, 'serial link listener failed');
    }
  }
}

function clearTimers(s: SerialLinkState): void {
  for (const t of [s.retryTimer, s.probeTimer, s.stableTimer]) if (t !== null) s.timers.clearTimeout(t);
  s.retryTimer = s.probeTimer = s.stableTimer = null;
}

export function scheduleRetry(s: SerialLinkState): void {
  const { initialMs, maxMs } = s.backoff;
  const ceiling = Math.min(maxMs, initialMs * 2 ** Math.min(s.failures, 30));
  // Equal jitter: never sooner than half the step, so lanes that lost a hub together spread out.
  const delay = Math.round(ceiling / 2 + (s.random() * ceiling) / 2);
  s.failures++;
  s.retryTimer = s.timers.setTimeout(() => {
    s.retryTimer = null;
    void connect(s);
  }, delay);
}

function startOutage(s: SerialLinkState, err: unknown, what: string): void {
  s.lastError = message(err);
  if (s.outage) return quiet(s, { path: s.path, err: s.lastError }, what);
  s.outage = { announcedUp: false };
  s.log.warn({ path: s.path, err: s.lastError }, `${what}; reopening with backoff`);
}

/** The open port failed: down, once, and a reopen after the backoff. */
export function lose(s: SerialLinkState, err: unknown, what: string): void {
  if (s.closed || !s.port) return;
  const dead = s.port;
  s.port = null;
  clearTimers(s);
  s.since = s.clock.now();
  startOutage(s, err, what);
  void dead.close().catch(() => undefined);
  emit(s, s.stateListeners, 'down');
  scheduleRetry(s);
}

/** Every probeEvery ms: the device behind the path is still the one opened, and the port answers. */
export function probe(s: SerialLinkState, identity: string): void {
  if (s.probeEvery === null) return;
  s.probeTimer = s.timers.setTimeout(() => {
    s.probeTimer = null;
    const current = s.port;
    if (!current) return;
    const hungUp = current.check
      ? current.check().then(
          () => null,
          (err: unknown) => err ?? new Error('porta sem resposta'),
        )
      : null;
    const seen = s.identify(s.path).then(
      (id) => ({ id }),
      (err: unknown) => ({ err }),
    );
    void Promise.all([seen, hungUp]).then(([who, dead]) => {
      if (s.closed || s.port !== current) return;
      if ('err' in who) lose(s, who.err, 'serial device path gone');
      else if (who.id !== identity) lose(s, new Error('o dispositivo no caminho mudou'), 'serial device replaced');
      else if (dead) lose(s, dead, 'serial port hung up');
      else probe(s, identity);
    });
  }, s.probeEvery);
}

export async function connect(s: SerialLinkState): Promise<void> {
  const { path, baudRate, log } = s;
  let next: OpenedPort | null = null;
  let lostEarly: Error | null = null;
  // Bytes that arrive before 'up' is announced (a board's BOOT right after the open) are kept for it.
  let early: Buffer[] | null = [];
  try {
    next = await s.openPort({
      path,
      baudRate,
      onData: (chunk) => {
        if (early) early.push(chunk);
        else if (s.port !== null && s.port === next) emit(s, s.dataListeners, chunk);
      },
      onLost: (err) => {
        if (s.port !== null && s.port === next) lose(s, err, 'serial port lost');
        else lostEarly = err;
      },
    });
  } catch (err) {
    if (s.closed) return;
    const firstTry = s.opened === 0 && s.failures === 0;
    startOutage(s, err, s.opened === 0 ? 'cannot open serial port' : 'serial port reopen failed');
    // A port missing from the start is known down: said once, so its lane can record the device offline.
    if (firstTry) emit(s, s.stateListeners, 'down');
    scheduleRetry(s);
    return;
  }
  // A path that vanished right after the open gets identity '' and the first probe reports it.
  const identity = s.probeEvery === null ? '' : await s.identify(path).catch(() => '');
  if (s.closed) return void next.close().catch(() => undefined);
  s.port = next;
  s.since = s.clock.now();
  const first = s.opened++ === 0;
  if (s.outage && !s.outage.announcedUp) {
    s.outage.announcedUp = true;
    log.info({ path, baudRate, reconnects: s.opened - 1 }, first ? 'serial port open' : 'serial port open again');
  } else if (first) log.info({ path, baudRate }, 'serial port open');
  else quiet(s, { path, reconnects: s.opened - 1 }, 'serial port open again');
  s.stableTimer = s.timers.setTimeout(() => {
    s.stableTimer = null;
    s.outage = null;
    s.failures = 0;
  }, s.backoff.stableMs);
  emit(s, s.stateListeners, 'up');
  for (const chunk of early.splice(0)) if (s.port === next) emit(s, s.dataListeners, chunk);
  early = null;
  if (lostEarly) return lose(s, lostEarly, 'serial port lost');
  // A listener may already have asked for a reconnect.
  if (s.port === next) probe(s, identity);
}

/** A write that fails or does not finish in writeTimeoutMs takes the link down. */
export function write(s: SerialLinkState, data: Uint8Array): Promise<void> {
  const current = s.port;
  const { path, timers, writeTimeoutMs } = s;
  if (!current) return Promise.reject(new Error(`porta serial ${path} fechada`));
  return new Promise<void>((resolve, reject) => {
    const fail = (err: Error) => {
      lose(s, err, 'serial write failed');
      reject(err);
    };
    const timer = timers.setTimeout(
      () => fail(new Error(`escrita na porta ${path} não terminou em ${writeTimeoutMs} ms`)),
      writeTimeoutMs,
    );
    current.write(data).then(
      () => {
        timers.clearTimeout(timer);
        resolve();
      },
      (err: unknown) => {
        timers.clearTimeout(timer);
        if (s.port === current) fail(err instanceof Error ? err : new Error(message(err)));
        else reject(err instanceof Error ? err : new Error(message(err)));
      },
    );
  });
}
