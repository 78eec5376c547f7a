import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createFixedClock } from '../../src/clock.js';
import { createRateLimiter } from '../../src/http/rate-limit.js';
import { createTestBox, TZ, type TestBox } from '../support/box.js';
import { makeCombo, seedCombos, uuid } from './combo-data.js';

describe('createRateLimiter', () => {
  const setup = (maxKeys?: number) => {
    const clock = createFixedClock(TZ, '2026-11-21T13:00:00.000Z');
    return {
      clock,
      limiter: createRateLimiter({ limit: 3, windowMs: 10_000, clock, ...(maxKeys ? { maxKeys } : {}) }),
    };
  };

  it('allows `limit` hits per window, then refuses until the window ends', () => {
    const { clock, limiter } = setup();
    expect([1, 2, 3].map(() => limiter.hit('a'))).toEqual([
      { allowed: true, remaining: 2, resetSeconds: 10 },
      { allowed: true, remaining: 1, resetSeconds: 10 },
      { allowed: true, remaining: 0, resetSeconds: 10 },
    ]);
    clock.advance(2_500);
    expect(limiter.hit('a')).toEqual({ allowed: false, remaining: 0, resetSeconds: 8 });
    clock.advance(7_499);
    expect(limiter.hit('a').allowed).toBe(false);
    clock.advance(1);
    expect(limiter.hit('a')).toEqual({ allowed: true, remaining: 2, resetSeconds: 10 });
  });

  it('counts each key on its own', () => {
    const { limiter } = setup();
    for (let i = 0; i < 3; i++) limiter.hit('a');
    expect(limiter.hit('a').allowed).toBe(false);
    expect(limiter.hit('b')).toMatchObject({ allowed: true, remaining: 2 });
  });

  it('tracks at most maxKeys keys, forgetting the oldest first', () => {
    const { limiter } = setup(2);
    for (let i = 0; i < 3; i++) limiter.hit('a');
    limiter.hit('b');
    expect(limiter.hit('a').allowed).toBe(false);
    limiter.hit('c'); // a third key: 'a', the oldest window, is dropped
    expect(limiter.hit('a')).toMatchObject({ allowed: true, remaining: 2 });
  });
});

describe('combo endpoints rate limit (8: 100 GET per minute per key)', () => {
  let box: TestBox;
  beforeEach(async () => {
    box = await createTestBox();
    seedCombos(box, [makeCombo(1)]);
  });
  afterEach(async () => {
    await box.close();
  });

  const paths = [
    '/api/integration/combos',
    `/v1/integration/combos/${uuid(1)}`,
    '/api/integration/combos/combo-1/availability',
    '/v1/integration/combos/nao-existe',
  ];
  const get = (url: string, key = box.keys.combos) =>
    box.app.inject({ method: 'GET', url, headers: { 'x-integration-key': key } });

  it('refuses the 101st GET within a minute, across endpoints and both path forms, and recovers after the window', async () => {
    const first = await get(paths[0]!);
    expect(first.headers['x-ratelimit-limit']).toBe('100');
    expect(first.headers['x-ratelimit-remaining']).toBe('99');
    expect(first.headers['x-ratelimit-reset']).toBe('60');
    for (let i = 1; i < 100; i++) {
      box.clock.advance(500); // 99 × 0.5 s: still inside the first minute
      const res = await get(paths[i % paths.length]!);
      expect(res.statusCode, `request ${i + 1}`).not.toBe(429);
    }

    const refused = await get(paths[0]!);
    expect(refused.statusCode).toBe(429);
    expect(refused.json()).toMatchObject({
      success: false,
      error: { code: 'RATE_LIMITED', message: expect.any(String) },
    });
    expect(refused.headers['retry-after']).toBe('11');
    expect(refused.headers['x-ratelimit-remaining']).toBe('0');

    // Another key has its own budget.
    expect((await get(paths[0]!, box.keys.all)).statusCode).toBe(200);

    box.clock.advance(10_499);
    expect((await get(paths[1]!)).statusCode).toBe(429);
    box.clock.advance(1);
    const again = await get(paths[1]!);
    expect(again.statusCode).toBe(200);
    expect(again.headers['x-ratelimit-remaining']).toBe('99');
  });

  it('does not spend the budget of a key on requests that fail authentication', async () => {
    for (let i = 0; i < 120; i++)
      await box.app.inject({ method: 'GET', url: paths[0]!, headers: { 'x-integration-key': 'wrong' } });
    const res = await get(paths[0]!);
    expect(res.statusCode).toBe(200);
    expect(res.headers['x-ratelimit-remaining']).toBe('99');
  });

  it('answers 429 with Retry-After over a real socket', async () => {
    const url = await box.app.listen({ port: 0, host: '127.0.0.1' });
    const headers = { 'X-Integration-Key': box.keys.combos };
    for (let i = 0; i < 100; i++) expect((await fetch(`${url}${paths[0]}`, { headers })).status).toBe(200);
    const res = await fetch(`${url}${paths[0]}`, { headers });
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBe('60');
    expect(((await res.json()) as any).error.code).toBe('RATE_LIMITED');
  });
});
