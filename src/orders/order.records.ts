import type { Selectable } from 'kysely';
import type { Db } from '../db/open.js';
import { defineQuery, inList } from '../db/query.js';
import type { AdditionalsTable, LotsTable, OrdersTable, PeopleTable } from '../db/schema.js';

// The rows an order's payloads are built from (order.payload.ts), loaded for one calling API key.

export type OrderRow = Selectable<OrdersTable>;
export type LotRow = Selectable<LotsTable>;
export type PersonRow = Pick<
  Selectable<PeopleTable>,
  'lot_id' | 'qr_code' | 'nome' | 'dados' | 'checkin_em' | 'checkin_dispositivo' | 'checkin_operador'
> & {
  sincronizado_em: string | null;
};
export type AdditionalRow = Selectable<AdditionalsTable>;

/** One order with everything its payloads are built from, for one calling API key. */
export interface OrderRecord {
  order: OrderRow;
  lots: { lot: LotRow; people: PersonRow[] }[];
  additionals: AdditionalRow[];
}

/** The person columns the payloads read (the others are not fetched: 4+ rows per order, on every check-in). */
const personColumns = [
  'people.lot_id',
  'people.qr_code',
  'people.nome',
  'people.dados',
  'people.checkin_em',
  'people.checkin_dispositivo',
  'people.checkin_operador',
] as const;

/**
 * The four queries of loadOrders, compiled once: for one order (`id = ?`, the check-in path) or for a
 * list of order ids (`ids`, one bound parameter: the listings).
 */
function loadQueries(one: boolean) {
  type P = { id: number; ids: readonly number[]; apiKeyId: number };
  const ofOrder = (p: P) => (one ? p.id : inList(p.ids));
  return {
    orders: defineQuery((k, p: P) =>
      k
        .selectFrom('orders')
        .selectAll()
        .where('id', one ? '=' : 'in', ofOrder(p)),
    ),
    lots: defineQuery((k, p: P) =>
      k
        .selectFrom('lots')
        .selectAll()
        .where('order_id', one ? '=' : 'in', ofOrder(p))
        .orderBy('order_id')
        .orderBy('position'),
    ),
    people: defineQuery((k, p: P) =>
      k
        .selectFrom('people')
        .leftJoin('voucher_marks', (j) =>
          j.onRef('voucher_marks.person_id', '=', 'people.id').on('voucher_marks.api_key_id', '=', p.apiKeyId),
        )
        .select(personColumns)
        .select('voucher_marks.sincronizado_em')
        .where('people.order_id', one ? '=' : 'in', ofOrder(p))
        .orderBy('people.order_id')
        .orderBy('people.lot_id')
        .orderBy('people.position'),
    ),
    additionals: defineQuery((k, p: P) =>
      k
        .selectFrom('additionals')
        .selectAll()
        .where('order_id', one ? '=' : 'in', ofOrder(p))
        .orderBy('order_id')
        .orderBy('position'),
    ),
  };
}
const ofOne = loadQueries(true);
const ofMany = loadQueries(false);

/** Loads orders (in the order of `orderIds`) with their lots, people, per-key marks and additionals. */
export function loadOrders(db: Db, orderIds: readonly number[], apiKeyId: number | null): OrderRecord[] {
  if (orderIds.length === 0) return [];
  const q = orderIds.length === 1 ? ofOne : ofMany;
  const args = { id: orderIds[0]!, ids: orderIds, apiKeyId: apiKeyId ?? -1 };
  const orders = q.orders.all(db, args);
  const lots = q.lots.all(db, args);
  const people = q.people.all(db, args);
  const additionals = q.additionals.all(db, args);

  const byId = new Map<number, OrderRecord>();
  for (const order of orders) byId.set(order.id, { order, lots: [], additionals: [] });
  const lotsById = new Map<number, { lot: LotRow; people: PersonRow[] }>();
  for (const lot of lots) {
    const entry = { lot, people: [] as PersonRow[] };
    lotsById.set(lot.id, entry);
    byId.get(lot.order_id)?.lots.push(entry);
  }
  for (const person of people) lotsById.get(person.lot_id)?.people.push(person);
  for (const a of additionals) byId.get(a.order_id)?.additionals.push(a);
  return orderIds.map((id) => byId.get(id)).filter((r): r is OrderRecord => r !== undefined);
}
