import { describe, expect, it } from 'vitest';
import { createBudget, KEEP_MS } from '../../../src/handheld/web/budget.js';

// What the box may take of a scan (docs/handheld.md, "The whole scan within GATE_HANDHELD_TIMEOUT_MS").

describe("the scan's budget", () => {
  it('at the default 800 ms: 400 ms for the box from the input, less what has passed; 0 once it is spent', () => {
    const b = createBudget(800);
    expect(b.keep()).toBe(400);
    expect(b.boxWait(0)).toBe(400);
    expect(b.boxWait(150)).toBe(250);
    expect(b.boxWait(400)).toBe(0);
    expect(b.boxWait(900)).toBe(0);
  });

  it('keeps twice the slowest of the last 20 decisions here when that is more than KEEP_MS, never more than half the timeout', () => {
    const b = createBudget(3000);
    expect(b.keep()).toBe(KEEP_MS);
    b.spent(350);
    expect(b.keep()).toBe(700);
    expect(b.boxWait(0)).toBe(2300);
    for (let i = 0; i < 20; i++) b.spent(100);
    expect(b.keep()).toBe(KEEP_MS);
    b.spent(1400);
    expect(b.keep()).toBe(1500);
  });

  it('a short timeout is shared half and half', () => {
    expect(createBudget(300).boxWait(0)).toBe(150);
  });
});
