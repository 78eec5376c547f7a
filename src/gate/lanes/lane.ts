import type { CheckinCaller } from '../../checkin/checkin.service.js';
import { StorageUnavailableError, type Granted, type Movement } from '../../checkin/result.js';
import { CheckinInputError } from '../../checkin/rules/input.js';
import { codeHash } from '../../lib/code-hash.js';
import type { Log } from '../../lib/log.js';
import type { ScannerConfig } from './lane-config.js';
import { realTimers, type TimerFns } from '../../lib/timers.js';
import type { DenyReason, ScanRejectReason } from '../relays/relay.js';
import {
  createDebouncer,
  createScannerLineSplitter,
  type Debouncer,
  type ScannerLineSplitter,
} from './scanner-lines.js';
import {
  NOT_PASSED_OPERADOR,
  RELAY_FAILED_OPERADOR,
  type Lane,
  type LaneDeps,
  type LaneEvent,
  type LaneOwnReason,
  type LaneStatus,
  type ScanResult,
} from './lane-types.js';

// One lane's flow per scan: code → the shared check-in service → relay. No I/O of its own: the
// relay driver (bridge, LCUS, OSDP) and the scanners are plugged in by whoever opens the ports.
// The steps are module-level functions over one LaneState, so each can be reached on its own.

/** A scan is one code: a comma in it is part of the code (so it is not found), never a batch. */
const ONE_CODE = { batch: false } as const;

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

/** A scan the service could not act on (an empty read, a database that cannot record): its refusal code. */
function refusalOf(err: unknown): string | null {
  if (err instanceof StorageUnavailableError) return 'SERVICE_UNAVAILABLE';
  if (!(err instanceof CheckinInputError)) return null;
  return err.kind === 'AMBIGUOUS_INPUT' || err.kind === 'MISSING_FIELD' ? err.kind : 'VALIDATION_ERROR';
}

interface PendingGrant {
  code: string;
  timer: unknown;
}

/** One lane's state; the steps below read and change it. */
export interface LaneState extends Required<Omit<LaneDeps, 'onGrant'>> {
  readonly name: string;
  readonly onGrant: LaneDeps['onGrant'];
  readonly caller: CheckinCaller;
  readonly debouncer: Debouncer;
  readonly listeners: Set<(e: LaneEvent) => void>;
  /** FIFO: a turnstile lets people through in the order they were granted. */
  readonly pending: PendingGrant[];
  readonly counters: LaneStatus['counters'];
  lastScan: LaneStatus['lastScan'];
  lastResult: LaneEvent | null;
  closed: boolean;
}

export function createLane(deps: LaneDeps): Lane {
  const s = createLaneState(deps);
  const unsubscribePassage = s.relay.onPassage?.(() => passage(s));
  return {
    name: s.name,
    scan: (code) => scan(s, code),
    scanRejected: (reason) => {
      s.counters.scans++;
      return deny(s, null, `LEITURA_${reason.toUpperCase() as Uppercase<ScanRejectReason>}` satisfies LaneOwnReason);
    },
    passage: () => passage(s),
    status: () => laneStatus(s),
    onEvent(listener) {
      s.listeners.add(listener);
      return () => s.listeners.delete(listener);
    },
    close() {
      s.closed = true;
      for (const p of s.pending.splice(0)) s.timers.clearTimeout(p.timer);
      unsubscribePassage?.();
    },
  };
}

export function createLaneState({ timers = realTimers, ...deps }: LaneDeps): LaneState {
  return {
    ...deps,
    timers,
    onGrant: deps.onGrant,
    name: deps.config.name,
    caller: { tenantId: deps.tenantId, apiKeyId: null, keyName: null, source: 'lane' },
    debouncer: createDebouncer({ windowMs: deps.config.debounceMs, clock: deps.clock }),
    listeners: new Set(),
    pending: [],
    counters: {
      scans: 0,
      ignored: 0,
      granted: 0,
      denied: 0,
      passed: 0,
      notPassed: 0,
      tailgating: 0,
      errors: 0,
    },
    lastScan: null,
    lastResult: null,
    closed: false,
  };
}

export function laneStatus(s: LaneState): LaneStatus {
  const { config } = s;
  return {
    name: s.name,
    direction: config.direction,
    area: config.area,
    operador: config.operador,
    relayDriver: config.relay.driver,
    passageSensor: config.passage !== undefined,
    failSafe: config.relay.driver !== 'lcus',
    lastScan: s.lastScan,
    lastResult: s.lastResult,
    pendingGrants: s.pending.length,
    counters: { ...s.counters },
  };
}

function emit(s: LaneState, e: LaneEvent): void {
  s.lastResult = e;
  for (const l of s.listeners) {
    try {
      l(e);
    } catch (err) {
      s.log.error({ err, lane: s.name }, 'lane event listener failed');
    }
  }
}

