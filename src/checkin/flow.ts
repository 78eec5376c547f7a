import type { Db } from '../db/open.js';
import type { CheckinRepo } from './checkin.repo.js';
import { appendEvent, type Actor, type EventInput } from './event-log.js';
import type { Refused } from './result.js';
import type { Calendar, Refusal, RefusalCode } from './rules/index.js';

/** What one check-in or reversal flow sees: the same instant and park-local day throughout. */
export interface Flow {
  db: Db;
  repo: CheckinRepo;
  actor: Actor;
  now: string;
  /** Today and the day of an instant in the park's zone: what the rules compare dates with. */
  cal: Calendar;
  /**
   * Why the clock is suspect at `now` (src/clock-check.ts), recorded with every event of the flow; null when it looks
   * right.
   */
  relogio: string | null;
  /** The area an entry leads into: the lane's, or the whole park (PARK_AREA). */
  area: string;
}

/** Appends the flow's event (at the flow's instant), returning its id. */
export const record = (f: Flow, e: EventInput): number => appendEvent(f.db, f.actor, f.now, e, f.relogio);

/** A refusal is recorded in the event log too, then returned. */
export function refuse(
  f: Flow,
  e: Omit<EventInput, 'result' | 'details'>,
  code: RefusalCode,
  details?: Record<string, unknown>,
): Refused {
  record(f, { ...e, result: code, ...(details ? { details } : {}) });
  return details ? { ok: false, code, details } : { ok: false, code };
}

/** A rule's refusal, recorded. */
export const refuseWith = (f: Flow, e: Omit<EventInput, 'result' | 'details'>, r: Refusal): Refused =>
  refuse(f, e, r.code, r.details);
