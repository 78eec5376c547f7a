import { describe, expect, it } from 'vitest';
import { createClock } from '../../src/clock.js';
import { createProgressBar } from '../../src/import/progress.js';
import { planReads } from '../../src/import/write.js';
import { Capture } from '../cli/run.js';

describe('progress bar', () => {
  it('redraws in place at most ten times a second and ends the line when done', () => {
    let now = 0;
    const out = new Capture();
    const bar = createProgressBar(
      out,
      'gravando',
      10 * 1024 * 1024,
      createClock('UTC', () => new Date(now)),
    );
    for (let i = 1; i <= 2000; i++) {
      now = i; // one update per millisecond for two seconds
      bar.update(i * 5000, i);
    }
    bar.finish(10 * 1024 * 1024, 2000);

    const frames = out.text.split('\r\x1b[2K').filter(Boolean);
    expect(frames.length).toBeGreaterThanOrEqual(20);
    expect(frames.length).toBeLessThanOrEqual(22);
    expect(frames.at(-1)).toBe(`gravando ${'█'.repeat(24)} 100% 10,0/10,0 MB · 2.000 registros · 1.000/s\n`);
    expect(frames.slice(0, -1).every((f) => !f.includes('\n'))).toBe(true);
  });
});

describe('reading plan of the writing pass', () => {
  it('reads once when the combos come before their availability, twice otherwise', () => {
    expect(planReads(['combos', 'disponibilidade', 'pedidos'])).toEqual([undefined]);
    expect(planReads(['pedidos', 'clientes'])).toEqual([undefined]);
    const [first, second] = planReads(['disponibilidade', 'pedidos', 'combos']);
    expect([...first!]).toEqual(['combos']);
    expect([...second!].sort()).toEqual(['clientes', 'disponibilidade', 'pedidos']);
  });
});
