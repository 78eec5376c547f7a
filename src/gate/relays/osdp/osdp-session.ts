import type { OsdpPacket, OsdpSecurityBlock } from './osdp-codec.js';
import {
  SCBK_DEFAULT,
  Scs,
  computeMac,
  cpCryptogram,
  decryptData,
  deriveSessionKeys,
  encryptData,
  initialRmac,
  newRandom,
  pdCryptogram,
  sameBytes,
  type SessionKeys,
} from './osdp-secure.js';

// The control panel's side of one PD's secure channel (OSDP 2.2 SCS): the handshake
// CHLNG → CCRYPT, SCRYPT → RMAC_I, then a MAC on every message and encrypted data blocks, as
// libosdp's CP does it (src/osdp_cp.c cp_build_command, src/osdp_phy.c). The bus decides when.

export interface PdKeys {
  /** The key the PD must end up with. */
  scbk: Uint8Array;
  /**
   * Keys to try, in order, when the PD does not prove `scbk`: SCBK-D in install mode, the old key
   * when re-keying. A session made with one of them is used only to send `scbk` (KEYSET).
   */
  fallback: readonly Uint8Array[];
}

export interface Wrapped {
  scb: OsdpSecurityBlock;
  data: Uint8Array;
  sign: (signed: Uint8Array) => Uint8Array;
}

export type Opened = { ok: true; data: Uint8Array } | { ok: false; why: 'mac' | 'decrypt' };

export interface CpSecureSession {
  readonly active: boolean;
  /** The session runs on a fallback key: the next step is KEYSET. */
  readonly needsKeyset: boolean;
  /** CHLNG: a new challenge with the key being tried. */
  challenge(): { scb: OsdpSecurityBlock; data: Uint8Array };
  /** CCRYPT: the PD's cryptogram checks out with the key being tried. */
  acceptCcrypt(data: Uint8Array): boolean;
  scrypt(): { scb: OsdpSecurityBlock; data: Uint8Array };
  /** RMAC_I: checks the PD's initial MAC; the session is active from here. */
  acceptRmacI(data: Uint8Array): boolean;
  /** After a failed proof: moves to the next fallback key; false when none is left. */
  tryNextKey(): boolean;
  keysetData(): Uint8Array;
  /** The PD took the new key (and dropped the session). */
  keysetDone(): void;
  wrap(data: Uint8Array): Wrapped;
  open(reply: OsdpPacket): Opened;
  /** Drops the session and starts the key order over (a restart, a lost port). */
  reset(): void;
}

interface Handshake {
  keys: SessionKeys;
  cpRandom: Uint8Array;
  pdRandom: Uint8Array | null;
}

export function createCpSecureSession(config: PdKeys, random: () => Uint8Array = newRandom): CpSecureSession {
  const candidates = () => [config.scbk, ...config.fallback];
  let keyIndex = 0;
  let handshake: Handshake | null = null;
  let session: { keys: SessionKeys; cMac: Uint8Array; rMac: Uint8Array } | null = null;

  const key = () => candidates()[keyIndex]!;
  // libosdp's PD takes key byte 0 as "use SCBK-D" (only in install mode); any other key is 1.
  const keyByte = () => (sameBytes(key(), SCBK_DEFAULT) ? 0 : 1);

  return {
    get active() {
      return session !== null;
    },
    get needsKeyset() {
      return session !== null && keyIndex > 0;
    },
    challenge() {
      session = null;
      const cpRandom = random();
      handshake = { keys: deriveSessionKeys(key(), cpRandom), cpRandom, pdRandom: null };
      return { scb: { type: Scs.CHLNG, data: Uint8Array.of(keyByte()) }, data: cpRandom };
    },
    acceptCcrypt(data) {
      if (!handshake || data.length !== 32) return false;
      const pdRandom = data.slice(8, 16);
      if (!sameBytes(pdCryptogram(handshake.keys, handshake.cpRandom, pdRandom), data.subarray(16, 32))) return false;
      handshake.pdRandom = pdRandom;
      return true;
    },
    scrypt() {
      const h = handshake!;
      return {
        scb: { type: Scs.SCRYPT, data: Uint8Array.of(keyByte()) },
        data: cpCryptogram(h.keys, h.pdRandom!, h.cpRandom),
      };
    },
    acceptRmacI(data) {
      const h = handshake;
      if (!h?.pdRandom) return false;
      const rmac = initialRmac(h.keys, cpCryptogram(h.keys, h.pdRandom, h.cpRandom));
      if (!sameBytes(rmac, data)) return false;
      session = { keys: h.keys, cMac: new Uint8Array(16), rMac: rmac };
      handshake = null;
      return true;
    },
    tryNextKey() {
      session = null;
      handshake = null;
      if (keyIndex + 1 >= candidates().length) return false;
      keyIndex++;
      return true;
    },
    keysetData: () => Uint8Array.from([1, 16, ...config.scbk]),
    keysetDone() {
      keyIndex = 0;
      session = null;
    },
    wrap(data) {
      const s = session!;
      const scb = { type: data.length > 0 ? Scs.CMD_ENC : Scs.CMD_MAC, data: new Uint8Array(0) };
      // The IVs come from the last reply's MAC; resending the same bytes keeps them valid.
      const rMac = s.rMac;
      return {
        scb,
        data: data.length > 0 ? encryptData(s.keys, rMac, data) : data,
        sign: (signed) => (s.cMac = computeMac(s.keys, rMac, signed)),
      };
    },
    open(reply) {
      const s = session!;
      const mac = computeMac(s.keys, s.cMac, reply.signed!);
      if (!sameBytes(mac.subarray(0, reply.mac!.length), reply.mac!)) return { ok: false, why: 'mac' };
      s.rMac = mac;
      if (reply.scb?.type !== Scs.REPLY_ENC) return { ok: true, data: reply.data };
      const plain = decryptData(s.keys, s.cMac, reply.data);
      return plain ? { ok: true, data: plain } : { ok: false, why: 'decrypt' };
    },
    reset() {
      session = null;
      handshake = null;
      keyIndex = 0;
    },
  };
}
