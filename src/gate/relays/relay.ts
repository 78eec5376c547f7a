import type { Log } from '../../lib/log.js';
import type { LaneRelay } from '../lanes/lane.js';
import type { ScanRejectReason } from '../lanes/scanner-lines.js';

// What every relay driver (bridge, LCUS, OSDP) offers beyond the per-scan LaneRelay calls.

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
