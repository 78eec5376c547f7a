import type { Kysely } from 'kysely';
import type { Clock } from '../clock.js';
import type { Sqlite } from '../db/open.js';
import type { DB } from '../db/schema.js';
import type { AppError } from '../http/errors.js';
import { loadOrders, type OrderRecord } from '../orders/order.payload.js';
import type { CheckinRepo } from './checkin.repo.js';
import { appendEvent, type Actor, type EventInput } from './event-log.js';

/** What one check-in or reversal flow sees: the same instant and tenant-local day throughout. */
export interface Flow {
  sqlite: Sqlite;
  k: Kysely<DB>;
  repo: CheckinRepo;
  clock: Clock;
  actor: Actor;
  now: string;
  today: string;
}

export type Outcome = { ok: true; data: Record<string, unknown> } | { ok: false; error: AppError };

export const record = (f: Flow, e: EventInput) => appendEvent(f.sqlite, f.k, f.actor, f.now, e);

/** A refusal is recorded in the event log too, then returned. */
export function refuse(f: Flow, e: Omit<EventInput, 'result' | 'details'>, error: AppError): Outcome {
  record(f, { ...e, result: error.code, ...(error.details ? { details: error.details } : {}) });
  return { ok: false, error };
}

export const loadOrder = (f: Flow, orderId: number): OrderRecord => loadOrders(f.sqlite, f.k, [orderId], f.actor.apiKeyId)[0]!;
