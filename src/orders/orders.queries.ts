import { sql, type Selectable } from 'kysely';
import { defineQuery } from '../db/query.js';
import type { AdditionalsTable, LotsTable, OrdersTable, PeopleTable } from '../db/schema.js';

// The statements of upsertOrder (orders.repo.ts) and of the import's checks, built with kysely and
// compiled once: the sync worker stores whole pages of orders per transaction, and the gate waits
// while it does.

type OrderColumns = Omit<Selectable<OrdersTable>, 'id' | 'tenant_id' | 'numero_pedido' | 'created_at'>;
type LotColumns = Pick<
  Selectable<LotsTable>,
  'position' | 'categoria' | 'nome_ingresso' | 'nome_lote' | 'tipo_ingresso' | 'valor_unitario'
>;
type PersonColumns = Pick<Selectable<PeopleTable>, 'lot_id' | 'position' | 'nome' | 'dados'>;
type AdditionalColumns = Omit<Selectable<AdditionalsTable>, 'id' | 'tenant_id' | 'order_id'>;

// The columns an upsert writes, once for its UPDATE and its INSERT (arguments of defineQuery's `p`).
const orderColumns = (p: OrderColumns) => ({
  status: p.status,
  pago_em: p.pago_em,
  origem: p.origem,
  cupom: p.cupom,
  cliente: p.cliente,
  total_bruto: p.total_bruto,
  desconto_promocao: p.desconto_promocao,
  desconto_pagamento: p.desconto_pagamento,
  acrescimo_pagamento: p.acrescimo_pagamento,
  valor_estornado: p.valor_estornado,
  updated_at: p.updated_at,
  revision: p.revision,
});
const lotColumns = (p: LotColumns) => ({
  position: p.position,
  categoria: p.categoria,
  nome_ingresso: p.nome_ingresso,
  nome_lote: p.nome_lote,
  tipo_ingresso: p.tipo_ingresso,
  valor_unitario: p.valor_unitario,
});
const additionalColumns = (p: AdditionalColumns) => ({
  position: p.position,
  adicional_id: p.adicional_id,
  nome: p.nome,
  quantidade: p.quantidade,
  preco_unitario: p.preco_unitario,
  subtotal: p.subtotal,
  pessoa_ingresso_id: p.pessoa_ingresso_id,
  combo_id: p.combo_id,
  combo_item_id: p.combo_item_id,
  is_brinde: p.is_brinde,
  codigo_integracao: p.codigo_integracao,
  adicional_qr_code: p.adicional_qr_code,
});

