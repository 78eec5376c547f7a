import type { Writable } from 'node:stream';
import { systemClock, type Clock } from '../clock.js';

export interface Progress {
  update(bytes: number, records: number): void;
  finish(bytes: number, records: number): void;
}

export const silentProgress: Progress = { update() {}, finish() {} };

const numberFmt = new Intl.NumberFormat('pt-BR');
const decimalFmt = new Intl.NumberFormat('pt-BR', { minimumFractionDigits: 1, maximumFractionDigits: 1 });
export const formatCount = (n: number) => numberFmt.format(n);
export const formatMb = (bytes: number) => decimalFmt.format(bytes / (1024 * 1024));
export const formatSeconds = (ms: number) => decimalFmt.format(ms / 1000);

const WIDTH = 24;
const INTERVAL_MS = 100;

/**
 * A progress bar redrawn in place on a terminal, at most ten times a second. Off a terminal it draws
 * nothing: the caller prints one summary line at the end instead.
 */
export function createProgressBar(
  out: Writable,
  label: string,
  totalBytes: number,
  clock: Clock = systemClock,
): Progress {
  const now = () => clock.now().getTime();
  const started = now();
  let last = -Infinity;
  const draw = (bytes: number, records: number) => {
    const ratio = totalBytes > 0 ? Math.min(1, bytes / totalBytes) : 1;
    const filled = Math.round(ratio * WIDTH);
    const elapsed = Math.max(1, now() - started);
    const rate = Math.round((records * 1000) / elapsed);
    const bar = '█'.repeat(filled) + '░'.repeat(WIDTH - filled);
    const pct = `${Math.floor(ratio * 100)}%`.padStart(4);
    out.write(
      `\r\x1b[2K${label} ${bar} ${pct} ${formatMb(bytes)}/${formatMb(totalBytes)} MB · ${formatCount(records)} registros · ${formatCount(rate)}/s`,
    );
  };
  return {
    update(bytes, records) {
      const t = now();
      if (t - last < INTERVAL_MS) return;
      last = t;
      draw(bytes, records);
    },
    finish(bytes, records) {
      draw(bytes, records);
      out.write('\n');
    },
  };
}
