import { describe, expect, it } from 'vitest';
import {
  decodeMessage,
  encodeMessage,
  newRun,
  newSiteId,
  signingKey,
  subjectOf,
  type Origin,
} from '../../src/site/site-messages.js';

// A movement's id on the site (docs/site.md, "Applying the other boxes' movements"): the ids one box makes sort in
// the order it made them, so each box's unique index of them grows at one end, and end in random bits, so they
// cannot be guessed.

const origin: Origin = {
  tenant: 'parque',
  box: 'norte',
  boxes: ['norte', 'sul'],
  run: newRun(),
  earlierRuns: new Set(),
  secret: signingKey('senha'),
};

describe('site ids', () => {
  it('sort in the order they were made, all different', () => {
    const ids = Array.from({ length: 2_000 }, () => newSiteId(origin));
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.every((id) => id.startsWith(`norte.${origin.run}`))).toBe(true);
  });

  it('end in random bits, not in anything a reader of the stream could count on', () => {
    const tails = Array.from({ length: 200 }, () => newSiteId(origin).slice(-16));
    // A counter or a clock would leave the high digits alike; each of the tail's 16 hex digits takes many values.
    for (let digit = 0; digit < 16; digit++) expect(new Set(tails.map((t) => t[digit])).size).toBeGreaterThan(3);
  });

  it('are what the other boxes accept in a movement', () => {
    const id = newSiteId(origin);
    const qr = 'ABC123';
    const data = encodeMessage(origin, {
      id,
      action: 'checkin',
      kind: 'person',
      qr,
      code: qr,
      mode: 'qr',
      at: '2026-11-25T13:00:00.000Z',
      area: 'parque',
      terminal: 'norte-1',
      operator: null,
      source: 'lane',
      local: false,
    });
    const read = decodeMessage({ ...origin, box: 'sul' }, subjectOf('parque', 'person', qr), data);
    expect(read).toMatchObject({ ok: true, kind: 'movement', message: { id }, mine: false });
  });
});
