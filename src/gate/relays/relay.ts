import type { Log } from '../../lib/log.js';

// The relay contract: what every driver (bridge, LCUS, OSDP) implements and the words it needs.
// It sits below the lanes: the lanes import it, a driver never imports the lanes (eslint.config.js).

/** Which way a grant lets a person through. */
export type GrantDirection = 'entrada' | 'saida';

/** What a lane does when its relay is lost: stay locked or let people through. */
export const FAIL_MODES = ['travada', 'livre'] as const;
export type FailModeSetting = (typeof FAIL_MODES)[number];

/** Why a turnstile says no, as a person at it needs to know; each relay driver has its signal for each. */
export type DenyReason =
  'already_used' | 'expired' | 'not_yet_valid' | 'not_found' | 'cancelled' | 'capacity' | 'other';

/** Why a scan was thrown away instead of becoming a code (a serial scanner's splitter or an OSDP reader). */
export type ScanRejectReason = 'too_long' | 'non_printable' | 'stale';

/** What a lane calls on its relay per scan. */
export interface LaneRelay {
  grant(direction: GrantDirection, pulseMs: number): Promise<void> | void;
  deny(reason: DenyReason): Promise<void> | void;
  /** Drivers with a passage input call the listener once per person through; returns unsubscribe. */
  onPassage?(listener: () => void): () => void;
}

// What every relay driver offers beyond the per-scan LaneRelay calls.

export interface RelayStatus {
  driver: 'bridge' | 'lcus' | 'osdp';
  path: string;
  /** Port open and, for drivers that can tell, the device answering. */
  online: boolean;
  /** LCUS boards are write-only: nothing detects a dead relay and nothing fails safe. */
  failSafe: boolean;
  freePassage: boolean;
  /** ISO time of the last frame the device sent (null for write-only devices or never). */
  lastSeenAt: string | null;
  /** Last problem in plain words (Portuguese, shown on /api/local/gates), null when none. */
  problem: string | null;
  /** Driver specifics: firmware version and reset cause, OSDP address and PDID, LCUS channel. */
  device: Record<string, string | number | boolean | null>;
}

export interface RelayDriver extends LaneRelay {
  /** Fire alarm: hold the turnstile open (true) until released (false). */
  setFreePassage(on: boolean): Promise<void>;
  /** Drivers with a fire input report it (bridge STATUS/FIRE); the gate puts every lane in free passage. */
  onFire?(listener: (active: boolean) => void): () => void;
  /** Readers that also deliver codes (an OSDP reader's RAW card data). */
  onScan?(listener: (code: string) => void): () => void;
  /** A read such a reader delivered that cannot be a whole code: the lane refuses it with the reason. */
  onScanRejected?(listener: (reason: ScanRejectReason) => void): () => void;
  /**
   * Every change of `status().online` as the driver sees it happen (port lost or back, session
   * up, device silent or restarted), each once; and `false` once for a device found unreachable
   * before it was ever online. Never called on close().
   */
  onOnline(listener: (online: boolean) => void): () => void;
  status(): RelayStatus;
  close(): Promise<void>;
}

export interface OnlineSignal {
  /** The device answers (true), or it was lost or found unreachable (false); repeats are dropped. */
  set(online: boolean): void;
  /** A break in a working session (a restart, a new handshake): false only if it was online. */
  interrupt(): void;
  add(listener: (online: boolean) => void): () => void;
}

/** What each driver keeps its `onOnline` listeners with. */
export function onlineSignal(log: Log, path: string): OnlineSignal {
  let known: boolean | null = null;
  const listeners = new Set<(online: boolean) => void>();
  const set = (online: boolean) => {
    if (known === online) return;
    known = online;
    for (const l of listeners) {
      try {
        l(online);
      } catch (err) {
        log.error({ err, path }, 'relay online listener failed');
      }
    }
  };
  return {
    set,
    interrupt() {
      if (known === true) set(false);
    },
    add(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