export async function deny(s: LaneState, code: string | null, refusal: string): Promise<ScanResult> {
  const reason = denyReasonFor(refusal);
  s.counters.denied++;
  emit(s, { type: 'denied', lane: s.name, at: s.clock.nowIso(), code, refusal, reason });
  try {
    await s.relay.deny(reason);
  } catch (err) {
    s.counters.errors++;
    s.log.error({ err, lane: s.name, refusal }, 'relay deny failed');
  }
  return { kind: 'denied', code, refusal, reason };
}

export async function reverseCheckin(s: LaneState, code: string, operador: string): Promise<boolean> {
  const { checkin, caller, name, log } = s;
  try {
    const reply = await checkin.reverse({ code, terminal: name, operator: operador }, caller, ONE_CODE);
    const result = reply.batch ? reply.items[0]!.result : reply.result;
    // E.g. staff already reversed it by hand, or the day turned: the check-in then stays.
    if (!result.ok)
      log.warn({ lane: name, codigo_hash: codeHash(code), refusal: result.code }, 'automatic reversal refused');
    return result.ok;
  } catch (err) {
    s.counters.errors++;
    log.warn({ err, lane: name, codigo_hash: codeHash(code) }, 'automatic reversal failed');
    return false;
  }
}

/** Only a check-in is undone when nobody passed: an exit or a re-entry stays recorded as it is. */
export async function notPassed(
  s: LaneState,
  code: string,
  cause: 'timeout' | 'relay_failed',
  movement: Movement,
): Promise<void> {
  s.counters.notPassed++;
  const operador = cause === 'timeout' ? NOT_PASSED_OPERADOR : RELAY_FAILED_OPERADOR;
  const reversed = movement === 'checkin' && (await reverseCheckin(s, code, operador));
  s.log.info({ lane: s.name, codigo_hash: codeHash(code), cause, reversed }, 'granted but nobody passed');
  emit(s, { type: 'not_passed', lane: s.name, at: s.clock.nowIso(), code, cause, reversed });
}

export function expectPassage(s: LaneState, code: string, movement: Movement): void {
  const { passage: sensor } = s.config;
  if (!sensor || s.closed) return;
  const entry: PendingGrant = { code, timer: undefined };
  entry.timer = s.timers.setTimeout(() => {
    const i = s.pending.indexOf(entry);
    if (i < 0) return;
    s.pending.splice(i, 1);
    void notPassed(s, code, 'timeout', movement);
  }, sensor.timeoutMs);
  s.pending.push(entry);
}

export async function scan(s: LaneState, rawCode: string): Promise<ScanResult> {
  const { checkin, caller, config, name, log, relay } = s;
  const scannedAt = performance.now();
  const code = rawCode.trim();
  s.counters.scans++;
  s.lastScan = { code, at: s.clock.nowIso() };
  if (!s.debouncer.accept(code)) {
    s.counters.ignored++;
    return { kind: 'ignored', code };
  }
  let result: Granted;
  try {
    const moved = await checkin.move({ code, terminal: name, operator: config.operador }, caller, s.policy);
    if (!moved.ok) return deny(s, code, moved.code);
    result = moved;
  } catch (err) {
    const refusal = refusalOf(err);
    if (refusal) return deny(s, code, refusal);
    s.counters.errors++;
    log.error({ err, lane: name, codigo_hash: codeHash(code) }, 'check-in failed');
    return deny(s, code, 'INTERNAL_ERROR');
  }
  s.counters.granted++;
  emit(s, {
    type: 'granted',
    lane: name,
    at: s.clock.nowIso(),
    code,
    movement: result.movement,
    withoutEntry: result.withoutEntry,
  });
  try {
    await relay.grant(config.direction, config.relay.pulseMs);
    s.onGrant?.((performance.now() - scannedAt) / 1000);
  } catch (err) {
    s.counters.errors++;
    log.error({ err, lane: name, codigo_hash: codeHash(code) }, 'relay grant failed');
    await notPassed(s, code, 'relay_failed', result.movement);
    return { kind: 'granted', code, result };
  }
  expectPassage(s, code, result.movement);
  return { kind: 'granted', code, result };
}

/** The passage sensor saw someone go through: the oldest grant is used, or it is tailgating. */
export function passage(s: LaneState): void {
  const entry = s.pending.shift();
  if (!entry) {
    s.counters.tailgating++;
    s.log.warn({ lane: s.name }, 'passage without a grant (tailgating)');
    emit(s, { type: 'tailgating', lane: s.name, at: s.clock.nowIso() });
    return;
  }
  s.timers.clearTimeout(entry.timer);
  s.counters.passed++;
  emit(s, { type: 'passed', lane: s.name, at: s.clock.nowIso(), code: entry.code });
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
