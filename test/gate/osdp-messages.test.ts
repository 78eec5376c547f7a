import { describe, expect, it } from 'vitest';
import { buzData, ledData, outData, parseKeypad, parsePdCap, parsePdId, parseRaw } from '../../src/gate/osdp-messages.js';

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');

describe('OSDP command data', () => {
  it('OUT: four bytes per output, timer little-endian', () => {
    expect(hex(outData([{ output: 0, control: 5, timer: 0x0105 }]))).toBe('00050501');
  });

  it('BUZ: the five bytes of libosdp\'s CMD_BUZ_DATA_LEN', () => {
    expect(hex(buzData({ reader: 0, tone: 2, onTime: 5, offTime: 5, count: 3 }))).toBe('0002050503');
  });

  it('LED: fourteen bytes, temporary then permanent', () => {
    const d = ledData(0, 0, { control: 2, onTime: 5, offTime: 0, onColor: 2, offColor: 0, timer: 30 }, { control: 1, onTime: 0, offTime: 0, onColor: 0, offColor: 0 });
    expect(d.length).toBe(14);
    expect(hex(d)).toBe('000002050002001e000100000000');
  });
});

describe('OSDP reply data', () => {
  it('PDID', () => {
    expect(parsePdId(Uint8Array.from([0x5c, 0x26, 0x23, 1, 2, 0x78, 0x56, 0x34, 0x12, 1, 4, 9]))).toEqual({
      vendor: 0x23265c, model: 1, version: 2, serial: 0x12345678, firmware: '1.4.9',
    });
    expect(parsePdId(new Uint8Array(11))).toBeNull();
  });

  it('PDCAP triples', () => {
    expect(parsePdCap(Uint8Array.from([9, 1, 0, 10, 0xff, 0]))).toEqual([
      { function: 9, compliance: 1, count: 0 },
      { function: 10, compliance: 0xff, count: 0 },
    ]);
    expect(parsePdCap(new Uint8Array(4))).toBeNull();
  });

  it('RAW carries a QR code as bytes, bit count little-endian', () => {
    const code = new TextEncoder().encode('QR-123');
    const raw = parseRaw(Uint8Array.from([0, 0, code.length * 8, 0, ...code]));
    expect(raw && new TextDecoder().decode(raw.data)).toBe('QR-123');
    expect(parseRaw(Uint8Array.from([0, 0, 16, 0, 1]))).toBeNull();
  });

  it('KEYPAD', () => {
    expect(parseKeypad(Uint8Array.from([0, 3, 0x31, 0x32, 0x23]))).toEqual({ reader: 0, keys: '12#' });
    expect(parseKeypad(Uint8Array.from([0, 4, 0x31]))).toBeNull();
  });
});
