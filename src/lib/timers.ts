// Timers as a dependency: every part that waits (scanner lines, lanes, relay drivers, serial links)
// takes them as an argument so tests can drive time by hand.

export interface TimerFns {
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

/** Node's timers: the default everywhere (tests pass their own). */
export const realTimers: TimerFns = {
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (h) => clearTimeout(h as ReturnType<typeof setTimeout>),
};
