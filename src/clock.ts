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
      // The first minute whose local date is `date`. Where DST starts at midnight (America/Santiago,
      // America/Havana) 00:00 does not exist and the day begins at 01:00. Every zone is within
      // UTC-12..+14, so 15 h before UTC midnight is still the day before and 13 h after is the day.
      const utcMidnight = Date.parse(`${date}T00:00:00Z`);
      let before = Math.floor((utcMidnight - 15 * HOUR_MS) / MINUTE_MS);
      let from = Math.floor((utcMidnight + 13 * HOUR_MS) / MINUTE_MS);
      while (from - before > 1) {
        const mid = Math.floor((before + from) / 2);
        if (fmt.format(mid * MINUTE_MS) < date) before = mid;
        else from = mid;
      }
      return new Date(from * MINUTE_MS);
    },
  };
}

/**
 * The machine's clock, for the parts that only stamp instants or measure intervals (serial links,
 * the OSDP bus, throttles); its dates are UTC's, so nothing tenant-local may ask it for `today()`.
 */
export const systemClock: Clock = createClock('UTC');

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

const MINUTE_MS = 60_000;
const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;

/** A calendar date (YYYY-MM-DD) `days` later (or earlier); plain date arithmetic, no time zone involved. */
export const addDays = (date: string, days: number): string =>
  new Date(Date.parse(`${date}T00:00:00Z`) + days * DAY_MS).toISOString().slice(0, 10);

/** Whole days from one calendar date to another. */
export const daysBetween = (from: string, to: string): number =>
  Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / DAY_MS);
