import { OsdpCommand, type OsdpPacket } from './osdp-codec.js';
import type { PdCapability, PdId } from './osdp-messages.js';
import type { PdKeys } from './osdp-session.js';
import type { OsdpRelayConfig } from '../relay-config.js';
import type { RelayDriver } from '../relay.js';

// The OSDP control panel's contract: what the bus offers, what a relay sees of its PD, the handlers
// a relay gives the bus. The bus (osdp-bus.ts), a PD (osdp-pd.ts) and a relay (osdp-relay.ts) all
// import this file and never each other upward.

// What a relay sees of its PD on the bus (osdp-bus.ts implements it).
export type OsdpPhase = 'id' | 'cap' | 'chlng' | 'scrypt' | 'keyset' | 'restore' | 'online' | 'offline';

export interface OsdpPdState {
  address: number;
  phase: OsdpPhase;
  online: boolean;
  lastSeenAt: string | null;
  problem: string | null;
  pdId: PdId | null;
  pdCap: PdCapability[] | null;
  /** Sequence of the last command sent; null: the next one restarts with 0. */
  sequence: number | null;
  lastNak: string | null;
  /** A secure-channel session is up. */
  secure: boolean;
  /** The lanes file gives this PD a key (SCBK): secure channel required. */
  keyConfigured: boolean;
  /** Restarts seen (power cuts, lost sessions) since the box started. */
  restarts: number;
  /** The configured key was given to the PD (KEYSET) since the box started. */
  keyWritten: boolean;
}

export interface OsdpPdHandlers {
  /** A POLL answered with something other than ACK (RAW, FMT, KEYPAD...): called once per reply. */
  onPollReply?(packet: OsdpPacket): void;
  /**
   * What the PD's outputs must be told after every handshake (first contact, back from offline,
   * after a restart) before it counts as online.
   */
  restore?(): { code: number; data: Uint8Array }[];
  /**
   * The PD came online (true); it went offline, lost its port, or restarted while online (false).
   * Called as it happens; may repeat a value.
   */
  onOnline?(online: boolean): void;
}

export class OsdpCommandError extends Error {
  constructor(
    message: string,
    readonly kind: 'nak' | 'offline' | 'busy' | 'closed' | 'unexpected',
    readonly nakReason?: number,
  ) {
    super(message);
    this.name = 'OsdpCommandError';
  }
}

export interface OsdpPd {
  readonly address: number;
  /** Resolves with the ACK (or OSTATR); rejects with OsdpCommandError on NAK, offline, lost port, close. */
  send(code: number, data?: Uint8Array): Promise<OsdpPacket>;
  state(): OsdpPdState;
  detach(): void;
}

export interface OsdpBus {
  readonly path: string;
  attach(address: number, handlers?: OsdpPdHandlers, keys?: PdKeys | null): OsdpPd;
  relay(config: OsdpRelayConfig): RelayDriver;
  /** Fails everything pending and closes the link. */
  close(): Promise<void>;
}

export const osdpCommandName = (code: number) =>
  Object.entries(OsdpCommand).find(([, c]) => c === code)?.[0] ?? `0x${code.toString(16)}`;
