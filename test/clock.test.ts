import { describe, expect, it } from 'vitest';
import { addDays, createClock } from '../src/clock.js';

// "Today" decides every scan: the start of a local day must be exact in every zone a park may use,
// including those whose DST starts at midnight (the day then begins at 01:00).

const ZONES = [
  'America/Sao_Paulo',
  'America/Manaus',
  'America/Noronha',
  'America/Santiago',
  'America/Havana',
  'America/Asuncion',
  'America/Mexico_City',
  'America/New_York',
  'America/St_Johns',
  'Europe/Lisbon',
  'Africa/Luanda',
  'Asia/Kolkata',
  'Asia/Tehran',
  'Australia/Lord_Howe',
  'Pacific/Chatham',
  'Pacific/Kiritimati',
  'Pacific/Pago_Pago',
];
const MINUTE = 60_000;

describe('clock', () => {
  it.each([
    ['America/Santiago', '2026-09-06', '2026-09-06T04:00:00.000Z'], // DST starts at 00:00: the day begins at 01:00 -03
    ['America/Havana', '2026-03-08', '2026-03-08T05:00:00.000Z'], // likewise, 01:00 -04
    ['America/Sao_Paulo', '2026-11-21', '2026-11-21T03:00:00.000Z'],
    ['Asia/Kolkata', '2026-01-01', '2025-12-31T18:30:00.000Z'],
  ])('startOfLocalDate in %s on %s is %s', (zone, date, start) => {
    expect(createClock(zone).startOfLocalDate(date).toISOString()).toBe(start);
  });

  it('startOfLocalDate is the first minute of that local day, every day of 2026 in every zone', () => {
    const wrong: string[] = [];
    for (const zone of ZONES) {
      const clock = createClock(zone);
      for (let date = '2026-01-01'; date < '2027-01-01'; date = addDays(date, 1)) {
        const start = clock.startOfLocalDate(date).getTime();
        if (
          clock.localDate(new Date(start)) !== date ||
          clock.localDate(new Date(start - MINUTE)) !== addDays(date, -1)
        )
          wrong.push(`${zone} ${date}`);
      }
    }
    expect(wrong).toEqual([]);
  });
});
