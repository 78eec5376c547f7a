// "Today" and "the day of an instant" in the park's time zone, given to the rules as facts: the box
// reads them from its Clock (src/clock.ts), a handheld from its own; the rules never read a clock.

export interface Calendar {
  /** The park-local date (YYYY-MM-DD) the decision is made on. */
  today: string;
  /** The park-local date of an instant (UTC ISO). */
  dayOf(instant: string): string;
}

export const isToday = (cal: Calendar, instant: string | null): boolean =>
  instant !== null && cal.dayOf(instant) === cal.today;