export const orderQueries = {
  order: defineQuery((k, p: { tenantId: number; numero: string }) =>
    k
      .selectFrom('orders')
      .select(['id', 'status'])
      .where('tenant_id', '=', p.tenantId)
      .where('numero_pedido', '=', p.numero),
  ),
  updateOrder: defineQuery((k, p: OrderColumns & { id: number }) =>
    k.updateTable('orders').set(orderColumns(p)).where('id', '=', p.id),
  ),
  insertOrder: defineQuery((k, p: OrderColumns & { tenant_id: number; numero_pedido: string; created_at: string }) =>
    k
      .insertInto('orders')
      .values(
        Object.assign(
          { tenant_id: p.tenant_id, numero_pedido: p.numero_pedido, created_at: p.created_at },
          orderColumns(p),
        ),
      ),
  ),
  lots: defineQuery((k, p: { orderId: number }) =>
    k.selectFrom('lots').select(['id', 'ingresso_id', 'lote_mestre_id', 'data_uso']).where('order_id', '=', p.orderId),
  ),
  people: defineQuery((k, p: { orderId: number }) =>
    k.selectFrom('people').select(['id', 'qr_code', 'checkin_em', 'estornado_em']).where('order_id', '=', p.orderId),
  ),
  updateLot: defineQuery((k, p: LotColumns & { id: number }) =>
    k.updateTable('lots').set(lotColumns(p)).where('id', '=', p.id),
  ),
  insertLot: defineQuery(
    (k, p: LotColumns & { order_id: number; ingresso_id: string; lote_mestre_id: string; data_uso: string }) =>
      k.insertInto('lots').values(
        Object.assign(
          {
            order_id: p.order_id,
            ingresso_id: p.ingresso_id,
            lote_mestre_id: p.lote_mestre_id,
            data_uso: p.data_uso,
          },
          lotColumns(p),
        ),
      ),
  ),
  updatePerson: defineQuery((k, p: PersonColumns & { id: number }) =>
    k
      .updateTable('people')
      .set({ lot_id: p.lot_id, position: p.position, nome: p.nome, dados: p.dados })
      .where('id', '=', p.id),
  ),
  // The cloud's "lot checked in" does not undo a reversal made here after that check-in, nor one
  // still waiting in the outbox to reach the cloud: the person would be refused on re-entry.
  cloudCheckin: defineQuery((k, p: { id: number; at: string }) =>
    k
      .updateTable('people')
      .set({ checkin_em: p.at })
      .where('id', '=', p.id)
      .where('checkin_em', 'is', null)
      .where(
        sql<boolean>`not (estornado_em is not null and (${p.at} <= estornado_em or exists (select 1 from sync_push s where s.tenant_id = people.tenant_id and s.chave = people.qr_code and s.status = 'pendente')))`,
      ),
  ),
  personClash: defineQuery((k, p: { tenantId: number; qr: string }) =>
    k
      .selectFrom('people')
      .innerJoin('orders', 'orders.id', 'people.order_id')
      .select('orders.numero_pedido')
      .where('people.tenant_id', '=', p.tenantId)
      .where('people.qr_code', '=', p.qr),
  ),
  insertPerson: defineQuery(
    (k, p: PersonColumns & { tenant_id: number; order_id: number; qr_code: string; checkin_em: string | null }) =>
      k.insertInto('people').values({
        tenant_id: p.tenant_id,
        order_id: p.order_id,
        qr_code: p.qr_code,
        checkin_em: p.checkin_em,
        lot_id: p.lot_id,
        position: p.position,
        nome: p.nome,
        dados: p.dados,
      }),
  ),
  deletePerson: defineQuery((k, p: { id: number }) => k.deleteFrom('people').where('id', '=', p.id)),
  deleteLot: defineQuery((k, p: { id: number }) => k.deleteFrom('lots').where('id', '=', p.id)),
  additionals: defineQuery((k, p: { orderId: number }) =>
    k.selectFrom('additionals').select(['id', 'position']).where('order_id', '=', p.orderId).orderBy('position'),
  ),
  additionalClash: defineQuery((k, p: { tenantId: number; qr: string }) =>
    k
      .selectFrom('additionals')
      .innerJoin('orders', 'orders.id', 'additionals.order_id')
      .select(['orders.numero_pedido', 'additionals.order_id'])
      .where('additionals.tenant_id', '=', p.tenantId)
      .where('additionals.adicional_qr_code', '=', p.qr),
  ),
  updateAdditional: defineQuery((k, p: AdditionalColumns & { id: number }) =>
    k.updateTable('additionals').set(additionalColumns(p)).where('id', '=', p.id),
  ),
  insertAdditional: defineQuery((k, p: AdditionalColumns & { tenant_id: number; order_id: number }) =>
    k
      .insertInto('additionals')
      .values(Object.assign({ tenant_id: p.tenant_id, order_id: p.order_id }, additionalColumns(p))),
  ),
  deleteAdditional: defineQuery((k, p: { id: number }) => k.deleteFrom('additionals').where('id', '=', p.id)),
  unmarkOrder: defineQuery((k, p: { orderId: number }) =>
    k
      .deleteFrom('voucher_marks')
      .where('person_id', 'in', k.selectFrom('people').select('id').where('order_id', '=', p.orderId)),
  ),
};
