/** The one source of "now" and of tenant-local calendar dates; faked in tests. */
export interface Clock {
  now(): Date;
  nowIso(): string;
  /** Today's date (YYYY-MM-DD) in the tenant's time zone. */
  today(): string;
  /** The tenant-local calendar date (YYYY-MM-DD) of an instant. */
  localDate(at: Date | string): string;
  /** The UTC instant at which a tenant-local calendar date begins. */
  startOfLocalDate(date: string): Date;
  readonly timeZone: string;
}

export function createClock(timeZone: string, now: () => Date = () => new Date()): Clock {
  const fmt = new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' });
  // Formatting is the costly part and every check-in asks: one answer per minute is exact, since
  // every zone's offset today is a whole number of minutes.
  let cachedMinute = NaN;
  let cachedDate = '';
  const localDate = (at: Date | string) => {
    const ms = typeof at === 'string' ? Date.parse(at) : at.getTime();
    const minute = Math.floor(ms / 60_000);
    if (minute !== cachedMinute) {
      cachedDate = fmt.format(ms);
      cachedMinute = minute;
    }
    return cachedDate;
  };
  return {
    timeZone,
    now,
    nowIso: () => now().toISOString(),
    today: () => localDate(now()),
    localDate,
    startOfLocalDate(date) {
      // Start from UTC midnight and correct by the zone's offset at that moment (twice, for DST edges).
      const utcMidnight = Date.parse(`${date}T00:00:00Z`);
      let guess = utcMidnight;
      for (let i = 0; i < 2; i++) guess = utcMidnight - offsetMs(timeZone, new Date(guess));
      return new Date(guess);
    },
  };
}

/** A clock whose time only moves when told to: for tests. */
export function createFixedClock(timeZone: string, start: string | Date) {
  let current = new Date(start);
  const clock = createClock(timeZone, () => new Date(current));
  return Object.assign(clock, {
    set(at: string | Date) {
      current = new Date(at);
    },
    advance(ms: number) {
      current = new Date(current.getTime() + ms);
    },
  });
}

function offsetMs(timeZone: string, at: Date): number {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone,
    hourCycle: 'h23',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
  }).formatToParts(at);
  const get = (t: string) => Number(parts.find((p) => p.type === t)?.value);
  const asUtc = Date.UTC(get('year'), get('month') - 1, get('day'), get('hour'), get('minute'), get('second'));
  return asUtc - Math.floor(at.getTime() / 1000) * 1000;
}

const DAY_MS = 86_400_000;

/** A calendar date (YYYY-MM-DD) `days` later (or earlier); plain date arithmetic, no time zone involved. */
export const addDays = (date: string, days: number): string =>
  new Date(Date.parse(`${date}T00:00:00Z`) + days * DAY_MS).toISOString().slice(0, 10);

/** Whole days from one calendar date to another. */
export const daysBetween = (from: string, to: string): number =>
  Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / DAY_MS);
