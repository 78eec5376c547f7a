import { Direction, NakReason, type BridgeMessage } from './bridge-codec.js';
import type { LinkState } from '../../serial/byte-link.js';
import { RESET_NAMES, type BridgeState } from './bridge-state.js';
import { answer, clearTimers, enqueue, failAll, leave, settle, startHandshake } from './bridge-session.js';

// What the board sends and what the link says (firmware-bridge/PROTOCOL.md): BOOT, events ACKed
// once and acted on once, the ACK or NAK of the command in flight, the port lost or back.

const HOST_TYPES = new Set(['HELLO', 'HEARTBEAT', 'GRANT', 'DENY', 'LED', 'BUZ', 'FREE']);

export function receive(s: BridgeState, m: BridgeMessage): void {
  s.lastSeenAt = s.clock.nowIso();
  if (s.phase === 'down' || s.phase === 'closed') return;
  if (m.type === 'BOOT') return boot(s, m);
  // Until the board has said BOOT (or 3 s passed) anything is leftover from before the open.
  if (s.phase === 'booting') return;
  if (m.type === 'ACK' || m.type === 'NAK') {
    if (s.inflight && m.ack === s.inflight.seq) settle(s, s.inflight, m);
    return;
  }
  boardEvent(s, m);
}

export function boot(s: BridgeState, m: Extract<BridgeMessage, { type: 'BOOT' }>): void {
  const { device, log, path } = s;
  s.peerSeq = m.seq;
  answer(s, m);
  device.firmware = `${m.fwMajor}.${m.fwMinor}`;
  device.resetCause = RESET_NAMES.get(m.resetCause) ?? String(m.resetCause);
  if (s.phase === 'booting')
    log.info({ path, firmware: device.firmware, resetCause: device.resetCause }, 'bridge board booted');
  else log.warn({ path, firmware: device.firmware, resetCause: device.resetCause }, 'bridge board restarted');
  startHandshake(s);
}

export function boardEvent(s: BridgeState, m: BridgeMessage): void {
  // seq 0 cannot be remembered or answered; a repeat of the last one is answered, not acted on.
  if (m.seq === 0) return;
  const repeat = m.seq === s.peerSeq;
  s.peerSeq = m.seq;
  if (HOST_TYPES.has(m.type)) return answer(s, m, NakReason.UNKNOWN_TYPE);
  answer(s, m);
  if (repeat) return;
  if (m.type === 'PASSAGE') {
    s.log.info({ path: s.path, direction: m.direction === Direction.IN ? 'in' : 'out' }, 'bridge passage');
    s.passageListeners.emit();
  } else if (m.type === 'FIRE') setFire(s, m.active === 1);
  else if (m.type === 'STATUS') {
    s.device.inputs = m.inputs;
    s.device.outputs = m.outputs;
    // A watchdog expiry drops the board's pending FIRE: the STATUS after HELLO is then the only word of it.
    setFire(s, (m.inputs & 0b100) !== 0);
    // A watchdog expiry also drops our FREE; the board reports it as the relay going off.
    if (s.freePassage && s.phase === 'ready' && (m.outputs & 0b1) === 0)
      enqueue(s, { type: 'FREE', on: 1 }).catch(() => undefined);
  }
}

export function setFire(s: BridgeState, active: boolean): void {
  if (s.device.fire === active) return;
  s.device.fire = active;
  s.log.warn({ path: s.path, active }, 'bridge fire input');
  s.fireListeners.emit(active);
}

/** The port opened (a new session: wait for BOOT, then HELLO anyway) or was lost. */
export function onLinkState(s: BridgeState, state: LinkState): void {
  if (s.phase === 'closed') return;
  if (state === 'down') {
    return leave(s, 'down', s.phase === 'offline' ? null : `Porta serial ${s.path} desconectada; tentando reabrir.`);
  }
  clearTimers(s);
  failAll(s, 'porta reaberta');
  [s.session, s.phase, s.seq, s.peerSeq] = [s.session + 1, 'booting', 0, null];
  s.online.interrupt();
  s.reader.reset();
  s.waitTimer = s.timers.setTimeout(() => {
    s.waitTimer = null;
    s.log.info({ path: s.path, bootWaitMs: s.timings.bootWaitMs }, 'no BOOT from the bridge board; sending HELLO');
    startHandshake(s);
  }, s.timings.bootWaitMs);
}
