import { systemClock, type Clock } from '../../../clock.js';
import {
  createFrameReader,
  DenyPattern,
  Direction,
  encodeFrame,
  FailMode,
  NakReason,
  ResetCause,
  type BridgeMessage,
} from './bridge-codec.js';
import type { ByteLink, LinkState } from '../../serial/byte-link.js';
import type { Log } from '../../../lib/log.js';
import type { BridgeRelayConfig } from '../relay-config.js';
import { onlineSignal, type DenyReason, type FailModeSetting, type RelayDriver, type RelayStatus } from '../relay.js';
import { realTimers, type TimerFns } from '../../../lib/timers.js';

// The host side of firmware-bridge/PROTOCOL.md: stop-and-wait commands with retransmission,
// BOOT/HELLO/HEARTBEAT session setup after every link 'up', board events ACKed once and acted
// on once. The board keeps the turnstile safe by itself; this driver only has to never pulse late.

/** bootWaitMs: how long to wait for a BOOT after the port opens before sending HELLO anyway. */
export type BridgeTimings = { bootWaitMs: number; retransmitMs: number; maxAttempts: number };

export const BRIDGE_TIMINGS: BridgeTimings = { bootWaitMs: 3_000, retransmitMs: 100, maxAttempts: 10 };

export interface BridgeRelayDeps {
  link: ByteLink;
  config: BridgeRelayConfig;
  failMode: FailModeSetting;
  log: Log;
  clock?: Clock;
  timers?: TimerFns;
  timings?: Partial<BridgeTimings>;
}

/** A command the board refused (nakReason) or never answered (nakReason null). */
export class BridgeCommandError extends Error {
  override name = 'BridgeCommandError';
  constructor(
    message: string,
    readonly nakReason: number | null = null,
  ) {
    super(message);
  }
}

type Body<M = BridgeMessage> = M extends BridgeMessage ? Omit<M, 'seq' | 'ack'> : never;
type Phase = 'down' | 'booting' | 'handshake' | 'ready' | 'offline' | 'closed';
/** `acked` runs at once when the board ACKs, before anything else it sent is read. */
type Command = { body: Body; resolve(): void; reject(err: Error): void; acked?: () => void };
type InFlight = { cmd: Command; seq: number; bytes: Uint8Array; attempts: number; timer: unknown };

/** The board's DENY pattern for each reason (PROTOCOL.md): its own red flashes and beeps. */
const DENY_PATTERNS: Record<DenyReason, number> = {
  other: DenyPattern.GENERIC,
  already_used: DenyPattern.ALREADY_USED,
  expired: DenyPattern.EXPIRED,
  not_yet_valid: DenyPattern.NOT_YET_VALID,
  not_found: DenyPattern.NOT_FOUND,
  cancelled: DenyPattern.CANCELLED,
  capacity: DenyPattern.CAPACITY,
};

const NAK_TEXT: Record<number, string> = {
  [NakReason.NOT_READY]: 'placa sem sessão (sem HELLO ou após o watchdog)',
  [NakReason.BAD_PAYLOAD]: 'valor inválido',
  [NakReason.UNKNOWN_TYPE]: 'tipo desconhecido',
  [NakReason.FIRE_ACTIVE]: 'alarme de incêndio ativo',
};
const RESET_NAMES = new Map<number, string>(
  Object.entries(ResetCause).map(([k, v]) => [v, k.toLowerCase().replace('_', '-')]),
);
const HOST_TYPES = new Set(['HELLO', 'HEARTBEAT', 'GRANT', 'DENY', 'LED', 'BUZ', 'FREE']);

function listeners<A extends unknown[]>(log: Log, path: string) {
  const set = new Set<(...args: A) => void>();
  return {
    add: (l: (...args: A) => void) => (set.add(l), () => void set.delete(l)),
    emit(...args: A) {
      for (const l of set) {
        try {
          l(...args);
        } catch (err) {
          log.error({ err, path }, 'bridge listener failed');
        }
      }
    },
  };
}

