import type { Clock } from '../clock.js';

export interface RateLimitResult {
  allowed: boolean;
  /** Requests left in the current window after this one. */
  remaining: number;
  /** Whole seconds until the window resets (at least 1 while a window is open). */
  resetSeconds: number;
}

export interface RateLimiter {
  hit(key: string): RateLimitResult;
}

export interface RateLimiterOptions {
  limit: number;
  windowMs: number;
  clock: Clock;
  /** Most keys tracked at once; beyond it expired windows are dropped, then the oldest. */
  maxKeys?: number;
}

/**
 * Fixed window per key, starting at the key's first hit. In memory: a key costs one small entry, and
 * the table never holds more than `maxKeys` entries, so a flood of distinct keys cannot grow it.
 */
export function createRateLimiter({ limit, windowMs, clock, maxKeys = 10_000 }: RateLimiterOptions): RateLimiter {
  const windows = new Map<string, { start: number; count: number }>();

  const makeRoom = (now: number) => {
    for (const [key, w] of windows) if (now - w.start >= windowMs) windows.delete(key);
    // Map order is insertion order, and a key is re-inserted when its window restarts: oldest first.
    for (const key of windows.keys()) {
      if (windows.size < maxKeys) break;
      windows.delete(key);
    }
  };

  return {
    hit(key) {
      const now = clock.now().getTime();
      let w = windows.get(key);
      if (!w || now - w.start >= windowMs) {
        windows.delete(key);
        if (windows.size >= maxKeys) makeRoom(now);
        w = { start: now, count: 0 };
        windows.set(key, w);
      }
      const resetSeconds = Math.max(1, Math.ceil((w.start + windowMs - now) / 1000));
      if (w.count >= limit) return { allowed: false, remaining: 0, resetSeconds };
      w.count += 1;
      return { allowed: true, remaining: limit - w.count, resetSeconds };
    },
  };
}
