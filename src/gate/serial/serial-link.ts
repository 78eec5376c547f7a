import { stat } from 'node:fs/promises';
import { SerialPort } from 'serialport';
import type { ByteLink, LinkState } from './byte-link.js';
import { systemClock, type Clock } from '../../clock.js';
import type { Log } from '../../lib/log.js';
import { realTimers, type TimerFns } from '../../lib/timers.js';

// A serial port that keeps itself open: every loss (open failure, port error or close, failed or
// stuck write, a driver's reconnect request, the path probe) takes the link 'down', logs once per
// outage, and reopens with exponential backoff and jitter, forever. Nothing here throws out.
//
// Detecting a dead port. On Linux a hung-up tty (USB unplugged, socat killed) usually makes
// serialport close the port by itself, and a write fails; drivers that write (bridge heartbeats)
// also find out that way. But serialport's poller sometimes misses the hang-up (seen with a write
// in flight), and a line-mode scanner's driver never writes, so the link also probes every
// second: stat() the path and compare device, inode and rdev with what they were right after the
// open (a USB unplug removes the node and its /dev/serial/by-id link, a killed socat leaves it
// dangling, a replug makes a new node: "gone" or "changed" both mean reopen), and read the open
// port's settings (TCGETS2), which fails with EIO on a hung-up tty for good, even once the device
// is back behind the same path: a cable out and in between two probes is still one loss. Neither
// disturbs the device (no bytes, no modem lines, no USB-CDC reset).

/** A port that is open; `onLost` fires at most once when it fails or closes by itself. */
export interface OpenedPort {
  write(data: Uint8Array): Promise<void>;
  /** Rejects once the port is dead (hung up, closed); absent where the port cannot be asked. */
  check?(): Promise<void>;
  close(): Promise<void>;
}

export type OpenPort = (opts: {
  path: string;
  baudRate: number;
  onData(chunk: Buffer): void;
  onLost(err: Error): void;
}) => Promise<OpenedPort>;

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

export const identifyDevice = async (path: string): Promise<string> => {
  const st = await stat(path);
  return `${st.dev}:${st.ino}:${st.rdev}`;
};

export const openSerialPort: OpenPort = async ({ path, baudRate, onData, onLost }) => {
  const port = new SerialPort({ path, baudRate, autoOpen: false });
  await new Promise<void>((resolve, reject) => port.open((err) => (err ? reject(err) : resolve())));
  let lost = false;
  const lose = (err: Error) => {
    if (lost) return;
    lost = true;
    onLost(err);
  };
  port.on('data', onData);
  port.on('error', lose);
  port.on('close', (err?: Error | null) => lose(err ?? new Error('porta fechada')));
  // Only for a port that answers it right after the open (Linux ttys do; other platforms may not).
  const readSettings = async () => {
    if (!port.isOpen || !port.port) throw new Error('porta fechada');
    await port.port.getBaudRate();
  };
  const canCheck = await readSettings().then(
    () => true,
    () => false,
  );
  return {
    ...(canCheck ? { check: readSettings } : {}),
    write: (data) =>
      new Promise<void>((resolve, reject) => {
        // A write on a closed SerialPort waits for a reopen that never comes.
        if (!port.isOpen) return reject(new Error('porta fechada'));
        port.write(Buffer.from(data), (err) => (err ? reject(err) : resolve()));
      }),
    close: () =>
      new Promise<void>((resolve) => {
        lost = true;
        if (!port.isOpen) return resolve();
        port.close(() => resolve());
      }),
  };
};

const message = (err: unknown) => (err instanceof Error ? err.message : String(err));

