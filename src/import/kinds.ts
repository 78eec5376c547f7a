import type { Kysely } from 'kysely';
import type { z } from 'zod';
import { clienteRecordSchema, type ClienteRecord } from '../clients/client.schemas.js';
import { upsertClient } from '../clients/clients.repo.js';
import { availabilitySchema, comboSchema } from '../combos/combo.schemas.js';
import { upsertAvailability, upsertCombo } from '../combos/combos.repo.js';
import type { Sqlite } from '../db/open.js';
import type { DB } from '../db/schema.js';
import { pedidoSchema } from '../orders/order.schemas.js';
import { upsertOrder } from '../orders/orders.repo.js';
import type { Kind } from './records.js';

export interface WriteOutcome {
  created: boolean;
  statusChanged?: boolean;
  /** Availability: how many dates were replaced. */
  dates?: number;
}

/** How one list of the import file is read and stored: the same schema and upsert as the sync worker. */
export interface KindHandler {
  parse(value: unknown): z.ZodSafeParseResult<unknown>;
  write(sqlite: Sqlite, k: Kysely<DB>, tenantId: number, parsed: unknown, nowIso: string): WriteOutcome;
}

function handler<T, R>(
  schema: z.ZodType<T, any>,
  upsert: (sqlite: Sqlite, k: Kysely<DB>, tenantId: number, record: T, nowIso: string) => R,
  outcome: (result: R) => WriteOutcome,
): KindHandler {
  return {
    parse: (value) => schema.safeParse(value),
    write: (sqlite, k, tenantId, parsed, nowIso) => outcome(upsert(sqlite, k, tenantId, parsed as T, nowIso)),
  };
}

export const handlers: Record<Kind, KindHandler> = {
  pedidos: handler(pedidoSchema, upsertOrder, (r) => ({ created: r.created, statusChanged: r.statusChanged })),
  combos: handler(comboSchema, upsertCombo, (r) => ({ created: r.created })),
  // Availability replaces the dates it carries: it is counted in dates, not as created or updated.
  disponibilidade: handler(availabilitySchema, upsertAvailability, (r) => ({ created: false, dates: r.dates })),
  clientes: handler(clienteRecordSchema, upsertClient, (r) => ({ created: r.created })),
};

/** The cloud id of a parsed client record. */
export const clientId = (parsed: unknown): string => (parsed as ClienteRecord).id;
