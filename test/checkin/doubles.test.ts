import { describe, expect, it } from 'vitest';
import { doubleEntries, type TicketMove } from '../../src/checkin/rules/index.js';

// The site's double entries are judged on a ticket's history in the order things happened: every box finds the same
// pairs whatever order it learned the entries in.

const at = (s: number) => new Date(Date.UTC(2026, 11, 7, 15, 0, s)).toISOString();
const move = (id: number, action: TicketMove['action'], s: number, siteId: string, undoes: string | null = null) => ({
  id,
  action,
  at: at(s),
  siteId,
  undoes,
});

/** Every order of the same history. */
function permutations<T>(xs: T[]): T[][] {
  if (xs.length <= 1) return [xs];
  return xs.flatMap((x, i) => permutations([...xs.slice(0, i), ...xs.slice(i + 1)]).map((rest) => [x, ...rest]));
}

describe('double entries on the site', () => {
  it('a ticket let in at two boxes is one double, the later entry against the one that stood, in any arrival order', () => {
    const history = [move(1, 'checkin', 10, 'norte.a'), move(2, 'checkin', 12, 'sul.b')];
    for (const arrived of permutations(history)) expect(doubleEntries(arrived)).toEqual([[2, 1]]);
  });

  it('a reversal between the two entries makes the second a plain entry, even when it arrives last', () => {
    const history = [
      move(1, 'checkin', 10, 'norte.a'),
      move(2, 'estorno', 11, 'norte.c'),
      move(3, 'checkin', 12, 'sul.b'),
    ];
    for (const arrived of permutations(history)) expect(doubleEntries(arrived)).toEqual([]);
  });

  it('a reversal after both entries does not undo the double', () => {
    const history = [move(1, 'checkin', 10, 'norte.a'), move(2, 'checkin', 12, 'sul.b'), move(3, 'estorno', 13, 'x.c')];
    for (const arrived of permutations(history)) expect(doubleEntries(arrived)).toEqual([[2, 1]]);
  });

  it('three entries without a reversal are two doubles against the first', () => {
    const history = [
      move(1, 'checkin', 12, 'leste.c'),
      move(2, 'checkin', 10, 'norte.a'),
      move(3, 'checkin', 11, 'sul.b'),
    ];
    expect(doubleEntries(history)).toEqual([
      [3, 2],
      [1, 2],
    ]);
  });

  it('a claim undone by its compensation let nobody in: the next entry is no double', () => {
    // The compensation carries its claim's instant.
    const history = [
      move(1, 'checkin', 10, 'norte.orphan'),
      move(2, 'estorno', 10, 'norte.u1', 'norte.orphan'),
      move(3, 'checkin', 11, 'sul.b'),
    ];
    for (const arrived of permutations(history)) expect(doubleEntries(arrived)).toEqual([]);
  });

  it('one entry, or entries at one instant, are judged alike everywhere (ties by site id)', () => {
    expect(doubleEntries([move(7, 'checkin', 10, 'sul.b')])).toEqual([]);
    const tie = [move(1, 'checkin', 10, 'sul.b'), move(2, 'checkin', 10, 'norte.a')];
    for (const arrived of permutations(tie)) expect(doubleEntries(arrived)).toEqual([[1, 2]]);
  });
});
