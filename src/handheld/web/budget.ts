// GATE_HANDHELD_TIMEOUT_MS bounds the whole scan, from its input to its result on screen, the device's own decision
// included when the box does not answer. So the box gets the timeout less what the device keeps for deciding and
// writing here: at least KEEP_MS, and twice the slowest of its last RECENT decisions when this device is slower than
// that, but never more than half the timeout (the box always has the other half).
//
// KEEP_MS: at 4× CPU throttling (test/handheld/app-silent-wifi.test.ts) a decision here took 20–280 ms from the
// box's deadline to its result painted, the durable IndexedDB write being most of it and the part that varies.

export const KEEP_MS = 400;
const RECENT = 20;

export function createBudget(timeoutMs: number) {
  const recent: number[] = [];
  const keep = () => Math.min(timeoutMs / 2, Math.max(KEEP_MS, 2 * Math.max(0, ...recent)));
  return {
    /** What the device keeps for its own decision now. */
    keep,
    /** How long the box may take for a scan whose input was `elapsedMs` ago; 0: decide here at once. */
    boxWait: (elapsedMs: number) => Math.max(0, Math.floor(timeoutMs - keep() - elapsedMs)),
    /** A decision made here took `ms`, from the moment the device started on it to its result shown. */
    spent(ms: number) {
      recent.push(ms);
      if (recent.length > RECENT) recent.shift();
    },
  };
}

export type Budget = ReturnType<typeof createBudget>;