/** The driver owns its link: close() closes it. */
export function createBridgeRelay(deps: BridgeRelayDeps): RelayDriver {
  const { link, config, log, timers = realTimers, clock = systemClock } = deps;
  const { bootWaitMs, retransmitMs, maxAttempts } = { ...BRIDGE_TIMINGS, ...deps.timings };
  const path = link.path;
  const passageListeners = listeners<[]>(log, path);
  const fireListeners = listeners<[active: boolean]>(log, path);
  // Online is a session in 'ready': told on every way in and out of it, as it happens.
  const online = onlineSignal(log, path);

  let phase: Phase = 'down';
  let session = 0;
  let seq = 0;
  let peerSeq: number | null = null;
  let inflight: InFlight | null = null;
  let queue: Command[] = [];
  const reader = createFrameReader((decoded) => {
    if (decoded.ok) receive(decoded.message);
    else log.debug?.({ path, reason: decoded.reason }, 'bridge frame dropped');
  });
  let waitTimer: unknown = null;
  let heartbeatTimer: unknown = null;
  let heartbeatQueued = false;
  let freePassage = false;
  let lastSeenAt: string | null = null;
  let problem: string | null = `Porta serial ${path} ainda não abriu.`;
  const device: RelayStatus['device'] = { firmware: null, resetCause: null, inputs: null, outputs: null, fire: false };

  const write = (bytes: Uint8Array) =>
    void link.write(bytes).catch((err: unknown) => log.debug?.({ err, path }, 'bridge write failed'));
  const answer = (m: BridgeMessage, reason?: number) =>
    write(
      encodeFrame(
        reason === undefined ? { type: 'ACK', seq: 0, ack: m.seq } : { type: 'NAK', seq: 0, ack: m.seq, reason },
      ),
    );

  function clearTimers(): void {
    for (const t of [waitTimer, heartbeatTimer]) if (t != null) timers.clearTimeout(t);
    waitTimer = heartbeatTimer = null;
  }

  /** Rejects what is in flight and queued: nothing is carried into another session. */
  function failAll(why: string): void {
    const pending = [...(inflight ? [inflight.cmd] : []), ...queue];
    if (inflight?.timer != null) timers.clearTimeout(inflight.timer);
    inflight = null;
    queue = [];
    heartbeatQueued = false;
    for (const c of pending) c.reject(new BridgeCommandError(`${c.body.type} abandonado: ${why}`));
  }

  function leave(next: Phase, why: string | null): void {
    if (phase === 'ready' && next !== 'closed') log.warn({ path, problem: why }, 'bridge board offline');
    phase = next;
    clearTimers();
    failAll(why ?? 'sessão encerrada');
    if (why !== null) problem = why;
    if (next !== 'closed') online.set(false);
  }

  function enqueue(body: Body, acked?: () => void): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      queue.push({ body, resolve, reject, ...(acked ? { acked } : {}) });
      pump();
    });
  }

  function pump(): void {
    if (inflight || queue.length === 0 || (phase !== 'handshake' && phase !== 'ready')) return;
    const cmd = queue.shift()!;
    const next = seq >= 255 ? 1 : seq + 1;
    let bytes: Uint8Array;
    try {
      bytes = encodeFrame({ ...cmd.body, seq: next, ack: 0 } as BridgeMessage);
    } catch (err) {
      cmd.reject(err as Error);
      return pump();
    }
    seq = next;
    inflight = { cmd, seq, bytes, attempts: 0, timer: null };
    transmit(inflight);
  }

  function transmit(f: InFlight): void {
    if (inflight !== f) return;
    if (f.attempts >= maxAttempts)
      return goOffline(
        `A placa não respondeu a ${f.cmd.body.type} após ${maxAttempts} tentativas; reabrindo a porta serial.`,
      );
    f.attempts++;
    write(f.bytes);
    f.timer = timers.setTimeout(() => transmit(f), retransmitMs);
  }

  function goOffline(why: string): void {
    leave('offline', why);
    if (link.reconnect) link.reconnect(why);
    // A link that cannot reopen: try a new session in place (the board may have been unplugged and back).
    else waitTimer = timers.setTimeout(() => startHandshake(), bootWaitMs);
  }

  function settle(f: InFlight, m: BridgeMessage): void {
    timers.clearTimeout(f.timer);
    inflight = null;
    const { body } = f.cmd;
    if (body.type === 'HEARTBEAT') heartbeatQueued = false;
    if (m.type === 'ACK' || (m.type === 'NAK' && body.type === 'DENY' && m.reason === NakReason.FIRE_ACTIVE)) {
      f.cmd.acked?.();
      f.cmd.resolve();
    } else if (m.type === 'NAK') {
      const text = NAK_TEXT[m.reason] ?? `motivo ${m.reason}`;
      f.cmd.reject(new BridgeCommandError(`placa recusou ${body.type} (NAK ${m.reason}: ${text})`, m.reason));
      // Refusing the session setup itself would loop: treat the board as offline and retry later.
      if (phase === 'handshake' && (body.type === 'HELLO' || body.type === 'HEARTBEAT')) {
        log.error({ path, command: body.type, reason: m.reason }, 'bridge board refused session setup');
        return goOffline(`A placa recusou ${body.type} (${text}); verifique o firmware e a configuração da pista.`);
      }
      // The board lost our session (watchdog expired or it reset unseen): set it up again.
      if (m.reason === NakReason.NOT_READY) {
        log.warn({ path, command: body.type }, 'bridge board has no session; sending HELLO again');
        return startHandshake();
      }
    }
    pump();
  }

  function scheduleHeartbeat(): void {
    heartbeatTimer = timers.setTimeout(
      () => {
        heartbeatTimer = null;
        if (phase !== 'ready') return;
        if (!heartbeatQueued) {
          heartbeatQueued = true;
          enqueue({ type: 'HEARTBEAT', timeoutMs: config.heartbeatTimeoutMs }).catch(() => undefined);
        }
        scheduleHeartbeat();
      },
      Math.max(1, Math.floor(config.heartbeatTimeoutMs / 3)),
    );
  }

  function startHandshake(): void {
    if (phase === 'down' || phase === 'closed') return;
    const mine = ++session;
    clearTimers();
    failAll('nova sessão com a placa');
    phase = 'handshake';
    online.interrupt();
    const steps: Body[] = [
      { type: 'HELLO', failMode: deps.failMode === 'livre' ? FailMode.FREE : FailMode.LOCKED },
      { type: 'HEARTBEAT', timeoutMs: config.heartbeatTimeoutMs },
      // HELLO drops a FREE on the board: a host that still wants it says so again.
      ...(freePassage ? [{ type: 'FREE', on: 1 } as const] : []),
    ];
    // Ready on the last ACK itself, not a promise turn later: a STATUS read right after it (in the
    // same chunk) already finds the session ready.
    let left = steps.length;
    const ready = () => {
      if (--left > 0 || session !== mine || phase !== 'handshake') return;
      phase = 'ready';
      problem = null;
      log.info({ path, firmware: device.firmware, failMode: deps.failMode }, 'bridge board online');
      scheduleHeartbeat();
      online.set(true);
    };
    for (const body of steps) enqueue(body, ready).catch(() => undefined);
  }

  function boot(m: Extract<BridgeMessage, { type: 'BOOT' }>): void {
    peerSeq = m.seq;
    answer(m);
    device.firmware = `${m.fwMajor}.${m.fwMinor}`;
    device.resetCause = RESET_NAMES.get(m.resetCause) ?? String(m.resetCause);
    if (phase === 'booting')
      log.info({ path, firmware: device.firmware, resetCause: device.resetCause }, 'bridge board booted');
    else log.warn({ path, firmware: device.firmware, resetCause: device.resetCause }, 'bridge board restarted');
    startHandshake();
  }

  function event(m: BridgeMessage): void {
    // seq 0 cannot be remembered or answered; a repeat of the last one is answered, not acted on.
    if (m.seq === 0) return;
    const repeat = m.seq === peerSeq;
    peerSeq = m.seq;
    if (HOST_TYPES.has(m.type)) return answer(m, NakReason.UNKNOWN_TYPE);
    answer(m);
    if (repeat) return;
    if (m.type === 'PASSAGE') {
      log.info({ path, direction: m.direction === Direction.IN ? 'in' : 'out' }, 'bridge passage');
      passageListeners.emit();
    } else if (m.type === 'FIRE') setFire(m.active === 1);
    else if (m.type === 'STATUS') {
      device.inputs = m.inputs;
      device.outputs = m.outputs;
      // A watchdog expiry drops the board's pending FIRE: the STATUS after HELLO is then the only word of it.
      setFire((m.inputs & 0b100) !== 0);
      // A watchdog expiry also drops our FREE; the board reports it as the relay going off.
      if (freePassage && phase === 'ready' && (m.outputs & 0b1) === 0)
        enqueue({ type: 'FREE', on: 1 }).catch(() => undefined);
    }
  }

  function setFire(active: boolean): void {
    if (device.fire === active) return;
    device.fire = active;
    log.warn({ path, active }, 'bridge fire input');
    fireListeners.emit(active);
  }

  function receive(m: BridgeMessage): void {
    lastSeenAt = clock.nowIso();
    if (phase === 'down' || phase === 'closed') return;
    if (m.type === 'BOOT') return boot(m);
    // Until the board has said BOOT (or 3 s passed) anything is leftover from before the open.
    if (phase === 'booting') return;
    if (m.type === 'ACK' || m.type === 'NAK') {
      if (inflight && m.ack === inflight.seq) settle(inflight, m);
      return;
    }
    event(m);
  }

  function onState(state: LinkState): void {
    if (phase === 'closed') return;
    if (state === 'down') {
      return leave('down', phase === 'offline' ? null : `Porta serial ${path} desconectada; tentando reabrir.`);
    }
    clearTimers();
    failAll('porta reaberta');
    [session, phase, seq, peerSeq] = [session + 1, 'booting', 0, null];
    online.interrupt();
    reader.reset();
    waitTimer = timers.setTimeout(() => {
      waitTimer = null;
      log.info({ path, bootWaitMs }, 'no BOOT from the bridge board; sending HELLO');
      startHandshake();
    }, bootWaitMs);
  }

  function command(body: Body): Promise<void> {
    if (phase === 'ready' || phase === 'handshake') return enqueue(body);
    return Promise.reject(new BridgeCommandError(`placa ${path} indisponível (${phase}); ${body.type} não enviado`));
  }

  const unsubscribe = [link.onData((chunk) => reader.push(chunk)), link.onState(onState)];
  if (link.isUp()) onState('up');

  return {
    grant: (direction, pulseMs) =>
      command({ type: 'GRANT', direction: direction === 'entrada' ? Direction.IN : Direction.OUT, pulseMs }),
    deny: (reason) => command({ type: 'DENY', pattern: DENY_PATTERNS[reason] }),
    async setFreePassage(on) {
      freePassage = on;
      // Without a session the next handshake applies it (and a board without a host drops FREE anyway).
      if (phase === 'ready' || phase === 'handshake') await enqueue({ type: 'FREE', on: on ? 1 : 0 });
    },
    onPassage: passageListeners.add,
    onFire: fireListeners.add,
    onOnline: online.add,
    status: () => ({
      driver: 'bridge',
      path,
      online: phase === 'ready',
      failSafe: true,
      freePassage,
      lastSeenAt,
      problem,
      device: { ...device, session: phase },
    }),
    async close() {
      if (phase === 'closed') return;
      leave('closed', null);
      for (const u of unsubscribe) u();
      await link.close();
    },
  };
}
