import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  MAX_ENCODED,
  cobsDecode,
  cobsEncode,
  commandValuesOk,
  createFrameReader,
  decodeFrame,
  DenyPattern,
  encodeFrame,
  type BridgeMessage,
} from '../../src/gate/relays/bridge/bridge-codec.js';
import { crc16CcittFalse } from '../../src/lib/crc.js';
import { prng } from '../support/prng.js';

interface Vectors {
  crc: { name: string; input: string; crc: string }[];
  cobs: { name: string; decoded: string; encoded: string }[];
  valid: { name: string; message: BridgeMessage; frame: string }[];
  invalid: { name: string; frame: string; reason: string }[];
  refused: { name: string; message: BridgeMessage; frame: string; nak: string }[];
}

const vectors = JSON.parse(
  readFileSync(new URL('../../firmware-bridge/vectors.json', import.meta.url), 'utf8'),
) as Vectors;

const bytes = (hex: string) => Uint8Array.from(Buffer.from(hex, 'hex'));
const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');

const isGrant = (wire: Uint8Array) => {
  const r = decodeFrame(wire);
  return r.ok && r.message.type === 'GRANT';
};

describe('bridge codec against the shared vectors', () => {
  it('has a case for every kind of check', () => {
    expect(vectors.crc.length).toBeGreaterThan(0);
    expect(vectors.cobs.length).toBeGreaterThan(0);
    expect(vectors.valid.length).toBeGreaterThan(0);
    expect(vectors.refused.length).toBeGreaterThan(0);
    expect(new Set(vectors.invalid.map((v) => v.reason))).toEqual(
      new Set([
        'truncated',
        'oversize',
        'bad_cobs',
        'bad_crc',
        'bad_version',
        'length_mismatch',
        'unknown_type',
        'bad_payload',
      ]),
    );
  });

  it.each(vectors.crc)('CRC-16/CCITT-FALSE: $name', ({ input, crc }) => {
    expect(crc16CcittFalse(bytes(input)).toString(16).padStart(4, '0')).toBe(crc);
  });

  it('CRC check value of "123456789" is 0x29B1', () => {
    expect(crc16CcittFalse(new TextEncoder().encode('123456789'))).toBe(0x29b1);
  });

  it.each(vectors.cobs)('COBS both ways: $name', ({ decoded, encoded }) => {
    expect(hex(cobsEncode(bytes(decoded)))).toBe(encoded);
    expect(hex(cobsDecode(bytes(encoded))!)).toBe(decoded);
  });

  it.each(vectors.valid)('encodes and decodes: $name', ({ message, frame }) => {
    expect(hex(encodeFrame(message))).toBe(frame);
    expect(decodeFrame(bytes(frame))).toEqual({ ok: true, message });
    expect(commandValuesOk(message)).toBe(true);
  });

  it.each(vectors.refused)('decodes but refuses the values of $name', ({ message, frame, nak }) => {
    expect(hex(encodeFrame(message))).toBe(frame);
    expect(decodeFrame(bytes(frame))).toEqual({ ok: true, message });
    expect(commandValuesOk(message)).toBe(false);
    expect(nak).toBe('bad_payload');
  });

  it('covers the additions: DENY pattern 0 and FREE both ways', () => {
    const types = vectors.valid.map((v) => v.message);
    expect(types).toContainEqual(expect.objectContaining({ type: 'DENY', pattern: DenyPattern.GENERIC }));
    expect(types).toContainEqual(expect.objectContaining({ type: 'FREE', on: 1 }));
    expect(types).toContainEqual(expect.objectContaining({ type: 'FREE', on: 0 }));
    expect(vectors.refused.map((v) => v.message.type)).toEqual(expect.arrayContaining(['DENY', 'FREE']));
  });

  it.each(vectors.invalid)('rejects $name as $reason', ({ frame, reason }) => {
    expect(decodeFrame(bytes(frame))).toEqual({ ok: false, reason });
  });

  it('refuses to encode a field out of range', () => {
    expect(() => encodeFrame({ type: 'GRANT', seq: 1, ack: 0, direction: 0, pulseMs: 70_000 })).toThrow(RangeError);
    expect(() => encodeFrame({ type: 'DENY', seq: 256, ack: 0, pattern: 1 })).toThrow(RangeError);
  });
});

