import type { CheckinCaller, CheckinService } from '../../checkin/checkin.service.js';
import type { MovePolicy } from '../../checkin/movement.settings.js';
import type { Granted, Movement } from '../../checkin/result.js';
import type { Clock } from '../../clock.js';
import { AppError } from '../../http/errors.js';
import { codeHash } from '../../lib/code-hash.js';
import type { Log } from '../../lib/log.js';
import type { LaneConfig, ScannerConfig } from './lane-config.js';
import { realTimers, type TimerFns } from '../../lib/timers.js';
import type { DenyReason, LaneRelay, ScanRejectReason } from '../relays/relay.js';
import { createDebouncer, createScannerLineSplitter, type ScannerLineSplitter } from './scanner-lines.js';

// One lane's flow per scan: code → the shared check-in service → relay. No I/O of its own: the
// relay driver (bridge, LCUS, OSDP) and the scanners are plugged in by whoever opens the ports.

export type LaneDirection = LaneConfig['direction'];

/** A scan is one code: a comma in it is part of the code (so it is not found), never a batch. */
const ONE_CODE = { batch: false } as const;

export type LaneOwnReason = `LEITURA_${Uppercase<ScanRejectReason>}`;

// A code the lane cannot use shows as "not found": the person's next step is the same (scan again
// or go to the counter).
const REASONS: Partial<Record<string, DenyReason>> = {
  TICKET_ALREADY_USED: 'already_used',
  TICKET_EXPIRED: 'expired',
  TICKET_NOT_VALID_YET: 'not_yet_valid',
  TICKET_NOT_FOUND: 'not_found',
  TICKET_CANCELLED: 'cancelled',
  CAPACITY_REACHED: 'capacity',
  LEITURA_TOO_LONG: 'not_found',
  LEITURA_NON_PRINTABLE: 'not_found',
  LEITURA_STALE: 'not_found',
} satisfies Record<LaneOwnReason, DenyReason> & Record<string, DenyReason>;

export const denyReasonFor = (refusal: string): DenyReason => REASONS[refusal] ?? 'other';

/** operador of the automatic reversal when nobody passed after a grant. */
export const NOT_PASSED_OPERADOR = 'sistema: não passou';
/** operador of the automatic reversal when the relay could not be pulsed. */
export const RELAY_FAILED_OPERADOR = 'sistema: falha no relé';

export type LaneEvent =
  | { type: 'granted'; lane: string; at: string; code: string; movement: Movement; withoutEntry: boolean }
  | { type: 'denied'; lane: string; at: string; code: string | null; refusal: string; reason: DenyReason }
  | { type: 'passed'; lane: string; at: string; code: string }
  | { type: 'not_passed'; lane: string; at: string; code: string; cause: 'timeout' | 'relay_failed'; reversed: boolean }
  | { type: 'tailgating'; lane: string; at: string };

export type ScanResult =
  | { kind: 'ignored'; code: string }
  | { kind: 'granted'; code: string; result: Granted }
  | { kind: 'denied'; code: string | null; refusal: string; reason: DenyReason };

export interface LaneStatus {
  name: string;
  direction: LaneDirection;
  area: string;
  operador: string;
  relayDriver: LaneConfig['relay']['driver'];
  passageSensor: boolean;
  /** LCUS boards are write-only: nothing detects a dead relay and nothing fails safe. */
  failSafe: boolean;
  lastScan: { code: string; at: string } | null;
  lastResult: LaneEvent | null;
  pendingGrants: number;
  counters: {
    scans: number;
    ignored: number;
    granted: number;
    denied: number;
    passed: number;
    notPassed: number;
    tailgating: number;
    errors: number;
  };
}

export interface Lane {
  readonly name: string;
  scan(code: string): Promise<ScanResult>;
  /** A read the scanner splitter threw away: the person gets a deny and scans again. */
  scanRejected(reason: ScanRejectReason): Promise<ScanResult>;
  /** The passage sensor saw someone go through. */
  passage(): void;
  status(): LaneStatus;
  onEvent(listener: (e: LaneEvent) => void): () => void;
  /** Stops the passage timers; a pending grant is left as it is (the check-in stands). */
  close(): void;
}

