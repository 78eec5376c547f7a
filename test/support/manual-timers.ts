import type { TimerFns } from '../../src/lib/timers.js';

interface MovableClock {
  now(): Date;
  advance(ms: number): void;
}

/**
 * Timers that fire only when the test moves time, in the order they are due: a busy machine cannot
 * end a pulse, a debounce or a passage window early or late. With a clock (the test box's), moving
 * time moves that clock along; without one, the timers keep their own time from 0.
 */
export function manualTimers(clock?: MovableClock) {
  let own = 0;
  const now = () => (clock ? clock.now().getTime() : own);
  const due = new Set<{ at: number; fn: () => void }>();
  const timers: TimerFns = {
    setTimeout: (fn, ms) => {
      const t = { at: now() + ms, fn };
      due.add(t);
      return t;
    },
    clearTimeout: (h) => void due.delete(h as { at: number; fn: () => void }),
  };
  return {
    timers,
    pending: () => due.size,
    advance(ms: number) {
      if (clock) clock.advance(ms);
      else own += ms;
      for (const t of [...due].sort((a, b) => a.at - b.at))
        if (t.at <= now()) {
          due.delete(t);
          t.fn();
        }
    },
  };
}
