// OSDP (SIA Open Supervised Device Protocol) packet layer, the box acting as control panel (CP).
// Codes checked against libosdp (src/osdp_common.h) and its pinned vectors (tests/unit-tests/test-cp-phy.c).
// A packet may carry a security block (control flag 0x08) and, for SCS_15..18, a 4-byte MAC before
// the check bytes (libosdp src/osdp_phy.c); what they mean is osdp-secure.ts's business.
import { crc16Ccitt } from '../../../lib/crc.js';

export const OSDP_MARK = 0xff;
export const OSDP_SOM = 0x53;
export const OSDP_BROADCAST = 0x7f;
const REPLY_BIT = 0x80;
const CTRL_SEQ = 0x03;
const CTRL_CRC = 0x04;
const CTRL_SCB = 0x08;
const HEADER_LEN = 5; // SOM, address, length LSB, length MSB, control
// Receive buffers on both sides are small; libosdp defaults to 256 bytes.
export const OSDP_MAX_PACKET = 1024;

export const OsdpCommand = {
  POLL: 0x60,
  ID: 0x61,
  CAP: 0x62,
  OUT: 0x68,
  LED: 0x69,
  BUZ: 0x6a,
  KEYSET: 0x75,
  CHLNG: 0x76,
  SCRYPT: 0x77,
} as const;
export const OsdpReply = {
  ACK: 0x40,
  NAK: 0x41,
  PDID: 0x45,
  PDCAP: 0x46,
  OSTATR: 0x4a,
  RAW: 0x50,
  FMT: 0x51,
  KEYPAD: 0x53,
  CCRYPT: 0x76,
  RMAC_I: 0x78,
  BUSY: 0x79,
} as const;

/** First SCS type whose packets end in a MAC (SCS_15..SCS_18). */
const FIRST_MAC_SCS = 0x15;
const MAC_LEN = 4;

export interface OsdpSecurityBlock {
  /** SCS_11..SCS_18. */
  type: number;
  /** The block's data bytes after the type (for SCS_11..14, one byte: 0 = SCBK-D, 1 = SCBK). */
  data: Uint8Array;
}

export interface OsdpPacket {
  /** 0..0x7f; 0x7f is broadcast. The reply bit is carried separately in `reply`. */
  address: number;
  reply: boolean;
  /** 0..3; 0 restarts the sequence. */
  sequence: number;
  useCrc: boolean;
  code: number;
  /** For SCS_17/18 packets, the encrypted data block as it is on the wire. */
  data: Uint8Array;
  scb?: OsdpSecurityBlock | null;
  /** SCS_15..18: the 4 MAC bytes received. */
  mac?: Uint8Array | null;
  /** SCS_15..18, decoded packets only: the bytes the MAC covers (SOM up to the MAC). */
  signed?: Uint8Array;
}

export type OsdpRejectReason =
  'truncated' | 'bad_som' | 'length_mismatch' | 'oversize' | 'bad_crc' | 'bad_checksum' | 'bad_security_block';

export type OsdpDecodeResult = { ok: true; packet: OsdpPacket } | { ok: false; reason: OsdpRejectReason };

/** OSDP's CRC-16: poly 0x1021, init 0x1D0F, no reflection, no final xor. */
export const osdpCrc16 = (data: Uint8Array): number => crc16Ccitt(data, 0x1d0f);

/** Two's complement of the low byte of the byte sum. */
export function osdpChecksum(data: Uint8Array): number {
  let sum = 0;
  for (const byte of data) sum = (sum + byte) & 0xff;
  return (0x100 - sum) & 0xff;
}

function checkInt(name: string, v: number, max: number): number {
  if (!Number.isInteger(v) || v < 0 || v > max) throw new RangeError(`OSDP ${name} must be 0..${max}, got ${v}`);
  return v;
}

const hasMac = (scb: OsdpSecurityBlock | null | undefined) => (scb?.type ?? 0) >= FIRST_MAC_SCS;

export interface EncodeOptions {
  mark?: boolean;
  /** Required for SCS_15..18: the MAC (its first 4 bytes are sent) over the bytes given. */
  sign?: (signed: Uint8Array) => Uint8Array;
}

export function encodeOsdp(packet: OsdpPacket, opts: EncodeOptions = {}): Uint8Array {
  const mark = (opts.mark ?? true) ? 1 : 0;
  const scb = packet.scb ?? null;
  const scbLen = scb ? 2 + scb.data.length : 0;
  const macLen = hasMac(scb) ? MAC_LEN : 0;
  if (macLen && !opts.sign) throw new Error('OSDP secure packet without a MAC function');
  const length = HEADER_LEN + scbLen + 1 + packet.data.length + macLen + (packet.useCrc ? 2 : 1);
  if (length > OSDP_MAX_PACKET) throw new RangeError(`OSDP packet of ${length} bytes exceeds ${OSDP_MAX_PACKET}`);
  const out = new Uint8Array(mark + length);
  if (mark) out[0] = OSDP_MARK;
  const p = out.subarray(mark);
  p[0] = OSDP_SOM;
  p[1] = checkInt('address', packet.address, 0x7f) | (packet.reply ? REPLY_BIT : 0);
  p[2] = length & 0xff;
  p[3] = length >> 8;
  p[4] = checkInt('sequence', packet.sequence, 3) | (packet.useCrc ? CTRL_CRC : 0) | (scb ? CTRL_SCB : 0);
  if (scb) {
    p[HEADER_LEN] = scbLen;
    p[HEADER_LEN + 1] = checkInt('security block type', scb.type, 0xff);
    p.set(scb.data, HEADER_LEN + 2);
  }
  p[HEADER_LEN + scbLen] = checkInt('code', packet.code, 0xff);
  p.set(packet.data, HEADER_LEN + scbLen + 1);
  const body = p.subarray(0, length - (packet.useCrc ? 2 : 1));
  if (macLen) body.set(opts.sign!(body.subarray(0, body.length - macLen)).subarray(0, macLen), body.length - macLen);
  if (packet.useCrc) {
    const crc = osdpCrc16(body);
    p[length - 2] = crc & 0xff;
    p[length - 1] = crc >> 8;
  } else {
    p[length - 1] = osdpChecksum(body);
  }
  return out;
}

