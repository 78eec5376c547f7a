import type { Db } from '../db/open.js';
import { defineQuery } from '../db/query.js';
import {
  checkinPedidoJson,
  checkinPedidoParts,
  loadOrders,
  type CheckinPedidoParts,
  type PersonState,
} from './order.payload.js';

// The single-QR check-in answer's `pedido` carries the whole order, but a check-in changes only its
// people's state. What the order fixes (its fields, lots, forms, additionals: four queries and most of
// the shaping) is kept per order and revision (orders.revision, new at each write of the order, from
// any connection), so a family's second, third and fourth scans read only their people's state, in
// one query. Bounded: the least recently used order goes first.

const peopleState = defineQuery((k, p: { orderId: number; apiKeyId: number }) =>
  k
    .selectFrom('people')
    .innerJoin('orders', 'orders.id', 'people.order_id')
    .leftJoin('voucher_marks', (j) =>
      j.onRef('voucher_marks.person_id', '=', 'people.id').on('voucher_marks.api_key_id', '=', p.apiKeyId),
    )
    .select([
      'orders.revision',
      'people.lot_id',
      'people.checkin_em',
      'people.checkin_dispositivo',
      'people.checkin_operador',
      'voucher_marks.sincronizado_em',
    ])
    .where('people.order_id', '=', p.orderId)
    .orderBy('people.order_id')
    .orderBy('people.lot_id')
    .orderBy('people.position'),
);

/**
 * A family's scans come within seconds of each other, at one lane or a few: 100 orders cover them.
 * Kept longer, entries outlive the young generation and churn the old one: with 2,000 the box's peak
 * resident memory in `npm run bench` was 14 MB higher (242–245 MB against 229) for no fewer loads.
 */
const MAX_ORDERS = 100;

export interface PedidoCache {
  /** The JSON text of voucherPedido(order, true) for the calling key, as loadOrders would make it now. */
  checkinPedidoJson(db: Db, orderId: number, apiKeyId: number | null): string;
}

export function createPedidoCache(maxOrders = MAX_ORDERS): PedidoCache {
  const orders = new Map<number, { revision: number; parts: CheckinPedidoParts }>();
  return {
    checkinPedidoJson(db, orderId, apiKeyId) {
      const known = orders.get(orderId);
      if (known) {
        const rows = peopleState.all(db, { orderId, apiKeyId: apiKeyId ?? -1 });
        if (rows[0]?.revision === known.revision) {
          orders.delete(orderId);
          orders.set(orderId, known);
          return checkinPedidoJson(known.parts, byLot(known.parts, rows));
        }
      }
      // First scan of the order here, or the order was written since: read it as the listing does.
      const record = loadOrders(db, [orderId], apiKeyId)[0]!;
      const parts = checkinPedidoParts(record);
      orders.delete(orderId);
      orders.set(orderId, { revision: record.order.revision, parts });
      if (orders.size > maxOrders) orders.delete(orders.keys().next().value!);
      return checkinPedidoJson(
        parts,
        record.lots.map((l) => l.people),
      );
    },
  };
}

/** The people's state grouped by the parts' lots, in their order. */
const byLot = (parts: CheckinPedidoParts, rows: (PersonState & { lot_id: number })[]): PersonState[][] =>
  parts.lots.map((lot) => rows.filter((row) => row.lot_id === lot.id));
