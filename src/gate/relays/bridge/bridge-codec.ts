// Bridge board wire codec: the TypeScript twin of firmware-bridge/src/protocol.c.
// Both are pinned by firmware-bridge/vectors.json; see firmware-bridge/PROTOCOL.md.
import { crc16CcittFalse } from '../../../lib/crc.js';

export const BRIDGE_VERSION = 1;
export const HEADER_LEN = 5;
export const CRC_LEN = 2;
export const MAX_PAYLOAD = 32;
export const MAX_RAW = HEADER_LEN + MAX_PAYLOAD + CRC_LEN;
export const MAX_ENCODED = MAX_RAW + 1;

type Field = readonly [name: string, width: 1 | 2];

// Field order is byte order; widths are little-endian byte counts.
export const BRIDGE_TYPES = {
  HELLO: { code: 0x01, fields: [['failMode', 1]] },
  HEARTBEAT: { code: 0x02, fields: [['timeoutMs', 2]] },
  GRANT: {
    code: 0x03,
    fields: [
      ['direction', 1],
      ['pulseMs', 2],
    ],
  },
  DENY: { code: 0x04, fields: [['pattern', 1]] },
  LED: {
    code: 0x05,
    fields: [
      ['color', 1],
      ['durationMs', 2],
    ],
  },
  BUZ: {
    code: 0x06,
    fields: [
      ['onMs', 2],
      ['offMs', 2],
      ['count', 1],
    ],
  },
  FREE: { code: 0x07, fields: [['on', 1]] },
  BOOT: {
    code: 0x81,
    fields: [
      ['fwMajor', 1],
      ['fwMinor', 1],
      ['resetCause', 1],
    ],
  },
  STATUS: {
    code: 0x82,
    fields: [
      ['inputs', 1],
      ['outputs', 1],
    ],
  },
  PASSAGE: { code: 0x83, fields: [['direction', 1]] },
  FIRE: { code: 0x84, fields: [['active', 1]] },
  ACK: { code: 0x85, fields: [] },
  NAK: { code: 0x86, fields: [['reason', 1]] },
} as const satisfies Record<string, { code: number; fields: readonly Field[] }>;

export type BridgeTypeName = keyof typeof BRIDGE_TYPES;

type FieldsOf<T extends BridgeTypeName> = {
  [F in (typeof BRIDGE_TYPES)[T]['fields'][number] as F[0]]: number;
};

export type BridgeMessage = {
  [T in BridgeTypeName]: { type: T; seq: number; ack: number } & FieldsOf<T>;
}[BridgeTypeName];

export type BridgeMessageOf<T extends BridgeTypeName> = Extract<BridgeMessage, { type: T }>;

export const Direction = { IN: 0, OUT: 1 } as const;
export const FailMode = { LOCKED: 0, FREE: 1 } as const;
export const DenyPattern = {
  GENERIC: 0,
  ALREADY_USED: 1,
  EXPIRED: 2,
  NOT_YET_VALID: 3,
  NOT_FOUND: 4,
  CANCELLED: 5,
  CAPACITY: 6,
} as const;
export const LedColor = { OFF: 0, RED: 1, GREEN: 2, AMBER: 3 } as const;
export const ResetCause = { POWER_ON: 0, WATCHDOG: 1, BROWN_OUT: 2, EXTERNAL: 3, SOFTWARE: 4, UNKNOWN: 255 } as const;
export const NakReason = { NOT_READY: 1, BAD_PAYLOAD: 2, UNKNOWN_TYPE: 3, FIRE_ACTIVE: 4 } as const;
export const HEARTBEAT_TIMEOUT_MS = { min: 100, max: 60_000 } as const;

/**
 * Whether a well-formed frame's field values are in range (PROTOCOL.md, "Value ranges").
 * The board NAKs a command that fails this with reason 2; board events have no ranges to check.
 */
export function commandValuesOk(message: BridgeMessage): boolean {
  switch (message.type) {
    case 'HELLO':
      return message.failMode <= 1;
    case 'HEARTBEAT':
      return message.timeoutMs >= HEARTBEAT_TIMEOUT_MS.min && message.timeoutMs <= HEARTBEAT_TIMEOUT_MS.max;
    case 'GRANT':
      return message.direction <= 1;
    case 'DENY':
      return message.pattern <= DenyPattern.CAPACITY;
    case 'LED':
      return message.color <= 3;
    case 'FREE':
      return message.on <= 1;
    default:
      return true;
  }
}

// Checked in this order, same as bridge_frame_decode in C.
export type BridgeRejectReason =
  | 'truncated'
  | 'oversize'
  | 'bad_cobs'
  | 'bad_crc'
  | 'bad_version'
  | 'length_mismatch'
  | 'unknown_type'
  | 'bad_payload';

export type BridgeDecodeResult = { ok: true; message: BridgeMessage } | { ok: false; reason: BridgeRejectReason };

const BY_CODE = new Map<number, BridgeTypeName>(
  (Object.keys(BRIDGE_TYPES) as BridgeTypeName[]).map((name) => [BRIDGE_TYPES[name].code, name]),
);

function fieldsOf(type: BridgeTypeName): readonly Field[] {
  return BRIDGE_TYPES[type].fields;
}

export function payloadLength(type: BridgeTypeName): number {
  return fieldsOf(type).reduce((n, [, w]) => n + w, 0);
}

