import { systemClock, type Clock } from '../../../clock.js';
import { createFrameReader, DenyPattern, Direction } from './bridge-codec.js';
import type { ByteLink } from '../../serial/byte-link.js';
import type { Log } from '../../../lib/log.js';
import type { BridgeRelayConfig } from '../relay-config.js';
import { onlineSignal, type DenyReason, type FailModeSetting, type RelayDriver } from '../relay.js';
import { realTimers, type TimerFns } from '../../../lib/timers.js';
import { onLinkState, receive } from './bridge-board.js';
import { command, enqueue, leave } from './bridge-session.js';
import { BRIDGE_TIMINGS, listeners, type BridgeState, type BridgeTimings } from './bridge-state.js';

// The host side of firmware-bridge/PROTOCOL.md: stop-and-wait commands with retransmission,
// BOOT/HELLO/HEARTBEAT session setup after every link 'up', board events ACKed once and acted
// on once. The board keeps the turnstile safe by itself; this driver only has to never pulse late.
// The steps are module-level functions over one BridgeState (bridge-state.ts): commands and the
// session in bridge-session.ts, what the board sends in bridge-board.ts.

export interface BridgeRelayDeps {
  link: ByteLink;
  config: BridgeRelayConfig;
  failMode: FailModeSetting;
  log: Log;
  clock?: Clock;
  timers?: TimerFns;
  timings?: Partial<BridgeTimings>;
}

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

/** The driver owns its link: close() closes it. */
export function createBridgeRelay(deps: BridgeRelayDeps): RelayDriver {
  const s = createBridgeState(deps);
  const { link } = s;
  const unsubscribe = [link.onData((chunk) => s.reader.push(chunk)), link.onState((state) => onLinkState(s, state))];
  if (link.isUp()) onLinkState(s, 'up');

  return {
    grant: (direction, pulseMs) =>
      command(s, { type: 'GRANT', direction: direction === 'entrada' ? Direction.IN : Direction.OUT, pulseMs }),
    deny: (reason) => command(s, { type: 'DENY', pattern: DENY_PATTERNS[reason] }),
    async setFreePassage(on) {
      s.freePassage = on;
      // Without a session the next handshake applies it (and a board without a host drops FREE anyway).
      if (s.phase === 'ready' || s.phase === 'handshake') await enqueue(s, { type: 'FREE', on: on ? 1 : 0 });
    },
    onPassage: s.passageListeners.add,
    onFire: s.fireListeners.add,
    onOnline: s.online.add,
    status: () => ({
      driver: 'bridge',
      path: s.path,
      online: s.phase === 'ready',
      failSafe: true,
      freePassage: s.freePassage,
      lastSeenAt: s.lastSeenAt,
      problem: s.problem,
      device: { ...s.device, session: s.phase },
    }),
    async close() {
      if (s.phase === 'closed') return;
      leave(s, 'closed', null);
      for (const u of unsubscribe) u();
      await link.close();
    },
  };
}

export function createBridgeState(deps: BridgeRelayDeps): BridgeState {
  const { link, config, failMode, log, timers = realTimers, clock = systemClock } = deps;
  const path = link.path;
  const s: BridgeState = {
    link,
    config,
    failMode,
    log,
    clock,
    timers,
    timings: { ...BRIDGE_TIMINGS, ...deps.timings },
    path,
    passageListeners: listeners<[]>(log, path),
    fireListeners: listeners<[active: boolean]>(log, path),
    online: onlineSignal(log, path),
    reader: createFrameReader((decoded) => {
      if (decoded.ok) receive(s, decoded.message);
      else log.debug?.({ path, reason: decoded.reason }, 'bridge frame dropped');
    }),
    device: { firmware: null, resetCause: null, inputs: null, outputs: null, fire: false },
    phase: 'down',
    session: 0,
    seq: 0,
    peerSeq: null,
    inflight: null,
    queue: [],
    waitTimer: null,
    heartbeatTimer: null,
    heartbeatQueued: false,
    freePassage: false,
    lastSeenAt: null,
    problem: `Porta serial ${path} ainda não abriu.`,
  };
  return s;
}
