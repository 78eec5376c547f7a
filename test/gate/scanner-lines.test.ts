import { describe, expect, it } from 'vitest';
import {
  createDebouncer,
  createScannerLineSplitter,
  stripAimPrefix,
  type ScannerLineOptions,
} from '../../src/gate/lanes/scanner-lines.js';
import type { ScanRejectReason } from '../../src/gate/relays/relay.js';
import { manualTimers } from '../support/manual-timers.js';
import { createClock } from '../../src/clock.js';

function splitter(opts: Partial<ScannerLineOptions> = {}) {
  const clock = manualTimers();
  const codes: string[] = [];
  const rejects: [ScanRejectReason, string][] = [];
  const s = createScannerLineSplitter({
    suffix: 'cr',
    interByteTimeoutMs: 0,
    timers: clock.timers,
    onCode: (c) => codes.push(c),
    onReject: (r, sample) => rejects.push([r, sample]),
    ...opts,
  });
  return { s, codes, rejects, clock };
}

describe('scanner line splitter', () => {
  it.each([
    ['cr', '\r'],
    ['lf', '\n'],
    ['crlf', '\r\n'],
  ] as const)('suffix %s: one code per line, never an empty code', (suffix, end) => {
    const { s, codes, rejects } = splitter({ suffix });
    s.push(`ABC-1${end}ABC-2${end}${end}`);
    expect(codes).toEqual(['ABC-1', 'ABC-2']);
    expect(rejects).toEqual([]);
  });

  it('joins a code split across writes, including a CRLF split between CR and LF', () => {
    const { s, codes } = splitter({ suffix: 'crlf' });
    for (const part of ['A', 'B-', '1\r', '\nB', '-2', '\r', '\n']) s.push(Buffer.from(part, 'latin1'));
    expect(codes).toEqual(['AB-1', 'B-2']);
  });

  it('accepts any line ending whatever suffix is configured', () => {
    const { s, codes } = splitter({ suffix: 'lf' });
    s.push('X-1\rX-2\r\nX-3\n');
    expect(codes).toEqual(['X-1', 'X-2', 'X-3']);
  });

  it('suffix none: the inter-byte silence ends the code, however many writes it took', () => {
    const { s, codes, clock } = splitter({ suffix: 'none', interByteTimeoutMs: 50 });
    s.push('QR');
    clock.advance(30);
    s.push('-77');
    clock.advance(49);
    expect(codes).toEqual([]);
    clock.advance(1);
    expect(codes).toEqual(['QR-77']);
    s.push('NEXT');
    clock.advance(50);
    expect(codes).toEqual(['QR-77', 'NEXT']);
    expect(clock.pending()).toBe(0);
  });

  it('suffix none without a timeout is a configuration error', () => {
    expect(() => createScannerLineSplitter({ suffix: 'none', interByteTimeoutMs: 0, onCode: () => {} })).toThrow(
      RangeError,
    );
  });

  it('line mode: a partial line left by silence is discarded, not glued to the next scan', () => {
    const { s, codes, rejects, clock } = splitter({ suffix: 'cr', interByteTimeoutMs: 100 });
    s.push('HALF');
    clock.advance(100);
    s.push('WHOLE\r');
    expect(codes).toEqual(['WHOLE']);
    expect(rejects).toEqual([['stale', 'HALF']]);
    expect(clock.pending()).toBe(0);
  });

  it('strips an AIM symbology identifier only when asked', () => {
    expect(stripAimPrefix(']Q1ABC')).toBe('ABC');
    expect(stripAimPrefix(']d2010123')).toBe('010123');
    expect(stripAimPrefix(']Q')).toBe(']Q');
    expect(stripAimPrefix('A]Q1')).toBe('A]Q1');
    const on = splitter({ stripAimId: true });
    on.s.push(']Q1TICKET-9\r]d2GS1\rPLAIN\r');
    expect(on.codes).toEqual(['TICKET-9', 'GS1', 'PLAIN']);
    const off = splitter();
    off.s.push(']Q1TICKET-9\r');
    expect(off.codes).toEqual([']Q1TICKET-9']);
  });

  it('rejects a code longer than maxLength and keeps the buffer bounded', () => {
    const { s, codes, rejects } = splitter({ maxLength: 8 });
    s.push('12345678\r');
    s.push('123456789');
    for (let i = 0; i < 1000; i++) s.push(Buffer.alloc(1024, 0x41));
    s.push('\rOK-1\r');
    expect(codes).toEqual(['12345678', 'OK-1']);
    expect(rejects).toEqual([['too_long', '12345678']]);
  });

  it('rejects a whole code containing a non-printable byte instead of repairing it', () => {
    const { s, codes, rejects } = splitter();
    s.push(Uint8Array.from([0x41, 0x00, 0x42, 0x0d]));
    s.push(Uint8Array.from([0x41, 0xc3, 0xa9, 0x0d]));
    s.push(Uint8Array.from([0x1b, 0x5b, 0x0d]));
    s.push('GOOD\r');
    expect(codes).toEqual(['GOOD']);
    expect(rejects.map(([r]) => r)).toEqual(['non_printable', 'non_printable', 'non_printable']);
    expect(rejects[0]![1]).toBe('A?B');
  });

  it('random garbage never yields a code longer than maxLength or with a control byte', () => {
    let seed = 42;
    const rand = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
    const { s, codes } = splitter({ maxLength: 32 });
    const byte = () => {
      const r = rand();
      if (r < 0.05) return 0x0d;
      if (r < 0.08) return Math.floor(rand() * 256);
      return 0x20 + Math.floor(rand() * 95);
    };
    for (let i = 0; i < 2000; i++) s.push(Uint8Array.from({ length: 1 + Math.floor(rand() * 64) }, byte));
    expect(codes.length).toBeGreaterThan(0);
    for (const c of codes) expect(c).toMatch(/^[\x20-\x7e]{1,32}$/);
  });

  it('reset drops the buffer and the timer', () => {
    const { s, codes, rejects, clock } = splitter({ suffix: 'none', interByteTimeoutMs: 50 });
    s.push('PART');
    s.reset();
    clock.advance(100);
    s.push('NEW');
    clock.advance(50);
    expect(codes).toEqual(['NEW']);
    expect(rejects).toEqual([]);
  });
});

