import { describe, expect, it } from 'vitest';
import {
  OutControlCode,
  buzData,
  ledData,
  nakReasonText,
  outData,
  parseBuz,
  parseFmt,
  parseKeypad,
  parseLed,
  parseOut,
  parsePdCap,
  parsePdId,
  parseRaw,
  pdCapData,
  pdIdData,
  rawCardText,
  rawData,
} from '../../src/gate/relays/osdp/osdp-messages.js';

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');

describe('OSDP command data', () => {
  it('OUT: four bytes per output, timer little-endian', () => {
    expect(hex(outData([{ output: 0, control: 5, timer: 0x0105 }]))).toBe('00050501');
  });

  it("BUZ: the five bytes of libosdp's CMD_BUZ_DATA_LEN", () => {
    expect(hex(buzData({ reader: 0, tone: 2, onTime: 5, offTime: 5, count: 3 }))).toBe('0002050503');
  });

  it('LED: fourteen bytes, temporary then permanent', () => {
    const d = ledData(
      0,
      0,
      { control: 2, onTime: 5, offTime: 0, onColor: 2, offColor: 0, timer: 30 },
      { control: 1, onTime: 0, offTime: 0, onColor: 0, offColor: 0 },
    );
    expect(d.length).toBe(14);
    expect(hex(d)).toBe('000002050002001e000100000000');
  });
});

describe('OSDP reply data', () => {
  it('PDID', () => {
    expect(parsePdId(Uint8Array.from([0x5c, 0x26, 0x23, 1, 2, 0x78, 0x56, 0x34, 0x12, 1, 4, 9]))).toEqual({
      vendor: 0x23265c,
      model: 1,
      version: 2,
      serial: 0x12345678,
      firmware: '1.4.9',
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

describe('both sides of the wire (the PD simulator reads what the CP writes, and back)', () => {
  it('OUT, LED and BUZ parse back to what was built', () => {
    const outs = [
      { output: 1, control: OutControlCode.TEMPORARY_ON, timer: 700 },
      { output: 0, control: OutControlCode.PERMANENT_OFF_ABORT_TIMED, timer: 0 },
    ];
    expect(parseOut(outData(outs))).toEqual(outs);
    expect(parseOut(new Uint8Array(3))).toBeNull();
    const temporary = { control: 2, onTime: 1, offTime: 4, onColor: 1, offColor: 0, timer: 300 };
    const permanent = { control: 0, onTime: 0, offTime: 0, onColor: 0, offColor: 0 };
    expect(parseLed(ledData(0, 1, temporary, permanent))).toEqual({ reader: 0, led: 1, temporary, permanent });
    const buz = { reader: 0, tone: 2, onTime: 1, offTime: 1, count: 3 };
    expect(parseBuz(buzData(buz))).toEqual(buz);
  });

  it('PDID (firmware major, minor, build) and PDCAP', () => {
    const id = { vendor: 0x0a0b0c, model: 7, version: 1, serial: 0xdeadbeef, firmware: '2.1.0' };
    expect(Buffer.from(pdIdData(id)).toString('hex')).toBe('0c0b0a0701efbeadde020100');
    expect(parsePdId(pdIdData(id))).toEqual(id);
    const caps = [{ function: 2, compliance: 1, count: 2 }];
    expect(parsePdCap(pdCapData(caps))).toEqual(caps);
  });
});

describe('card reads as codes', () => {
  const card = (text: string) => {
    const data = new TextEncoder().encode(text);
    return { reader: 0, format: 0, bitCount: data.length * 8, data };
  };

  it('RAW of whole printable bytes is the text', () => {
    expect(rawCardText(parseRaw(rawData(card('QR-2026-000123')))!)).toBe('QR-2026-000123');
  });

  it('a Wiegand-style bit count or a non-printable byte is not a code', () => {
    expect(rawCardText({ reader: 0, format: 1, bitCount: 26, data: Uint8Array.of(1, 2, 3, 0xc0) })).toBeNull();
    expect(rawCardText({ reader: 0, format: 0, bitCount: 16, data: Uint8Array.of(0x41, 0x0d) })).toBeNull();
    expect(rawCardText({ reader: 0, format: 0, bitCount: 0, data: new Uint8Array() })).toBeNull();
  });

  it('FMT: reader, direction, length, characters', () => {
    expect(parseFmt(Uint8Array.from([0, 0, 3, 0x41, 0x42, 0x43]))).toEqual({ reader: 0, text: 'ABC' });
    expect(parseFmt(Uint8Array.from([0, 0, 4, 0x41]))).toBeNull();
  });
});

describe('NAK reasons', () => {
  it('are told in Portuguese, unknown ones by number', () => {
    expect(nakReasonText(3)).toMatch(/não suportado/);
    expect(nakReasonText(6)).toMatch(/canal seguro/);
    expect(nakReasonText(77)).toBe('motivo desconhecido (77)');
  });
});
