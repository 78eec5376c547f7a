import type { MovePolicy } from '../../checkin/movement.settings.js';
import type { CheckinService } from '../../checkin/checkin.service.js';
import type { Granted, Movement } from '../../checkin/result.js';
import type { Clock } from '../../clock.js';
import type { Log } from '../../lib/log.js';
import type { TimerFns } from '../../lib/timers.js';
import type { DenyReason, LaneRelay, ScanRejectReason } from '../relays/relay.js';
import type { LaneConfig } from './lane-config.js';

// What a lane is to the rest of the box: its events, scan results, status and dependencies
// (lane.ts has the flow).

export type LaneDirection = LaneConfig['direction'];

export type LaneOwnReason = `LEITURA_${Uppercase<ScanRejectReason>}`;

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
