import { existsSync } from 'node:fs';
import { execFile, spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

/**
 * The real bridge firmware, host-built (firmware-bridge/build/bridge-host), attached to a tty:
 * in tests the device side of a socat pty pair. Its stdout reports every output change and
 * firmware event; its stdin drives the inputs (firmware-bridge/README.md, "Host build").
 */

// From test/support/ in the tests, from dist/test/support/ in the benchmarks.
const FIRMWARE_DIR = ['../../firmware-bridge/', '../../../firmware-bridge/']
  .map((p) => fileURLToPath(new URL(p, import.meta.url)))
  .find((dir) => existsSync(`${dir}Makefile`))!;
export const BRIDGE_HOST_BINARY = `${FIRMWARE_DIR}build/bridge-host`;

export interface BoardEvent {
  /** Index in `events`: pass it (or `mark()`) as `since` to look only at later events. */
  index: number;
  /** Board clock, ms since that bridge-host process started. */
  boardMs: number;
  /** Node's performance.now() when the line was read: for latency measurements on one clock. */
  hostMs: number;
  /**
   * relay, led red, led green, buzzer, boot, hello, online, grant, deny, free, passage, fire, tty, queue_full, error.
   */
  what: string;
  value: number;
  line: string;
}

export type EventMatch = string | ((event: BoardEvent) => boolean);

export interface WaitOptions {
  /** First event index to consider; default 0 (the whole history). */
  since?: number;
  timeoutMs?: number;
}

export interface BridgeBoard {
  readonly devicePath: string;
  readonly events: readonly BoardEvent[];
  /** Index the next event will get. */
  mark(): number;
  relayOn(): boolean;
  /** First event matching `what` (and `value` when given) at or after `since`. */
  waitFor(what: EventMatch, value?: number, options?: WaitOptions): Promise<BoardEvent>;
  /** All matching events since `since`, once there are at least `count` of them. */
  waitForCount(what: EventMatch, count: number, options?: WaitOptions & { value?: number }): Promise<BoardEvent[]>;
  /** Pulses the passage sensor; resolves when the firmware has seen the rising edge. */
  setPassage(): Promise<BoardEvent>;
  /** Resolves when the firmware has taken the (debounced) change of the fire input. */
  setFire(active: boolean): Promise<BoardEvent>;
  /** A board reset (reset cause external): resolves on the new boot. */
  reset(): Promise<BoardEvent>;
  stop(): Promise<void>;
  /** stop() and a fresh process on the same tty (reset cause power-on); resolves on its boot. */
  restart(): Promise<BoardEvent>;
}

// Generous: a loaded machine may be slow; a wait ends as soon as its event comes.
const DEFAULT_TIMEOUT_MS = 15_000;
let build: Promise<void> | null = null;

/** Runs `make host` once per test process; the Makefile replaces the binary atomically. */
export function buildBridgeHost(): Promise<void> {
  build ??= promisify(execFile)('make', ['-s', '-C', FIRMWARE_DIR, 'host'], { timeout: 120_000 }).then(
    () => undefined,
    (err: unknown) => {
      build = null;
      throw err;
    },
  );
  return build;
}

function parseLine(line: string, index: number): BoardEvent {
  const m = /^(\d+) (.+?)(?: (-?\d+))?$/.exec(line);
  return {
    index,
    boardMs: m ? Number(m[1]) : NaN,
    hostMs: performance.now(),
    what: m ? m[2]! : line,
    value: m && m[3] !== undefined ? Number(m[3]) : NaN,
    line,
  };
}

interface Waiter {
  test: (event: BoardEvent) => boolean;
  resolve: (event: BoardEvent) => void;
  reject: (err: Error) => void;
}

export async function startBridgeBoard(devicePath: string): Promise<BridgeBoard> {
  await buildBridgeHost();
  const events: BoardEvent[] = [];
  let waiters: Waiter[] = [];
  let child: ChildProcessWithoutNullStreams | null = null;
  let closed: Promise<void> = Promise.resolve();
  let stderr = '';

  const failAll = (why: string) => {
    const pending = waiters;
    waiters = [];
    for (const w of pending) w.reject(new Error(why));
  };

  function spawnHost(): void {
    const proc = spawn(BRIDGE_HOST_BINARY, [devicePath], { stdio: ['pipe', 'pipe', 'pipe'] });
    child = proc;
    stderr = '';
    proc.stderr.setEncoding('utf8').on('data', (s: string) => (stderr += s));
    proc.stdin.on('error', () => undefined);
    createInterface({ input: proc.stdout }).on('line', (line) => {
      const event = parseLine(line, events.length);
      events.push(event);
      const matched = waiters.filter((w) => w.test(event));
      waiters = waiters.filter((w) => !matched.includes(w));
      for (const w of matched) w.resolve(event);
    });
    // 'close', not 'exit': by then stderr is complete, so a failed start says why.
    closed = new Promise((resolve) =>
      proc.once('close', (code, signal) => {
        if (child === proc) child = null;
        failAll(`bridge-host exited (${code ?? signal}) ${stderr.trim()}`);
        resolve();
      }),
    );
  }

  const matcher = (what: EventMatch, value?: number) =>
    typeof what === 'function'
      ? what
      : (e: BoardEvent) => e.what === what && (value === undefined || e.value === value);

  function waitFor(what: EventMatch, value?: number, { since = 0, timeoutMs = DEFAULT_TIMEOUT_MS }: WaitOptions = {}) {
    const test = matcher(what, value);
    const found = events.slice(since).find(test);
    if (found) return Promise.resolve(found);
    if (!child) return Promise.reject(new Error('bridge-host is not running'));
    return new Promise<BoardEvent>((resolve, reject) => {
      const waiter: Waiter = {
        test: (e) => e.index >= since && test(e),
        resolve: (e) => {
          clearTimeout(timer);
          resolve(e);
        },
        reject: (err) => {
          clearTimeout(timer);
          reject(err);
        },
      };
      const label = typeof what === 'string' ? `${what}${value === undefined ? '' : ` ${value}`}` : 'a matching event';
      const timer = setTimeout(() => {
        waiters = waiters.filter((w) => w !== waiter);
        const tail = events
          .slice(-15)
          .map((e) => e.line)
          .join('\n');
        reject(new Error(`no "${label}" from the board within ${timeoutMs} ms; last lines:\n${tail}`));
      }, timeoutMs);
      waiters.push(waiter);
    });
  }

  async function waitForCount(what: EventMatch, count: number, options: WaitOptions & { value?: number } = {}) {
    const test = matcher(what, options.value);
    const since = options.since ?? 0;
    const seen = () => events.slice(since).filter(test);
    let remaining = count - seen().length;
    while (remaining > 0) {
      const last = seen().at(-1);
      await waitFor(test, undefined, { ...options, since: last ? last.index + 1 : since });
      remaining--;
    }
    return seen();
  }

  function send(command: string): void {
    if (!child) throw new Error('bridge-host is not running');
    child.stdin.write(`${command}\n`);
  }

  async function start(): Promise<BoardEvent> {
    const since = events.length;
    spawnHost();
    return waitFor('boot', undefined, { since });
  }

  async function stop(): Promise<void> {
    const proc = child;
    if (!proc) return closed;
    proc.stdin.end('quit\n');
    const killer = setTimeout(() => proc.kill('SIGKILL'), 2000);
    await closed;
    clearTimeout(killer);
  }

  await start();

  return {
    devicePath,
    events,
    mark: () => events.length,
    relayOn: () => events.findLast((e) => e.what === 'relay')?.value === 1,
    waitFor,
    waitForCount,
    setPassage() {
      const since = events.length;
      send('passage');
      return waitFor('passage', undefined, { since });
    },
    setFire(active) {
      const since = events.length;
      send(`fire ${active ? 1 : 0}`);
      const lastBoot = events.findLast((e) => e.what === 'boot');
      const current = events.findLast((e) => e.what === 'fire' && e.index > (lastBoot?.index ?? -1));
      // The firmware reports changes only; asking for the state it already has is done at once.
      if ((current?.value === 1) === active) return Promise.resolve(current ?? lastBoot!);
      return waitFor('fire', active ? 1 : 0, { since });
    },
    reset() {
      const since = events.length;
      send('reset');
      return waitFor('boot', undefined, { since });
    },
    stop,
    async restart() {
      await stop();
      return start();
    },
  };
}