export function openSerialLink(opts: SerialLinkOptions): SerialLink {
  const { path, baudRate, log, timers = realTimers, random = Math.random, clock = systemClock } = opts;
  const { initialMs, maxMs, stableMs = 10_000 } = opts.backoff ?? { initialMs: 200, maxMs: 5_000 };
  const probeEvery = opts.probe === false ? null : (opts.probe?.intervalMs ?? 1_000);
  const identify = (opts.probe !== false && opts.probe?.identify) || identifyDevice;
  const openPort = opts.openPort ?? openSerialPort;
  const writeTimeoutMs = opts.writeTimeoutMs ?? 2_000;
  const dataListeners = new Set<(chunk: Buffer) => void>();
  const stateListeners = new Set<(state: LinkState) => void>();

  let port: OpenedPort | null = null;
  let closed = false;
  let since = clock.now();
  let opened = 0;
  let failures = 0;
  let lastError: string | null = null;
  // One outage lasts until the link has stayed up for stableMs; only its first down and first up are logged.
  let outage: { announcedUp: boolean } | null = null;
  let retryTimer: unknown = null;
  let probeTimer: unknown = null;
  let stableTimer: unknown = null;
  const quiet = (obj: object, msg: string) => log.debug?.(obj, msg);

  function emit<T>(listeners: Set<(v: T) => void>, value: T): void {
    for (const l of listeners) {
      try {
        l(value);
      } catch (err) {
        log.error({ err, path }, 'serial link listener failed');
      }
    }
  }

  function clearTimers(): void {
    for (const t of [retryTimer, probeTimer, stableTimer]) if (t !== null) timers.clearTimeout(t);
    retryTimer = probeTimer = stableTimer = null;
  }

  function scheduleRetry(): void {
    const ceiling = Math.min(maxMs, initialMs * 2 ** Math.min(failures, 30));
    // Equal jitter: never sooner than half the step, so lanes that lost a hub together spread out.
    const delay = Math.round(ceiling / 2 + (random() * ceiling) / 2);
    failures++;
    retryTimer = timers.setTimeout(() => {
      retryTimer = null;
      void connect();
    }, delay);
  }

  function startOutage(err: unknown, what: string): void {
    lastError = message(err);
    if (outage) return quiet({ path, err: lastError }, what);
    outage = { announcedUp: false };
    log.warn({ path, err: lastError }, `${what}; reopening with backoff`);
  }

  function lose(err: unknown, what: string): void {
    if (closed || !port) return;
    const dead = port;
    port = null;
    clearTimers();
    since = clock.now();
    startOutage(err, what);
    void dead.close().catch(() => undefined);
    emit(stateListeners, 'down');
    scheduleRetry();
  }

  function probe(identity: string): void {
    if (probeEvery === null) return;
    probeTimer = timers.setTimeout(() => {
      probeTimer = null;
      const current = port;
      if (!current) return;
      const hungUp = current.check
        ? current.check().then(
            () => null,
            (err: unknown) => err ?? new Error('porta sem resposta'),
          )
        : null;
      const seen = identify(path).then(
        (id) => ({ id }),
        (err: unknown) => ({ err }),
      );
      void Promise.all([seen, hungUp]).then(([who, dead]) => {
        if (closed || port !== current) return;
        if ('err' in who) lose(who.err, 'serial device path gone');
        else if (who.id !== identity) lose(new Error('o dispositivo no caminho mudou'), 'serial device replaced');
        else if (dead) lose(dead, 'serial port hung up');
        else probe(identity);
      });
    }, probeEvery);
  }

  async function connect(): Promise<void> {
    let next: OpenedPort | null = null;
    let lostEarly: Error | null = null;
    // Bytes that arrive before 'up' is announced (a board's BOOT right after the open) are kept for it.
    let early: Buffer[] | null = [];
    try {
      next = await openPort({
        path,
        baudRate,
        onData: (chunk) => {
          if (early) early.push(chunk);
          else if (port !== null && port === next) emit(dataListeners, chunk);
        },
        onLost: (err) => {
          if (port !== null && port === next) lose(err, 'serial port lost');
          else lostEarly = err;
        },
      });
    } catch (err) {
      if (closed) return;
      const firstTry = opened === 0 && failures === 0;
      startOutage(err, opened === 0 ? 'cannot open serial port' : 'serial port reopen failed');
      // A port missing from the start is known down: said once, so its lane can record the device offline.
      if (firstTry) emit(stateListeners, 'down');
      scheduleRetry();
      return;
    }
    // A path that vanished right after the open gets identity '' and the first probe reports it.
    const identity = probeEvery === null ? '' : await identify(path).catch(() => '');
    if (closed) return void next.close().catch(() => undefined);
    port = next;
    since = clock.now();
    const first = opened++ === 0;
    if (outage && !outage.announcedUp) {
      outage.announcedUp = true;
      log.info({ path, baudRate, reconnects: opened - 1 }, first ? 'serial port open' : 'serial port open again');
    } else if (first) log.info({ path, baudRate }, 'serial port open');
    else quiet({ path, reconnects: opened - 1 }, 'serial port open again');
    stableTimer = timers.setTimeout(() => {
      stableTimer = null;
      outage = null;
      failures = 0;
    }, stableMs);
    emit(stateListeners, 'up');
    for (const chunk of early.splice(0)) if (port === next) emit(dataListeners, chunk);
    early = null;
    if (lostEarly) return lose(lostEarly, 'serial port lost');
    // A listener may already have asked for a reconnect.
    if (port === next) probe(identity);
  }

  function write(data: Uint8Array): Promise<void> {
    const current = port;
    if (!current) return Promise.reject(new Error(`porta serial ${path} fechada`));
    return new Promise<void>((resolve, reject) => {
      const fail = (err: Error) => {
        lose(err, 'serial write failed');
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
          if (port === current) fail(err instanceof Error ? err : new Error(message(err)));
          else reject(err instanceof Error ? err : new Error(message(err)));
        },
      );
    });
  }

  void connect();

  return {
    path,
    write,
    onData(listener) {
      dataListeners.add(listener);
      return () => dataListeners.delete(listener);
    },
    onState(listener) {
      stateListeners.add(listener);
      return () => stateListeners.delete(listener);
    },
    isUp: () => port !== null,
    reconnect(reason) {
      lose(new Error(reason), 'serial peer not answering');
    },
    status: () => ({
      path,
      up: port !== null,
      since: since.toISOString(),
      reconnects: Math.max(0, opened - 1),
      lastError,
    }),
    async close() {
      closed = true;
      clearTimers();
      const current = port;
      port = null;
      dataListeners.clear();
      stateListeners.clear();
      if (current) await current.close().catch(() => undefined);
    },
  };
}

/** `SerialPort.list()` needs udevadm (absent in containers): then it is [] and a warning. */
export async function listSerialPorts(
  log: Log,
  list: () => Promise<PortInfo[]> = () => SerialPort.list(),
): Promise<PortInfo[]> {
  try {
    return await list();
  } catch (err) {
    log.warn({ err: message(err) }, 'cannot list serial ports (udevadm missing?); use /dev/serial/by-id paths');
    return [];
  }
}

export type PortInfo = Awaited<ReturnType<typeof SerialPort.list>>[number];