describe('debouncer', () => {
  it('ignores the same code within the window, measured from when it was last seen', () => {
    let t = 0;
    const d = createDebouncer({ windowMs: 2000, clock: createClock('UTC', () => new Date(t)) });
    expect(d.accept('A')).toBe(true);
    t = 1500;
    expect(d.accept('A')).toBe(false);
    t = 3000; // 1500 ms after the last sighting: still held in front of the scanner
    expect(d.accept('A')).toBe(false);
    t = 5000;
    expect(d.accept('A')).toBe(true);
  });

  it('tracks codes independently and lets a different code through at once', () => {
    let t = 0;
    const d = createDebouncer({ windowMs: 1000, clock: createClock('UTC', () => new Date(t)) });
    expect([d.accept('A'), d.accept('B'), d.accept('A'), d.accept('B')]).toEqual([true, true, false, false]);
    t = 1000;
    expect(d.accept('A')).toBe(true);
  });

  it('window 0 disables it; memory stays bounded under a flood', () => {
    const t = 0;
    const off = createDebouncer({ windowMs: 0, clock: createClock('UTC', () => new Date(t)) });
    expect([off.accept('A'), off.accept('A')]).toEqual([true, true]);
    const d = createDebouncer({ windowMs: 60_000, clock: createClock('UTC', () => new Date(t)), maxTracked: 4 });
    for (let i = 0; i < 100; i++) d.accept(`C${i}`);
    expect(d.accept('C0')).toBe(true); // evicted long ago
    expect(d.accept('C99')).toBe(false);
  });
});