describe('nothing but a real GRANT frame opens a relay', () => {
  const grants = vectors.valid.filter((v) => v.message.type === 'GRANT').map((v) => bytes(v.frame));

  it('random buffers never decode to a GRANT', () => {
    const rand = prng(0x6a7e);
    let accepted = 0;
    for (let i = 0; i < 5000; i++) {
      const len = Math.floor(rand() * (MAX_ENCODED + 8));
      const buf = Uint8Array.from({ length: len }, () => Math.floor(rand() * 256));
      // Half of them end in a delimiter, as the stream splitter would hand them over.
      if (i % 2 === 0 && len > 0) buf[len - 1] = 0;
      if (isGrant(buf)) accepted++;
    }
    expect(accepted).toBe(0);
  });

  it('random non-zero bytes with a delimiter (well-formed COBS) never decode to a GRANT', () => {
    const rand = prng(0xc0b5);
    for (let i = 0; i < 5000; i++) {
      const raw = Uint8Array.from({ length: 7 + Math.floor(rand() * 8) }, () => Math.floor(rand() * 256));
      raw[0] = 1;
      raw[1] = 3;
      const enc = cobsEncode(raw);
      const wire = new Uint8Array(enc.length + 1);
      wire.set(enc);
      expect(isGrant(wire)).toBe(false);
    }
  });

  it('every single-bit flip of every GRANT vector is rejected', () => {
    expect(grants.length).toBeGreaterThan(0);
    for (const frame of grants) {
      for (let bit = 0; bit < frame.length * 8; bit++) {
        const copy = frame.slice();
        copy[bit >> 3]! ^= 1 << (bit & 7);
        expect(decodeFrame(copy).ok, `bit ${bit} of ${hex(frame)}`).toBe(false);
      }
    }
  });

  it('every truncation of a GRANT frame is rejected', () => {
    for (const frame of grants) {
      for (let cut = 0; cut < frame.length; cut++) {
        expect(decodeFrame(frame.subarray(0, cut)).ok).toBe(false);
        // Re-closing the full frame minus its delimiter gives the original back, so stop short of it.
        if (cut === frame.length - 1) continue;
        const closed = new Uint8Array(cut + 1);
        closed.set(frame.subarray(0, cut));
        expect(isGrant(closed)).toBe(false);
      }
    }
  });
});

describe('frame reader (a byte stream into frames)', () => {
  const grant = encodeFrame({ type: 'GRANT', seq: 3, ack: 0, direction: 0, pulseMs: 500 });
  const deny = encodeFrame({ type: 'DENY', seq: 4, ack: 0, pattern: 2 });
  const read = (chunks: Uint8Array[]) => {
    const out: string[] = [];
    const reader = createFrameReader((r) => out.push(r.ok ? `${r.message.type}#${r.message.seq}` : r.reason));
    for (const c of chunks) reader.push(c);
    return { out, reader };
  };

  it('finds frames split across reads and several in one read', () => {
    const stream = Uint8Array.from([...grant, ...deny]);
    expect(read([stream]).out).toEqual(['GRANT#3', 'DENY#4']);
    expect(read([...stream].map((b) => Uint8Array.of(b))).out).toEqual(['GRANT#3', 'DENY#4']);
  });

  it('drops a run longer than a frame as oversize and finds the next frame', () => {
    const noise = new Uint8Array(MAX_ENCODED + 20).fill(0x55);
    expect(read([noise, Uint8Array.of(0), grant]).out).toEqual(['oversize', 'GRANT#3']);
  });

  it('ignores empty runs between delimiters, and reset() forgets a partial frame', () => {
    const { out, reader } = read([Uint8Array.of(0, 0), grant.subarray(0, 5)]);
    reader.reset();
    reader.push(deny);
    expect(out).toEqual(['DENY#4']);
  });
});
