import type { OsdpPacket, OsdpRejectReason, OsdpSecurityBlock } from './osdp-codec.js';
import { createCpSecureSession, type CpSecureSession, type PdKeys } from './osdp-session.js';
import type { OsdpCommandError, OsdpPdHandlers, OsdpPdState, OsdpPhase } from './osdp-types.js';
import type { Log } from '../../../lib/log.js';
import type { TimerFns } from '../../../lib/timers.js';

// One PD's state as the CP keeps it: a plain object that the steps of osdp-pd-phases.ts,
// osdp-pd-replies.ts and osdp-pd.ts read and change, so each step can be reached on its own.

/** What the bus lends each of its PDs. */
export interface PdHooks {
  log: Log;
  path: string;
  timers: TimerFns;
  kick(): void;
  pollIntervalMs: number;
  offlineRetryMs: number;
  linkUp(): boolean;
  isClosed(): boolean;
}

export interface NextCommand {
  code: number;
  data: Uint8Array;
  scb?: OsdpSecurityBlock;
  sign?: (signed: Uint8Array) => Uint8Array;
}

export interface Pending {
  code: number;
  data: Uint8Array;
  resolve(reply: OsdpPacket): void;
  reject(err: Error): void;
  /** Already sent again once after a restart. */
  retried?: boolean;
  /** Part of a restore: made anew by the next one, never carried over (it could be stale). */
  restoring?: boolean;
}

export interface PdState {
  readonly address: number;
  readonly handlers: OsdpPdHandlers;
  readonly hooks: PdHooks;
  /** The secure channel, when the lanes file gives the PD a key (SCBK). */
  readonly sc: CpSecureSession | null;
  /** How messages name the PD: "Leitor OSDP no endereço N". */
  readonly who: string;
  /** Takes the PD off its bus. */
  readonly unlink: () => void;
  phase: OsdpPhase;
  queue: Pending[];
  restore: Pending[];
  current: Pending | null;
  timer: unknown;
  pollDue: boolean;
  probeDue: boolean;
  attached: boolean;
  problem: string | null;
  /** What the log last said about this PD: 'online' or the problem; logs only on change. */
  logged: string | null;
  restarts: number;
  keyWritten: boolean;
  restartsInRow: number;
  lastNak: string | null;
  pdId: OsdpPdState['pdId'];
  pdCap: OsdpPdState['pdCap'];
  /** Sequence of the last command sent; null: the next one restarts with 0. */
  seq: number | null;
  lastSeenAt: string | null;
  /** Why the last reply awaited from this PD was thrown away, until a good one comes. */
  badReply: OsdpRejectReason | null;
}

export interface PdOptions {
  address: number;
  handlers: OsdpPdHandlers;
  keys: PdKeys | null;
  hooks: PdHooks;
  detach(): void;
}

export function createPdState(o: PdOptions): PdState {
  return {
    address: o.address,
    handlers: o.handlers,
    hooks: o.hooks,
    sc: o.keys ? createCpSecureSession(o.keys) : null,
    who: `Leitor OSDP no endereço ${o.address}`,
    unlink: o.detach,
    phase: 'id',
    queue: [],
    restore: [],
    current: null,
    timer: null,
    pollDue: false,
    probeDue: false,
    attached: true,
    problem: null,
    logged: null,
    restarts: 0,
    keyWritten: false,
    restartsInRow: 0,
    lastNak: null,
    pdId: null,
    pdCap: null,
    seq: null,
    lastSeenAt: null,
    badReply: null,
  };
}

export function failAll(s: PdState, err: OsdpCommandError): void {
  for (const p of [s.current, ...s.queue, ...s.restore]) p?.reject(err);
  s.current = null;
  s.queue = [];
  s.restore = [];
}

export function schedule(s: PdState, flag: 'poll' | 'probe', ms: number): void {
  const { timers } = s.hooks;
  timers.clearTimeout(s.timer);
  s.timer = timers.setTimeout(() => {
    if (flag === 'poll') s.pollDue = true;
    else s.probeDue = true;
    s.hooks.kick();
  }, ms);
}

/** A command wrapped in the secure channel when a session is up. */
export const secured = (s: PdState, code: number, data: Uint8Array): NextCommand =>
  s.sc?.active ? { code, ...s.sc.wrap(data) } : { code, data };
