import type { Kysely } from 'kysely';
import { all, first, run, type Sqlite } from '../db/open.js';
import type { DB } from '../db/schema.js';

// Queries of the check-in and reversal flows; synchronous, run inside the write queue's transaction.

const personColumns = [
  'people.id',
  'people.order_id',
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

export function createCheckinRepo(sqlite: Sqlite, k: Kysely<DB>) {
  const peopleWithLot = () =>
    k.selectFrom('people').innerJoin('lots', 'lots.id', 'people.lot_id').innerJoin('orders', 'orders.id', 'people.order_id').select(personColumns);

  return {
    personByQr: (tenantId: number, qr: string) => first(sqlite, peopleWithLot().where('people.tenant_id', '=', tenantId).where('people.qr_code', '=', qr)),

    peopleOfOrder: (orderId: number) => all(sqlite, peopleWithLot().where('people.order_id', '=', orderId).orderBy('lots.position').orderBy('people.position')),

    orderByNumero: (tenantId: number, numero: string) =>
      first(sqlite, k.selectFrom('orders').select(['id', 'numero_pedido', 'status']).where('tenant_id', '=', tenantId).where('numero_pedido', '=', numero)),

    /** Whether a QR or order number exists under another tenant (reversal answers TENANT_MISMATCH). */
    existsElsewhere(tenantId: number, code: string): boolean {
      const person = first(sqlite, k.selectFrom('people').select('id').where('qr_code', '=', code).where('tenant_id', '!=', tenantId).limit(1));
      if (person) return true;
      const order = first(sqlite, k.selectFrom('orders').select('id').where('numero_pedido', '=', code).where('tenant_id', '!=', tenantId).limit(1));
      if (order) return true;
      return !!first(sqlite, k.selectFrom('additionals').select('id').where('adicional_qr_code', '=', code).where('tenant_id', '!=', tenantId).limit(1));
    },

    additionalByQr: (tenantId: number, qr: string) =>
      first(
        sqlite,
        k.selectFrom('additionals').innerJoin('orders', 'orders.id', 'additionals.order_id')
          .select(['additionals.id', 'additionals.order_id', 'additionals.nome', 'additionals.quantidade', 'additionals.adicional_qr_code', 'orders.status', 'orders.numero_pedido'])
          .where('additionals.tenant_id', '=', tenantId).where('additionals.adicional_qr_code', '=', qr),
      ),

    redemptions: (additionalId: number) =>
      all(sqlite, k.selectFrom('additional_redemptions').selectAll().where('additional_id', '=', additionalId).orderBy('id')),

    redeemUnit: (additionalId: number, at: string, terminal: string | null, operador: string | null) =>
      run(sqlite, k.insertInto('additional_redemptions').values({ additional_id: additionalId, redeemed_at: at, terminal, operador, reversed_at: null, reversal_terminal: null, reversal_operador: null })),

    reverseUnit: (redemptionId: number, at: string, terminal: string | null, operador: string | null) =>
      run(sqlite, k.updateTable('additional_redemptions').set({ reversed_at: at, reversal_terminal: terminal, reversal_operador: operador }).where('id', '=', redemptionId).where('reversed_at', 'is', null)).changes === 1,

    /** The conditional update that makes exactly one of two simultaneous scans win. */
    markCheckedIn: (personId: number, at: string, terminal: string | null, operador: string | null) =>
      run(
        sqlite,
        k.updateTable('people')
          .set({ checkin_em: at, checkin_dispositivo: terminal, checkin_operador: operador, estornado_em: null, estorno_dispositivo: null, estorno_operador: null })
          .where('id', '=', personId).where('checkin_em', 'is', null),
      ).changes === 1,

    markReversed: (personId: number, checkinEm: string, at: string, terminal: string | null, operador: string | null) =>
      run(
        sqlite,
        k.updateTable('people')
          .set({ checkin_em: null, checkin_dispositivo: null, checkin_operador: null, estornado_em: at, estorno_dispositivo: terminal, estorno_operador: operador })
          .where('id', '=', personId).where('checkin_em', '=', checkinEm),
      ).changes === 1,
  };
}

export type CheckinRepo = ReturnType<typeof createCheckinRepo>;
export type PersonState = NonNullable<ReturnType<CheckinRepo['personByQr']>>;
