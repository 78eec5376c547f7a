import { encodeFrame, FailMode, NakReason, type BridgeMessage } from './bridge-codec.js';
import {
  BridgeCommandError,
  NAK_TEXT,
  type Body,
  type BridgeState,
  type InFlight,
  type Phase,
} from './bridge-state.js';

// The host's commands to the board (firmware-bridge/PROTOCOL.md): stop-and-wait with
// retransmission, and the session (HELLO, HEARTBEAT, FREE again) set up after every BOOT or open.

export function write(s: BridgeState, bytes: Uint8Array): void {
  s.link.write(bytes).catch((err: unknown) => s.log.debug?.({ err, path: s.path }, 'bridge write failed'));
}

/** ACK (no reason) or NAK to something the board sent. */
export function answer(s: BridgeState, m: BridgeMessage, reason?: number): void {
  write(
    s,
    encodeFrame(
      reason === undefined ? { type: 'ACK', seq: 0, ack: m.seq } : { type: 'NAK', seq: 0, ack: m.seq, reason },
    ),
  );
}

export function clearTimers(s: BridgeState): void {
  for (const t of [s.waitTimer, s.heartbeatTimer]) if (t != null) s.timers.clearTimeout(t);
  s.waitTimer = s.heartbeatTimer = null;
}

/** Rejects what is in flight and queued: nothing is carried into another session. */
export function failAll(s: BridgeState, why: string): void {
  const pending = [...(s.inflight ? [s.inflight.cmd] : []), ...s.queue];
  if (s.inflight?.timer != null) s.timers.clearTimeout(s.inflight.timer);
  s.inflight = null;
  s.queue = [];
  s.heartbeatQueued = false;
  for (const c of pending) c.reject(new BridgeCommandError(`${c.body.type} abandonado: ${why}`));
}

export function leave(s: BridgeState, next: Phase, why: string | null): void {
  if (s.phase === 'ready' && next !== 'closed') s.log.warn({ path: s.path, problem: why }, 'bridge board offline');
  s.phase = next;
  clearTimers(s);
  failAll(s, why ?? 'sessão encerrada');
  if (why !== null) s.problem = why;
  if (next !== 'closed') s.online.set(false);
}

export function enqueue(s: BridgeState, body: Body, acked?: () => void): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    s.queue.push({ body, resolve, reject, ...(acked ? { acked } : {}) });
    pump(s);
  });
}

/** A command from the lane: refused at once when there is no session to carry it. */
export function command(s: BridgeState, body: Body): Promise<void> {
  if (s.phase === 'ready' || s.phase === 'handshake') return enqueue(s, body);
  return Promise.reject(new BridgeCommandError(`placa ${s.path} indisponível (${s.phase}); ${body.type} não enviado`));
}

export function pump(s: BridgeState): void {
  if (s.inflight || s.queue.length === 0 || (s.phase !== 'handshake' && s.phase !== 'ready')) return;
  const cmd = s.queue.shift()!;
  const next = s.seq >= 255 ? 1 : s.seq + 1;
  let bytes: Uint8Array;
  try {
    bytes = encodeFrame({ ...cmd.body, seq: next, ack: 0 } as BridgeMessage);
  } catch (err) {
    cmd.reject(err as Error);
    return pump(s);
  }
  s.seq = next;
  s.inflight = { cmd, seq: next, bytes, attempts: 0, timer: null };
  transmit(s, s.inflight);
}

export function transmit(s: BridgeState, f: InFlight): void {
  const { maxAttempts, retransmitMs } = s.timings;
  if (s.inflight !== f) return;
  if (f.attempts >= maxAttempts)
    return goOffline(
      s,
      `A placa não respondeu a ${f.cmd.body.type} após ${maxAttempts} tentativas; reabrindo a porta serial.`,
    );
  f.attempts++;
  write(s, f.bytes);
  f.timer = s.timers.setTimeout(() => transmit(s, f), retransmitMs);
}

export function goOffline(s: BridgeState, why: string): void {
  leave(s, 'offline', why);
  if (s.link.reconnect) s.link.reconnect(why);
  // A link that cannot reopen: try a new session in place (the board may have been unplugged and back).
  else s.waitTimer = s.timers.setTimeout(() => startHandshake(s), s.timings.bootWaitMs);
}

/** The board's ACK or NAK to the command in flight. */
export function settle(s: BridgeState, f: InFlight, m: BridgeMessage): void {
  s.timers.clearTimeout(f.timer);
  s.inflight = null;
  const { body } = f.cmd;
  if (body.type === 'HEARTBEAT') s.heartbeatQueued = false;
  if (m.type === 'ACK' || (m.type === 'NAK' && body.type === 'DENY' && m.reason === NakReason.FIRE_ACTIVE)) {
    f.cmd.acked?.();
    f.cmd.resolve();
  } else if (m.type === 'NAK') {
    const text = NAK_TEXT[m.reason] ?? `motivo ${m.reason}`;
    f.cmd.reject(new BridgeCommandError(`placa recusou ${body.type} (NAK ${m.reason}: ${text})`, m.reason));
    // Refusing the session setup itself would loop: treat the board as offline and retry later.
    if (s.phase === 'handshake' && (body.type === 'HELLO' || body.type === 'HEARTBEAT')) {
      s.log.error({ path: s.path, command: body.type, reason: m.reason }, 'bridge board refused session setup');
      return goOffline(s, `A placa recusou ${body.type} (${text}); verifique o firmware e a configuração da pista.`);
    }
    // The board lost our session (watchdog expired or it reset unseen): set it up again.
    if (m.reason === NakReason.NOT_READY) {
      s.log.warn({ path: s.path, command: body.type }, 'bridge board has no session; sending HELLO again');
      return startHandshake(s);
    }
  }
  pump(s);
}

export function scheduleHeartbeat(s: BridgeState): void {
  const { heartbeatTimeoutMs } = s.config;
  s.heartbeatTimer = s.timers.setTimeout(
    () => {
      s.heartbeatTimer = null;
      if (s.phase !== 'ready') return;
      if (!s.heartbeatQueued) {
        s.heartbeatQueued = true;
        enqueue(s, { type: 'HEARTBEAT', timeoutMs: heartbeatTimeoutMs }).catch(() => undefined);
      }
      scheduleHeartbeat(s);
    },
    Math.max(1, Math.floor(heartbeatTimeoutMs / 3)),
  );
}

export function startHandshake(s: BridgeState): void {
  if (s.phase === 'down' || s.phase === 'closed') return;
  const mine = ++s.session;
  clearTimers(s);
  failAll(s, 'nova sessão com a placa');
  s.phase = 'handshake';
  s.online.interrupt();
  const steps: Body[] = [
    { type: 'HELLO', failMode: s.failMode === 'livre' ? FailMode.FREE : FailMode.LOCKED },
    { type: 'HEARTBEAT', timeoutMs: s.config.heartbeatTimeoutMs },
    // HELLO drops a FREE on the board: a host that still wants it says so again.
    ...(s.freePassage ? [{ type: 'FREE', on: 1 } as const] : []),
  ];
  // Ready on the last ACK itself, not a promise turn later: a STATUS read right after it (in the
  // same chunk) already finds the session ready.
  let left = steps.length;
  const ready = () => {
    if (--left > 0 || s.session !== mine || s.phase !== 'handshake') return;
    s.phase = 'ready';
    s.problem = null;
    s.log.info({ path: s.path, firmware: s.device.firmware, failMode: s.failMode }, 'bridge board online');
    scheduleHeartbeat(s);
    s.online.set(true);
  };
  for (const body of steps) enqueue(s, body, ready).catch(() => undefined);
}
