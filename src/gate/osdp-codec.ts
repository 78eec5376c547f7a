// OSDP (SIA Open Supervised Device Protocol) packet layer, the box acting as control panel (CP).
// Codes checked against libosdp (src/osdp_common.h) and its pinned vectors (tests/unit-tests/test-cp-phy.c).
// Secure channel (SCB, control flag 0x08) is not implemented: such packets are rejected, not guessed at.
import { crc16Ccitt } from './bridge-codec.js';

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

export const OsdpCommand = { POLL: 0x60, ID: 0x61, CAP: 0x62, OUT: 0x68, LED: 0x69, BUZ: 0x6a } as const;
export const OsdpReply = {
  ACK: 0x40, NAK: 0x41, PDID: 0x45, PDCAP: 0x46, OSTATR: 0x4a, RAW: 0x50, FMT: 0x51, KEYPAD: 0x53, BUSY: 0x79,
} as const;

export interface OsdpPacket {
  /** 0..0x7f; 0x7f is broadcast. The reply bit is carried separately in `reply`. */
  address: number;
  reply: boolean;
  /** 0..3; 0 restarts the sequence. */
  sequence: number;
  useCrc: boolean;
  code: number;
  data: Uint8Array;
}

export type OsdpRejectReason =
  | 'truncated'
  | 'bad_som'
  | 'length_mismatch'
  | 'oversize'
  | 'bad_crc'
  | 'bad_checksum'
  | 'secure_channel_unsupported';

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

export function encodeOsdp(packet: OsdpPacket, opts: { mark?: boolean } = {}): Uint8Array {
  const mark = (opts.mark ?? true) ? 1 : 0;
  const length = HEADER_LEN + 1 + packet.data.length + (packet.useCrc ? 2 : 1);
  if (length > OSDP_MAX_PACKET) throw new RangeError(`OSDP packet of ${length} bytes exceeds ${OSDP_MAX_PACKET}`);
  const out = new Uint8Array(mark + length);
  if (mark) out[0] = OSDP_MARK;
  const p = out.subarray(mark);
  p[0] = OSDP_SOM;
  p[1] = checkInt('address', packet.address, 0x7f) | (packet.reply ? REPLY_BIT : 0);
  p[2] = length & 0xff;
  p[3] = length >> 8;
  p[4] = checkInt('sequence', packet.sequence, 3) | (packet.useCrc ? CTRL_CRC : 0);
  p[5] = checkInt('code', packet.code, 0xff);
  p.set(packet.data, HEADER_LEN + 1);
  const body = p.subarray(0, length - (packet.useCrc ? 2 : 1));
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
  if (control & CTRL_SCB) return reject('secure_channel_unsupported');
  return {
    ok: true,
    packet: {
      address: p[1]! & 0x7f,
      reply: (p[1]! & REPLY_BIT) !== 0,
      sequence: control & CTRL_SEQ,
      useCrc,
      code: p[HEADER_LEN]!,
      data: p.slice(HEADER_LEN + 1, length - checkLen),
    },
  };
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
          // A well-formed secure-channel packet is whole: skip all of it.
          buf = buf.subarray(result.reason === 'secure_channel_unsupported' ? length : 1);
        }
      }
    },
    reset() {
      buf = new Uint8Array(0);
    },
  };
}