export interface LaneDeps {
  config: LaneConfig;
  /** What its scans mean (direction, area, policies, capacity): lane-config.ts movePolicy. */
  policy: MovePolicy;
  checkin: CheckinService;
  tenantId: number;
  relay: LaneRelay;
  clock: Clock;
  log: Log;
  timers?: TimerFns;
  /** Seconds from the scan to the relay taking the grant (/metrics: gate_lane_grant_seconds). */
  onGrant?: ((seconds: number) => void) | undefined;
}

interface PendingGrant {
  code: string;
  timer: unknown;
}

export function createLane({
  config,
  policy,
  checkin,
  tenantId,
  relay,
  clock,
  log,
  timers = realTimers,
  onGrant,
}: LaneDeps): Lane {
  const name = config.name;
  const caller: CheckinCaller = { tenantId, apiKeyId: null, keyName: null, source: 'lane' };
  const debouncer = createDebouncer({ windowMs: config.debounceMs, clock });
  const listeners = new Set<(e: LaneEvent) => void>();
  // FIFO: a turnstile lets people through in the order they were granted.
  const pending: PendingGrant[] = [];
  const counters: LaneStatus['counters'] = {
    scans: 0,
    ignored: 0,
    granted: 0,
    denied: 0,
    passed: 0,
    notPassed: 0,
    tailgating: 0,
    errors: 0,
  };
  let lastScan: LaneStatus['lastScan'] = null;
  let lastResult: LaneEvent | null = null;
  let closed = false;

  function emit(e: LaneEvent): void {
    lastResult = e;
    for (const l of listeners) {
      try {
        l(e);
      } catch (err) {
        log.error({ err, lane: name }, 'lane event listener failed');
      }
    }
  }

  async function deny(code: string | null, refusal: string): Promise<ScanResult> {
    const reason = denyReasonFor(refusal);
    counters.denied++;
    emit({ type: 'denied', lane: name, at: clock.nowIso(), code, refusal, reason });
    try {
      await relay.deny(reason);
    } catch (err) {
      counters.errors++;
      log.error({ err, lane: name, refusal }, 'relay deny failed');
    }
    return { kind: 'denied', code, refusal, reason };
  }

  async function reverseCheckin(code: string, operador: string): Promise<boolean> {
    try {
      const reply = await checkin.reverse({ qr_code: code, terminal: name, operador }, caller, ONE_CODE);
      const result = reply.batch ? reply.items[0]!.result : reply.result;
      // E.g. staff already reversed it by hand, or the day turned: the check-in then stays.
      if (!result.ok)
        log.warn({ lane: name, codigo_hash: codeHash(code), refusal: result.code }, 'automatic reversal refused');
      return result.ok;
    } catch (err) {
      counters.errors++;
      log.warn({ err, lane: name, codigo_hash: codeHash(code) }, 'automatic reversal failed');
      return false;
    }
  }

  /** Only a check-in is undone when nobody passed: an exit or a re-entry stays recorded as it is. */
  async function notPassed(code: string, cause: 'timeout' | 'relay_failed', movement: Movement): Promise<void> {
    counters.notPassed++;
    const operador = cause === 'timeout' ? NOT_PASSED_OPERADOR : RELAY_FAILED_OPERADOR;
    const reversed = movement === 'checkin' && (await reverseCheckin(code, operador));
    log.info({ lane: name, codigo_hash: codeHash(code), cause, reversed }, 'granted but nobody passed');
    emit({ type: 'not_passed', lane: name, at: clock.nowIso(), code, cause, reversed });
  }

  function expectPassage(code: string, movement: Movement): void {
    if (!config.passage || closed) return;
    const entry: PendingGrant = { code, timer: undefined };
    entry.timer = timers.setTimeout(() => {
      const i = pending.indexOf(entry);
      if (i < 0) return;
      pending.splice(i, 1);
      void notPassed(code, 'timeout', movement);
    }, config.passage.timeoutMs);
    pending.push(entry);
  }

  async function scan(rawCode: string): Promise<ScanResult> {
    const scannedAt = performance.now();
    const code = rawCode.trim();
    counters.scans++;
    lastScan = { code, at: clock.nowIso() };
    if (!debouncer.accept(code)) {
      counters.ignored++;
      return { kind: 'ignored', code };
    }
    let result: Granted;
    try {
      const moved = await checkin.move({ qr_code: code, terminal: name, operador: config.operador }, caller, policy);
      if (!moved.ok) return deny(code, moved.code);
      result = moved;
    } catch (err) {
      if (err instanceof AppError) return deny(code, err.code);
      counters.errors++;
      log.error({ err, lane: name, codigo_hash: codeHash(code) }, 'check-in failed');
      return deny(code, 'INTERNAL_ERROR');
    }
    counters.granted++;
    emit({
      type: 'granted',
      lane: name,
      at: clock.nowIso(),
      code,
      movement: result.movement,
      withoutEntry: result.withoutEntry,
    });
    try {
      await relay.grant(config.direction, config.relay.pulseMs);
      onGrant?.((performance.now() - scannedAt) / 1000);
    } catch (err) {
      counters.errors++;
      log.error({ err, lane: name, codigo_hash: codeHash(code) }, 'relay grant failed');
      await notPassed(code, 'relay_failed', result.movement);
      return { kind: 'granted', code, result };
    }
    expectPassage(code, result.movement);
    return { kind: 'granted', code, result };
  }

  function passage(): void {
    const entry = pending.shift();
    if (!entry) {
      counters.tailgating++;
      log.warn({ lane: name }, 'passage without a grant (tailgating)');
      emit({ type: 'tailgating', lane: name, at: clock.nowIso() });
      return;
    }
    timers.clearTimeout(entry.timer);
    counters.passed++;
    emit({ type: 'passed', lane: name, at: clock.nowIso(), code: entry.code });
  }

  const unsubscribePassage = relay.onPassage?.(passage);

  return {
    name,
    scan,
    scanRejected: (reason) => {
      counters.scans++;
      return deny(null, `LEITURA_${reason.toUpperCase() as Uppercase<ScanRejectReason>}` satisfies LaneOwnReason);
    },
    passage,
    status: () => ({
      name,
      direction: config.direction,
      area: config.area,
      operador: config.operador,
      relayDriver: config.relay.driver,
      passageSensor: config.passage !== undefined,
      failSafe: config.relay.driver !== 'lcus',
      lastScan,
      lastResult,
      pendingGrants: pending.length,
      counters: { ...counters },
    }),
    onEvent(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    close() {
      closed = true;
      for (const p of pending.splice(0)) timers.clearTimeout(p.timer);
      unsubscribePassage?.();
    },
  };
}

/** Feeds one scanner's bytes into a lane: what the serial wiring calls on every `data` event. */
export function attachScanner(lane: Lane, scanner: ScannerConfig, log: Log, timers?: TimerFns): ScannerLineSplitter {
  const report = (p: Promise<ScanResult>) =>
    p.catch((err: unknown) => log.error({ err, lane: lane.name }, 'scan failed'));
  return createScannerLineSplitter({
    suffix: scanner.suffix,
    interByteTimeoutMs: scanner.interByteTimeoutMs,
    stripAimId: scanner.stripAimId,
    maxLength: scanner.maxLength,
    ...(timers ? { timers } : {}),
    onCode: (code) => void report(lane.scan(code)),
    onReject: (reason, sample) => {
      log.warn({ lane: lane.name, scanner: scanner.path, reason, sample }, 'scanner read rejected');
      void report(lane.scanRejected(reason));
    },
  });
}
