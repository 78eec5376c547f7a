import type { Clock } from '../clock.js';
import type { Db } from '../db/open.js';
import type { ErrorCode } from '../http/errors.js';
import type { CheckinRepo } from './checkin.repo.js';
import { appendEvent, type Actor, type EventInput } from './event-log.js';
import type { Refused } from './result.js';

/** What one check-in or reversal flow sees: the same instant and tenant-local day throughout. */
export interface Flow {
  db: Db;
  repo: CheckinRepo;
  clock: Clock;
  actor: Actor;
  now: string;
  today: string;
  /**
   * Why the clock is suspect at `now` (src/clock-check.ts), recorded with every event of the flow; null when it looks
   * right.
   */
  relogio: string | null;
  /** The area an entry leads into: the lane's, or the whole park (PARK_AREA). */
  area: string;
}

export const record = (f: Flow, e: EventInput) => appendEvent(f.db, f.actor, f.now, e, f.relogio);

/** A refusal is recorded in the event log too, then returned. */
export function refuse(
  f: Flow,
  e: Omit<EventInput, 'result' | 'details'>,
  code: ErrorCode,
  details?: Record<string, unknown>,
): Refused {
  record(f, { ...e, result: code, ...(details ? { details } : {}) });
  return details ? { ok: false, code, details } : { ok: false, code };
}
