import type { Db } from '../db/open.js';
import { defineQuery } from '../db/query.js';
import type { EventsTable } from '../db/schema.js';

/** Who asked, through which door: carried into every event. */
export interface Actor {
  tenantId: number;
  apiKeyId: number | null;
  keyName: string | null;
  /** The door: 'api' (HTTP), 'lane' (serial gate), 'console'. */
  source: string;
  terminal: string | null;
  operador: string | null;
  /** Why, when the door asks for a reason (a reversal at the console): kept in the event's details. */
  motivo?: string | null;
}

export interface EventInput {
  action: EventsTable['action'];
  mode: 'qr' | 'combo' | 'adicional' | 'pedido';
  code: string;
  result: string;
  qrCode?: string | null;
  numeroPedido?: string | null;
  personId?: number | null;
  additionalId?: number | null;
  details?: Record<string, unknown>;
  /** A movement of the site (src/site/): its id there and, when another box made it, that box and its sequence. */
  site?: { id: string; box: string | null; seq: number | null; withoutSite: boolean };
}

type EventRow = Omit<EventsTable, 'id' | 'site_id' | 'site_box' | 'site_seq' | 'sem_site'> & {
  site_id: string | null;
  site_box: string | null;
  site_seq: number | null;
  sem_site: number;
};

const insertEvent = defineQuery((k, p: EventRow) =>
  k.insertInto('events').values({
    tenant_id: p.tenant_id,
    occurred_at: p.occurred_at,
    action: p.action,
    mode: p.mode,
    code: p.code,
    qr_code: p.qr_code,
    numero_pedido: p.numero_pedido,
    person_id: p.person_id,
    additional_id: p.additional_id,
    result: p.result,
    key_name: p.key_name,
    terminal: p.terminal,
    operador: p.operador,
    source: p.source,
    details: p.details,
    relogio_suspeito: p.relogio_suspeito,
    site_id: p.site_id,
    site_box: p.site_box,
    site_seq: p.site_seq,
    sem_site: p.sem_site,
  }),
);

/**
 * Appends one immutable event, returning its id; must run in the transaction of the change it records. `relogio`: why
 * the clock was suspect when `at` was read (src/clock-check.ts), kept with the event.
 */
export function appendEvent(db: Db, actor: Actor, at: string, e: EventInput, relogio: string | null = null): number {
  const { lastInsertRowid } = insertEvent.run(db, {
    tenant_id: actor.tenantId,
    occurred_at: at,
    action: e.action,
    mode: e.mode,
    code: e.code,
    qr_code: e.qrCode ?? null,
    numero_pedido: e.numeroPedido ?? null,
    person_id: e.personId ?? null,
    additional_id: e.additionalId ?? null,
    result: e.result,
    key_name: actor.keyName,
    terminal: actor.terminal,
    operador: actor.operador,
    source: actor.source,
    details: actor.motivo
      ? JSON.stringify(Object.assign({}, e.details, { motivo: actor.motivo }))
      : e.details
        ? JSON.stringify(e.details)
        : null,
    relogio_suspeito: relogio,
    site_id: e.site?.id ?? null,
    site_box: e.site?.box ?? null,
    site_seq: e.site?.seq ?? null,
    sem_site: e.site?.withoutSite ? 1 : 0,
  });
  return Number(lastInsertRowid);
}
