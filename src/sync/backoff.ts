/** Retry timing of the sync worker; the defaults suit a park's internet link, tests shrink them. */
export interface BackoffOptions {
  baseMs: number;
  maxMs: number;
}

export const DEFAULT_BACKOFF: BackoffOptions = { baseMs: 1_000, maxMs: 60_000 };

/**
 * Exponential backoff with jitter: after the n-th consecutive failure (n ≥ 1), a delay drawn from
 * [½, 1] × min(max, base × 2^(n−1)). The jitter keeps boxes that lost the link together from
 * hammering the cloud together when it comes back.
 */
export function backoffDelay(failures: number, opts: BackoffOptions, random: () => number = Math.random): number {
  const n = Math.max(1, failures);
  const ceiling = Math.min(opts.maxMs, opts.baseMs * 2 ** Math.min(n - 1, 30));
  return Math.round(ceiling / 2 + (ceiling / 2) * random());
}
