import type { RefusalCode } from './rules/refusal.js';

// What the check-in service answers every door: the domain, not HTTP. A door shapes its own answer
// (the spec's payload, a turnstile's grant or deny, the console's summary).

/**
 * What a granted scan did: the first entry (the check-in the cloud knows), an area entry after it, a re-entry, an exit.
 */
export type Movement = 'checkin' | 'entrada' | 'reentrada' | 'saida';

/** What a code turned out to be. `unknown`: nothing of this tenant (an exit let out by policy). */
export type Target = 'person' | 'group' | 'order' | 'additional' | 'unknown';

export interface MovedPerson {
  id: number;
  /** Their lot: what a console shows of the scan without reading the person again. */
  lotId: number;
  qrCode: string;
  nome: string;
}

export interface Granted {
  ok: true;
  target: Target;
  code: string;
  movement: Movement;
  /** When it happened (UTC ISO). */
  at: string;
  orderId: number | null;
  numeroPedido: string | null;
  /** The people this scan moved. */
  people: MovedPerson[];
  /** Everyone of the group or order (group and order targets), else people.length. */
  totalPessoas: number;
  additional: { id: number; nome: string; quantidade: number; used: number } | null;
  /** An exit with no entry recorded today, let out by the lane's policy. */
  withoutEntry: boolean;
}

export interface Reversed {
  ok: true;
  target: Exclude<Target, 'unknown'>;
  code: string;
  at: string;
  terminal: string | null;
  operador: string | null;
  numeroPedido: string;
  people: MovedPerson[];
  totalPessoas: number;
  additional: { nome: string; quantidade: number; used: number } | null;
}

/** A refusal: its code and its facts; the door words it. */
export interface Refused {
  ok: false;
  code: RefusalCode;
  details?: Record<string, unknown>;
}

export type { Refusal, RefusalCode } from './rules/refusal.js';

export type CheckinResult = Granted | Refused;
export type ReversalResult = Reversed | Refused;

/** The database cannot record a change now (read-only, full, gone): nothing was written. */
export class StorageUnavailableError extends Error {
  constructor(
    /** What the storage said (SQLITE_READONLY, SQLITE_FULL...). */
    readonly reason: string,
  ) {
    super(reason);
    this.name = 'StorageUnavailableError';
  }
}
