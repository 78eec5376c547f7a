import type { Kysely } from 'kysely';
import type { Db } from '../db/open.js';
import { defineQuery } from '../db/query.js';
import type { DB } from '../db/schema.js';

// Queries of the check-in and reversal flows; synchronous, run inside the write queue's transaction.
// Each is built with kysely and compiled once (db/query.ts): the hot path only binds.

const personColumns = [
  'people.id',
  'people.order_id',
  'people.lot_id',
  'people.qr_code',
  'people.nome',
  'people.checkin_em',
  'people.estornado_em',
  'people.estorno_dispositivo',
  'people.estorno_operador',
  'lots.tipo_ingresso',
  'lots.data_uso',
  'orders.status',
  'orders.numero_pedido',
] as const;

/** When, where and by whom a row was checked in or reversed (the event's `Actor` says who asked). */
type Stamp = { at: string; terminal: string | null; operador: string | null };

const peopleWithLot = (k: Kysely<DB>) =>
  k
    .selectFrom('people')
    .innerJoin('lots', 'lots.id', 'people.lot_id')
    .innerJoin('orders', 'orders.id', 'people.order_id')
    .select(personColumns);

const q = {
  personByQr: defineQuery((k, p: { tenantId: number; qr: string }) =>
    peopleWithLot(k).where('people.tenant_id', '=', p.tenantId).where('people.qr_code', '=', p.qr),
  ),
  peopleOfOrder: defineQuery((k, p: { orderId: number }) =>
    peopleWithLot(k).where('people.order_id', '=', p.orderId).orderBy('lots.position').orderBy('people.position'),
  ),
  orderByNumero: defineQuery((k, p: { tenantId: number; numero: string }) =>
    k
      .selectFrom('orders')
      .select(['id', 'numero_pedido', 'status'])
      .where('tenant_id', '=', p.tenantId)
      .where('numero_pedido', '=', p.numero),
  ),
  personElsewhere: defineQuery((k, p: { tenantId: number; code: string }) =>
    k.selectFrom('people').select('id').where('qr_code', '=', p.code).where('tenant_id', '!=', p.tenantId).limit(1),
  ),
  additionalElsewhere: defineQuery((k, p: { tenantId: number; code: string }) =>
    k
      .selectFrom('additionals')
      .select('id')
      .where('adicional_qr_code', '=', p.code)
      .where('tenant_id', '!=', p.tenantId)
      .limit(1),
  ),
  additionalByQr: defineQuery((k, p: { tenantId: number; qr: string }) =>
    k
      .selectFrom('additionals')
      .innerJoin('orders', 'orders.id', 'additionals.order_id')
      .select([
        'additionals.id',
        'additionals.order_id',
        'additionals.nome',
        'additionals.quantidade',
        'additionals.adicional_qr_code',
        'orders.status',
        'orders.numero_pedido',
      ])
      .where('additionals.tenant_id', '=', p.tenantId)
      .where('additionals.adicional_qr_code', '=', p.qr),
  ),
  redemptions: defineQuery((k, p: { additionalId: number }) =>
    k.selectFrom('additional_redemptions').selectAll().where('additional_id', '=', p.additionalId).orderBy('id'),
  ),
  redeemUnit: defineQuery((k, p: { additionalId: number } & Stamp) =>
    k.insertInto('additional_redemptions').values({
      additional_id: p.additionalId,
      checkin_em: p.at,
      checkin_dispositivo: p.terminal,
      checkin_operador: p.operador,
      estornado_em: null,
      estorno_dispositivo: null,
      estorno_operador: null,
    }),
  ),
  reverseUnit: defineQuery((k, p: { redemptionId: number } & Stamp) =>
    k
      .updateTable('additional_redemptions')
      .set({ estornado_em: p.at, estorno_dispositivo: p.terminal, estorno_operador: p.operador })
      .where('id', '=', p.redemptionId)
      .where('estornado_em', 'is', null),
  ),
  markCheckedIn: defineQuery((k, p: { personId: number } & Stamp) =>
    k
      .updateTable('people')
      .set({
        checkin_em: p.at,
        checkin_dispositivo: p.terminal,
        checkin_operador: p.operador,
        estornado_em: null,
        estorno_dispositivo: null,
        estorno_operador: null,
      })
      .where('id', '=', p.personId)
      .where('checkin_em', 'is', null),
  ),
  presence: defineQuery((k, p: { tenantId: number; area: string; personId: number }) =>
    k
      .selectFrom('presence')
      .select(['local_date', 'inside'])
      .where('tenant_id', '=', p.tenantId)
      .where('area', '=', p.area)
      .where('person_id', '=', p.personId),
  ),
  enter: defineQuery((k, p: { tenantId: number; area: string; personId: number; today: string; at: string }) =>
    k
      .insertInto('presence')
      .values({
        tenant_id: p.tenantId,
        area: p.area,
        person_id: p.personId,
        local_date: p.today,
        inside: 1,
        since: p.at,
      })
      .onConflict((oc) =>
        oc.columns(['tenant_id', 'area', 'person_id']).doUpdateSet({ local_date: p.today, inside: 1, since: p.at }),
      ),
  ),
  leave: defineQuery((k, p: { tenantId: number; area: string; personId: number; today: string; at: string }) =>
    k
      .updateTable('presence')
      .set({ inside: 0, since: p.at })
      .where('tenant_id', '=', p.tenantId)
      .where('area', '=', p.area)
      .where('person_id', '=', p.personId)
      .where('local_date', '=', p.today)
      .where('inside', '=', 1),
  ),
  leaveAll: defineQuery((k, p: { personId: number; at: string }) =>
    k
      .updateTable('presence')
      .set({ inside: 0, since: p.at })
      .where('person_id', '=', p.personId)
      .where('inside', '=', 1),
  ),
  insideArea: defineQuery((k, p: { tenantId: number; today: string; area: string }) =>
    k
      .selectFrom('presence')
      .select((eb) => eb.fn.countAll<number>().as('inside'))
      .where('tenant_id', '=', p.tenantId)
      .where('local_date', '=', p.today)
      .where('area', '=', p.area)
      .where('inside', '=', 1),
  ),
  occupancy: defineQuery((k, p: { tenantId: number; today: string }) =>
    k
      .selectFrom('presence')
      .select(['area', (eb) => eb.fn.countAll<number>().as('inside')])
      .where('tenant_id', '=', p.tenantId)
      .where('local_date', '=', p.today)
      .where('inside', '=', 1)
      .groupBy('area'),
  ),
  markReversed: defineQuery((k, p: { personId: number; checkinEm: string } & Stamp) =>
    k
      .updateTable('people')
      .set({
        checkin_em: null,
        checkin_dispositivo: null,
        checkin_operador: null,
        estornado_em: p.at,
        estorno_dispositivo: p.terminal,
        estorno_operador: p.operador,
      })
      .where('id', '=', p.personId)
      .where('checkin_em', '=', p.checkinEm),
  ),
};