/** Decodes exactly one packet; leading 0xFF mark bytes are skipped. */
export function decodeOsdp(input: Uint8Array): OsdpDecodeResult {
  const reject = (reason: OsdpRejectReason): OsdpDecodeResult => ({ ok: false, reason });
  let start = 0;
  while (start < input.length && input[start] === OSDP_MARK) start++;
  const p = input.subarray(start);
  if (p.length === 0) return reject('truncated');
  if (p[0] !== OSDP_SOM) return reject('bad_som');
  if (p.length < HEADER_LEN) return reject('truncated');
  const length = p[2]! | (p[3]! << 8);
  const control = p[4]!;
  const useCrc = (control & CTRL_CRC) !== 0;
  if (length > OSDP_MAX_PACKET) return reject('oversize');
  if (length !== p.length || length < HEADER_LEN + 1 + (useCrc ? 2 : 1)) return reject('length_mismatch');
  const checkLen = useCrc ? 2 : 1;
  const body = p.subarray(0, length - checkLen);
  if (useCrc) {
    if (osdpCrc16(body) !== (p[length - 2]! | (p[length - 1]! << 8))) return reject('bad_crc');
  } else if (osdpChecksum(body) !== p[length - 1]) {
    return reject('bad_checksum');
  }
  let scb: OsdpSecurityBlock | null = null;
  let at = HEADER_LEN;
  if (control & CTRL_SCB) {
    const scbLen = p[HEADER_LEN]!;
    const type = p[HEADER_LEN + 1]!;
    // Room for the block, the code and, when the type has one, the MAC.
    if (scbLen < 2 || HEADER_LEN + scbLen + 1 + (type >= FIRST_MAC_SCS ? MAC_LEN : 0) > body.length)
      return reject('bad_security_block');
    scb = { type, data: p.slice(HEADER_LEN + 2, HEADER_LEN + scbLen) };
    at += scbLen;
  }
  const macLen = hasMac(scb) ? MAC_LEN : 0;
  const end = body.length - macLen;
  const packet: OsdpPacket = {
    address: p[1]! & 0x7f,
    reply: (p[1]! & REPLY_BIT) !== 0,
    sequence: control & CTRL_SEQ,
    useCrc,
    code: p[at]!,
    data: p.slice(at + 1, end),
  };
  if (scb) packet.scb = scb;
  if (macLen) {
    packet.mac = p.slice(end, end + MAC_LEN);
    packet.signed = p.slice(0, end);
  }
  return { ok: true, packet };
}

/** Next sequence number for the CP: 1, 2, 3, 1, ... (0 is only sent to (re)start a session). */
export function nextOsdpSequence(current: number): number {
  return (current % 3) + 1;
}

export interface OsdpStreamReader {
  push(chunk: Uint8Array): void;
  /** Drops any partial packet (the CP does this before each command, like libosdp's flush). */
  reset(): void;
}

/**
 * Splits a byte stream into packets: skips mark bytes and noise up to a SOM, waits for the length
 * the header announces, then decodes. A packet that fails its check is reported and only its SOM
 * is dropped, so a real packet hidden behind a false SOM in noise is still found.
 */
export function createOsdpStreamReader(
  onPacket: (packet: OsdpPacket) => void,
  onReject?: (reason: OsdpRejectReason, bytes: Uint8Array) => void,
): OsdpStreamReader {
  let buf: Uint8Array = new Uint8Array(0);
  return {
    push(chunk) {
      const joined = new Uint8Array(buf.length + chunk.length);
      joined.set(buf);
      joined.set(chunk, buf.length);
      buf = joined;
      for (;;) {
        const som = buf.indexOf(OSDP_SOM);
        if (som < 0) {
          buf = new Uint8Array(0);
          return;
        }
        buf = buf.subarray(som);
        if (buf.length < HEADER_LEN) return;
        const length = buf[2]! | (buf[3]! << 8);
        if (length > OSDP_MAX_PACKET || length < HEADER_LEN + 2) {
          onReject?.(length > OSDP_MAX_PACKET ? 'oversize' : 'length_mismatch', buf.slice(0, HEADER_LEN));
          buf = buf.subarray(1);
          continue;
        }
        if (buf.length < length) return;
        const result = decodeOsdp(buf.subarray(0, length));
        if (result.ok) {
          buf = buf.subarray(length);
          onPacket(result.packet);
        } else {
          onReject?.(result.reason, buf.slice(0, length));
          // A packet whose check bytes are right is whole, however odd its security block: skip all of it.
          buf = buf.subarray(result.reason === 'bad_security_block' ? length : 1);
        }
      }
    },
    reset() {
      buf = new Uint8Array(0);
    },
  };
}
