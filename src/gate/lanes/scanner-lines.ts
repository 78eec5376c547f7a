// Scanner byte stream → scanned codes, and the per-lane debouncer. Pure: no serial port, timers
// and clock are injected so tests are deterministic. See docs/lanes.md ("Leitores").

import type { Clock } from '../../clock.js';
import { realTimers, type TimerFns } from '../../lib/timers.js';
import type { ScanRejectReason } from '../relays/relay.js';

export type ScannerSuffix = 'cr' | 'lf' | 'crlf' | 'none';

export const DEFAULT_MAX_CODE_LENGTH = 256;

export interface ScannerLineOptions {
  suffix: ScannerSuffix;
  /**
   * Suffix 'none': silence this long ends a code. Line modes: silence this long discards a partial
   * line, so half a scan never prefixes the next one. 0 disables the timer (line modes only).
   */
  interByteTimeoutMs: number;
  stripAimId?: boolean;
  maxLength?: number;
  timers?: TimerFns;
  onCode(code: string): void;
  onReject?(reason: ScanRejectReason, sample: string): void;
}

export interface ScannerLineSplitter {
  push(chunk: Uint8Array | string): void;
  /** Port closed: drop whatever is buffered, cancel the timer. */
  reset(): void;
}

const CR = 0x0d;
const LF = 0x0a;
const AIM_ID = /^\][A-Za-z][0-9A-Za-z]/;
const SAMPLE = 32;

/** `]Q1ABC` → `ABC`: the AIM symbology identifier some scanners prepend (ISO/IEC 15424). */
export function stripAimPrefix(code: string): string {
  return AIM_ID.test(code) ? code.slice(3) : code;
}

/**
 * CR and LF both end a code whatever suffix is configured, and empty lines are skipped: a CRLF
 * (even split across reads) yields one code, and a scanner set to another suffix still works.
 * Codes are printable ASCII (0x20..0x7E); any other byte taints the whole code, which is rejected
 * rather than repaired, because dropping a byte could turn garbage into someone else's valid code.
 * The buffer never holds more than maxLength bytes; a longer run is rejected as too_long.
 */
export function createScannerLineSplitter(opts: ScannerLineOptions): ScannerLineSplitter {
  const maxLength = opts.maxLength ?? DEFAULT_MAX_CODE_LENGTH;
  const timers = opts.timers ?? realTimers;
  const timeoutEndsCode = opts.suffix === 'none';
  if (timeoutEndsCode && !(opts.interByteTimeoutMs > 0))
    throw new RangeError('suffix none needs interByteTimeoutMs > 0');
  let buf: number[] = [];
  let overflow = false;
  let tainted = false;
  let timer: unknown;

  const sample = () => String.fromCharCode(...buf.slice(0, SAMPLE).map((b) => (b >= 0x20 && b <= 0x7e ? b : 0x3f)));

  function clear(): void {
    buf = [];
    overflow = false;
    tainted = false;
  }

  function stopTimer(): void {
    if (timer !== undefined) timers.clearTimeout(timer);
    timer = undefined;
  }

  function end(): void {
    if (buf.length === 0 && !overflow) return clear();
    if (overflow) opts.onReject?.('too_long', sample());
    else if (tainted) opts.onReject?.('non_printable', sample());
    else {
      const raw = String.fromCharCode(...buf);
      const code = (opts.stripAimId ? stripAimPrefix(raw) : raw).trim();
      if (code !== '') opts.onCode(code);
    }
    clear();
  }

  function onSilence(): void {
    timer = undefined;
    if (timeoutEndsCode) return end();
    if (buf.length > 0 || overflow) opts.onReject?.('stale', sample());
    clear();
  }

  function push(chunk: Uint8Array | string): void {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk, 'latin1') : chunk;
    for (const b of bytes) {
      if (b === CR || b === LF) {
        end();
        continue;
      }
      if (b < 0x20 || b > 0x7e) tainted = true;
      if (buf.length >= maxLength) overflow = true;
      else buf.push(b);
    }
    stopTimer();
    if ((buf.length > 0 || overflow) && opts.interByteTimeoutMs > 0)
      timer = timers.setTimeout(onSilence, opts.interByteTimeoutMs);
  }

  return {
    push,
    reset() {
      stopTimer();
      clear();
    },
  };
}

export interface Debouncer {
  /** True when the code should be processed; false when it repeats within the window. */
  accept(code: string): boolean;
}

/**
 * The window slides from the last time a code was *seen*, not accepted: a QR held in front of a
 * scanner that re-reads it continuously fires once, not once per window.
 */
export function createDebouncer({
  windowMs,
  clock,
  maxTracked = 64,
}: {
  windowMs: number;
  clock: Clock;
  maxTracked?: number;
}): Debouncer {
  const lastSeen = new Map<string, number>();
  return {
    accept(code) {
      const t = clock.now().getTime();
      for (const [c, at] of lastSeen) if (t - at >= windowMs) lastSeen.delete(c);
      const repeat = lastSeen.has(code);
      lastSeen.delete(code);
      lastSeen.set(code, t);
      // Map order is insertion order: the oldest entries go first when a flood of codes arrives.
      while (lastSeen.size > maxTracked) lastSeen.delete(lastSeen.keys().next().value!);
      return windowMs <= 0 || !repeat;
    },
  };
}
