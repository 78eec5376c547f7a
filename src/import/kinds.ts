import type { z } from 'zod';
import { clienteRecordSchema, type ClienteRecord } from '../clients/client.schemas.js';
import { upsertClient } from '../clients/clients.repo.js';
import { availabilitySchema, comboSchema } from '../combos/combo.schemas.js';
import { upsertAvailability, upsertCombo } from '../combos/combos.repo.js';
import type { Db } from '../db/open.js';
import { first } from '../db/query.js';
import { pedidoSchema, type Pedido } from '../orders/order.schemas.js';
import { orderQueries } from '../orders/orders.queries.js';
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
  write(db: Db, tenantId: number, parsed: unknown, nowIso: string): WriteOutcome;
  /**
   * What `write` would report, read from the database without writing (`gate import --dry-run`).
   * Exact for a validated file: it repeats no id, so each record meets the database as it is now.
   */
  predict(db: Db, tenantId: number, parsed: unknown): WriteOutcome;
}

function handler<T, R>(
  schema: z.ZodType<T, unknown>,
  upsert: (db: Db, tenantId: number, record: T, nowIso: string) => R,
  outcome: (result: R) => WriteOutcome,
  predict: (db: Db, tenantId: number, record: T) => WriteOutcome,
): KindHandler {
  return {
    parse: (value) => schema.safeParse(value),
    write: (db, tenantId, parsed, nowIso) => outcome(upsert(db, tenantId, parsed as T, nowIso)),
    predict: (db, tenantId, parsed) => predict(db, tenantId, parsed as T),
  };
}

function predictOrder(db: Db, tenantId: number, p: Pedido): WriteOutcome {
  const existing = orderQueries.order.get(db, { tenantId, numero: p.numero_pedido });
  return { created: !existing, statusChanged: existing !== undefined && existing.status !== p.status };
}

export const handlers: Record<Kind, KindHandler> = {
  pedidos: handler(
    pedidoSchema,
    upsertOrder,
    (r) => ({ created: r.created, statusChanged: r.statusChanged }),
    predictOrder,
  ),
  combos: handler(
    comboSchema,
    upsertCombo,
    (r) => ({ created: r.created }),
    (db, tenantId, c) => ({
      created: !first(
        db,
        db.kysely.selectFrom('combos').select('id').where('tenant_id', '=', tenantId).where('combo_id', '=', c.id),
      ),
    }),
  ),
  // Availability replaces the dates it carries: it is counted in dates, not as created or updated.
  disponibilidade: handler(
    availabilitySchema,
    upsertAvailability,
    (r) => ({ created: false, dates: r.dates }),
    (_db, _t, a) => ({ created: false, dates: a.dates.length }),
  ),
  clientes: handler(
    clienteRecordSchema,
    upsertClient,
    (r) => ({ created: r.created }),
    (db, tenantId, c) => ({
      created: !first(
        db,
        db.kysely.selectFrom('clients').select('id').where('tenant_id', '=', tenantId).where('cliente_id', '=', c.id),
      ),
    }),
  ),
};

/** The cloud id of a parsed client record. */
export const clientId = (parsed: unknown): string => (parsed as ClienteRecord).id;