export function cobsEncode(input: Uint8Array): Uint8Array {
  const out = new Uint8Array(input.length + Math.ceil(input.length / 254) + 1);
  let codeAt = 0;
  let o = 1;
  let code = 1;
  for (let i = 0; i < input.length; i++) {
    const byte = input[i]!;
    if (byte === 0) {
      out[codeAt] = code;
      codeAt = o++;
      code = 1;
      continue;
    }
    out[o++] = byte;
    code++;
    if (code === 0xff && i + 1 < input.length) {
      out[codeAt] = code;
      codeAt = o++;
      code = 1;
    }
  }
  out[codeAt] = code;
  return out.slice(0, o);
}

/** Input excludes the 0x00 delimiter; null when malformed. */
export function cobsDecode(input: Uint8Array): Uint8Array | null {
  const out: number[] = [];
  let i = 0;
  while (i < input.length) {
    const code = input[i++]!;
    if (code === 0 || i + code - 1 > input.length) return null;
    for (let k = 1; k < code; k++) {
      const byte = input[i++]!;
      if (byte === 0) return null;
      out.push(byte);
    }
    if (code !== 0xff && i < input.length) out.push(0);
  }
  return Uint8Array.from(out);
}

export interface RawFrame {
  version: number;
  type: number;
  seq: number;
  ack: number;
  payload: Uint8Array;
}

/** Low-level framing with no type checks; tests use it to build deliberately wrong frames. */
export function encodeRawFrame(frame: RawFrame, declaredLength = frame.payload.length): Uint8Array {
  const raw = new Uint8Array(HEADER_LEN + frame.payload.length + CRC_LEN);
  raw.set([frame.version, frame.type, frame.seq, frame.ack, declaredLength]);
  raw.set(frame.payload, HEADER_LEN);
  const crc = crc16CcittFalse(raw.subarray(0, raw.length - CRC_LEN));
  raw[raw.length - 2] = crc & 0xff;
  raw[raw.length - 1] = crc >> 8;
  const enc = cobsEncode(raw);
  const wire = new Uint8Array(enc.length + 1);
  wire.set(enc);
  return wire;
}

function u8(name: string, v: unknown, max: number): number {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v > max) {
    throw new RangeError(`bridge field ${name} must be an integer 0..${max}, got ${String(v)}`);
  }
  return v;
}

export function encodeFrame(message: BridgeMessage): Uint8Array {
  const spec = BRIDGE_TYPES[message.type];
  const payload = new Uint8Array(payloadLength(message.type));
  const values = message as unknown as Record<string, unknown>;
  let off = 0;
  for (const [name, width] of spec.fields as readonly Field[]) {
    const v = u8(name, values[name], width === 1 ? 0xff : 0xffff);
    payload[off] = v & 0xff;
    if (width === 2) payload[off + 1] = v >> 8;
    off += width;
  }
  return encodeRawFrame({
    version: BRIDGE_VERSION,
    type: spec.code,
    seq: u8('seq', message.seq, 0xff),
    ack: u8('ack', message.ack, 0xff),
    payload,
  });
}

/** Input is one whole wire frame including its trailing 0x00 delimiter. */
export function decodeFrame(wire: Uint8Array): BridgeDecodeResult {
  const reject = (reason: BridgeRejectReason): BridgeDecodeResult => ({ ok: false, reason });
  if (wire.length === 0 || wire[wire.length - 1] !== 0) return reject('truncated');
  if (wire.length - 1 > MAX_ENCODED) return reject('oversize');
  const raw = cobsDecode(wire.subarray(0, wire.length - 1));
  if (raw === null) return reject('bad_cobs');
  if (raw.length > MAX_RAW) return reject('oversize');
  if (raw.length < HEADER_LEN + CRC_LEN) return reject('truncated');
  const n = raw.length;
  if (crc16CcittFalse(raw.subarray(0, n - CRC_LEN)) !== (raw[n - 2]! | (raw[n - 1]! << 8))) return reject('bad_crc');
  if (raw[0] !== BRIDGE_VERSION) return reject('bad_version');
  const len = raw[4]!;
  if (len + HEADER_LEN + CRC_LEN !== n) return reject('length_mismatch');
  const type = BY_CODE.get(raw[1]!);
  if (type === undefined) return reject('unknown_type');
  if (len !== payloadLength(type)) return reject('bad_payload');
  const message: Record<string, number | string> = { type, seq: raw[2]!, ack: raw[3]! };
  let off = HEADER_LEN;
  for (const [name, width] of fieldsOf(type)) {
    message[name] = width === 1 ? raw[off]! : raw[off]! | (raw[off + 1]! << 8);
    off += width;
  }
  return { ok: true, message: message as unknown as BridgeMessage };
}

export interface FrameReader {
  push(chunk: Uint8Array): void;
  /** Port reopened: forget a partial frame. */
  reset(): void;
}

/**
 * The receiving end of a byte stream: cuts it at every 0x00 and decodes each wire frame. A run longer
 * than a frame can be is dropped up to its 0x00, as `oversize` (PROTOCOL.md), without being buffered.
 */
export function createFrameReader(onFrame: (result: BridgeDecodeResult, wire: Uint8Array) => void): FrameReader {
  const buffer = new Uint8Array(MAX_ENCODED + 1);
  let length = 0;
  let overflow = false;
  return {
    push(chunk) {
      for (const byte of chunk) {
        if (byte !== 0) {
          if (length < MAX_ENCODED) buffer[length++] = byte;
          else overflow = true;
          continue;
        }
        buffer[length] = 0;
        const wire = buffer.slice(0, length + 1);
        const wasOverflow = overflow;
        length = 0;
        overflow = false;
        if (wire.length === 1) continue; // back-to-back delimiters: nothing between them
        onFrame(wasOverflow ? { ok: false, reason: 'oversize' } : decodeFrame(wire), wire);
      }
    },
    reset() {
      length = 0;
      overflow = false;
    },
  };
}
