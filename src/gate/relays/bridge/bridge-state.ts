import type { Clock } from '../../../clock.js';
import { NakReason, ResetCause, type BridgeMessage, type FrameReader } from './bridge-codec.js';
import type { ByteLink } from '../../serial/byte-link.js';
import type { Log } from '../../../lib/log.js';
import type { BridgeRelayConfig } from '../relay-config.js';
import type { FailModeSetting, OnlineSignal, RelayStatus } from '../relay.js';
import type { TimerFns } from '../../../lib/timers.js';

// One bridge board's state as the host keeps it: a plain object that the steps of
// bridge-session.ts (commands, session) and bridge-board.ts (what the board sends) read and change.

/** bootWaitMs: how long to wait for a BOOT after the port opens before sending HELLO anyway. */
export type BridgeTimings = { bootWaitMs: number; retransmitMs: number; maxAttempts: number };

export const BRIDGE_TIMINGS: BridgeTimings = { bootWaitMs: 3_000, retransmitMs: 100, maxAttempts: 10 };

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

export type Body<M = BridgeMessage> = M extends BridgeMessage ? Omit<M, 'seq' | 'ack'> : never;
export type Phase = 'down' | 'booting' | 'handshake' | 'ready' | 'offline' | 'closed';
/** `acked` runs at once when the board ACKs, before anything else it sent is read. */
export type Command = { body: Body; resolve(): void; reject(err: Error): void; acked?: () => void };
export type InFlight = { cmd: Command; seq: number; bytes: Uint8Array; attempts: number; timer: unknown };

export const NAK_TEXT: Record<number, string> = {
  [NakReason.NOT_READY]: 'placa sem sessão (sem HELLO ou após o watchdog)',
  [NakReason.BAD_PAYLOAD]: 'valor inválido',
  [NakReason.UNKNOWN_TYPE]: 'tipo desconhecido',
  [NakReason.FIRE_ACTIVE]: 'alarme de incêndio ativo',
};
export const RESET_NAMES = new Map<number, string>(
  Object.entries(ResetCause).map(([k, v]) => [v, k.toLowerCase().replace('_', '-')]),
);

export interface Listeners<A extends unknown[]> {
  add(l: (...args: A) => void): () => void;
  emit(...args: A): void;
}

export function listeners<A extends unknown[]>(log: Log, path: string): Listeners<A> {
  const set = new Set<(...args: A) => void>();
  return {
    add: (l) => (set.add(l), () => void set.delete(l)),
    emit(...args) {
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

export interface BridgeState {
  readonly link: ByteLink;
  readonly config: BridgeRelayConfig;
  readonly failMode: FailModeSetting;
  readonly log: Log;
  readonly clock: Clock;
  readonly timers: TimerFns;
  readonly timings: BridgeTimings;
  readonly path: string;
  readonly passageListeners: Listeners<[]>;
  readonly fireListeners: Listeners<[active: boolean]>;
  /** Online is a session in 'ready': told on every way in and out of it, as it happens. */
  readonly online: OnlineSignal;
  readonly reader: FrameReader;
  readonly device: RelayStatus['device'];
  phase: Phase;
  /** Counts sessions, so a late ACK of an old handshake does not make a new one ready. */
  session: number;
  seq: number;
  peerSeq: number | null;
  inflight: InFlight | null;
  queue: Command[];
  waitTimer: unknown;
  heartbeatTimer: unknown;
  heartbeatQueued: boolean;
  freePassage: boolean;
  lastSeenAt: string | null;
  problem: string | null;
}