export function createCheckinRepo(db: Db) {
  return {
    personByQr: (tenantId: number, qr: string) => q.personByQr.get(db, { tenantId, qr }),

    peopleOfOrder: (orderId: number) => q.peopleOfOrder.all(db, { orderId }),

    orderByNumero: (tenantId: number, numero: string) => q.orderByNumero.get(db, { tenantId, numero }),

    /**
     * Whether a ticket's QR (a person's or an additional's) exists under another tenant: reversal
     * answers TENANT_MISMATCH. Order numbers are left out on purpose: they are sequential, so the
     * answer would let a tenant count another's daily orders (docs/api.md).
     */
    existsElsewhere(tenantId: number, code: string): boolean {
      return !!q.personElsewhere.get(db, { tenantId, code }) || !!q.additionalElsewhere.get(db, { tenantId, code });
    },

    additionalByQr: (tenantId: number, qr: string) => q.additionalByQr.get(db, { tenantId, qr }),

    redemptions: (additionalId: number) => q.redemptions.all(db, { additionalId }),

    redeemUnit: (additionalId: number, at: string, terminal: string | null, operador: string | null) =>
      q.redeemUnit.run(db, { additionalId, at, terminal, operador }),

    reverseUnit: (redemptionId: number, at: string, terminal: string | null, operador: string | null) =>
      q.reverseUnit.run(db, { redemptionId, at, terminal, operador }).changes === 1,

    /** The conditional update that makes exactly one of two simultaneous scans win. */
    markCheckedIn: (personId: number, at: string, terminal: string | null, operador: string | null) =>
      q.markCheckedIn.run(db, { personId, at, terminal, operador }).changes === 1,

    markReversed: (personId: number, checkinEm: string, at: string, terminal: string | null, operador: string | null) =>
      q.markReversed.run(db, { personId, checkinEm, at, terminal, operador }).changes === 1,

    /** Where a person stands in an area: the last movement's day and whether it left them inside. */
    presence: (tenantId: number, area: string, personId: number) => q.presence.get(db, { tenantId, area, personId }),
    enter: (tenantId: number, area: string, personId: number, today: string, at: string) =>
      void q.enter.run(db, { tenantId, area, personId, today, at }),
    /** Conditional, like markCheckedIn: of two lanes racing one exit, one leaves. */
    leave: (tenantId: number, area: string, personId: number, today: string, at: string) =>
      q.leave.run(db, { tenantId, area, personId, today, at }).changes === 1,
    /** A reversed check-in ends the person's movements: inside nowhere. */
    leaveAll: (personId: number, at: string) => void q.leaveAll.run(db, { personId, at }),
    /** People inside one area today: one index range, cheap enough for every entry into a limited area. */
    insideArea: (tenantId: number, area: string, today: string) =>
      q.insideArea.get(db, { tenantId, area, today })?.inside ?? 0,
    /** People inside each area today (areas nobody is in are absent). */
    occupancy: (tenantId: number, today: string) => q.occupancy.all(db, { tenantId, today }),
  };
}

export type CheckinRepo = ReturnType<typeof createCheckinRepo>;
export type PersonState = NonNullable<ReturnType<CheckinRepo['personByQr']>>;
