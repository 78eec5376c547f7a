import { sql } from 'kysely';
import type { Db } from '../db/open.js';
import { all, inList, run } from '../db/query.js';

export interface VoucherFilters {
  tenantId: number;
  apiKeyId: number;
  numero_pedido?: string | undefined;
  sincronizado?: boolean | undefined;
  data_uso?: string | undefined;
  checkin_realizado?: boolean | undefined;
  limit: number;
  offset: number;
  order_by: 'pago_em' | 'created_at';
  order: 'asc' | 'desc';
}

/**
 * Ids of the orders of one page, in listing order. An order is synchronised when every voucher is marked for the key.
 */
export function findOrderIds(db: Db, f: VoucherFilters): number[] {
  const k = db.kysely;
  let q = k.selectFrom('orders as o').select('o.id').where('o.tenant_id', '=', f.tenantId);
  if (f.numero_pedido !== undefined) q = q.where('o.numero_pedido', '=', f.numero_pedido);
  if (f.data_uso !== undefined)
    q = q.where(({ exists, selectFrom }) =>
      exists(
        selectFrom('lots as l')
          .select('l.id')
          .whereRef('l.order_id', '=', 'o.id')
          .where('l.data_uso', '=', f.data_uso!),
      ),
    );
  if (f.sincronizado !== undefined) {
    const unmarked = sql<boolean>`exists (select 1 from people p where p.order_id = o.id and not exists (select 1 from voucher_marks m where m.api_key_id = ${f.apiKeyId} and m.person_id = p.id))`;
    q = q.where(f.sincronizado ? sql<boolean>`not ${unmarked}` : unmarked);
  }
  if (f.checkin_realizado !== undefined) {
    const pending = sql<boolean>`exists (select 1 from people p where p.order_id = o.id and p.checkin_em is null)`;
    q = q.where(
      f.checkin_realizado
        ? sql<boolean>`exists (select 1 from people p where p.order_id = o.id) and not ${pending}`
        : pending,
    );
  }
  q = q.orderBy(`o.${f.order_by}`, f.order).orderBy('o.id', f.order).limit(f.limit).offset(f.offset);
  return all(db, q).map((r) => r.id);
}

/** Marks every voucher of these orders for the key; the first marking time is kept. */
export function markVouchers(db: Db, apiKeyId: number, orderIds: readonly number[], nowIso: string): void {
  if (orderIds.length === 0) return;
  const k = db.kysely;
  run(
    db,
    k
      .insertInto('voucher_marks')
      .orIgnore()
      .columns(['api_key_id', 'person_id', 'sincronizado_em'])
      .expression(
        k
          .selectFrom('people')
          .select([sql<number>`${apiKeyId}`.as('k'), 'id', sql<string>`${nowIso}`.as('at')])
          .where('order_id', 'in', inList(orderIds)),
      ),
  );
}
