import type { Db } from '../db/open.js';
import { toCents } from './money.js';
import type { Pedido } from './order.schemas.js';
import { orderQueries as q } from './orders.queries.js';

export class OrderConflictError extends Error {
  constructor(
    message: string,
    readonly path: (string | number)[],
  ) {
    super(message);
  }
}

/** The person's name for responses: the first form label that reads as a name. */
export function personName(dados: Record<string, string>): string {
  const key = Object.keys(dados).find((k) => /^nome\b/i.test(k.trim()));
  return key ? dados[key]! : '';
}

/** Form values as strings, empty ones omitted (2.6 rule 1). */
export function cleanDados(person: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(person)) {
    if (k === 'qr_code' || v === null || v === undefined) continue;
    const s = String(v).trim();
    if (s !== '') out[k] = s;
  }
  return out;
}

const lotKey = (l: { ingresso_id: string; lote_mestre_id: string; data_uso: string }) =>
  `${l.ingresso_id}|${l.lote_mestre_id}|${l.data_uso}`;

export interface UpsertResult {
  orderId: number;
  created: boolean;
  statusChanged: boolean;
}

// Statement arguments are completed with Object.assign, not `{ ...columns, id }`: on Node 20 an
// object spread followed by more properties costs 10–40 times as much, and its objects outlive the
// young generation (measured during the sync ingest: 2.7 MB promoted at every scavenge, 3–8 ms
// pauses; none with Object.assign). docs/performance.md.

/**
 * Inserts or updates one order, keyed by (tenant, numero_pedido), keeping the local check-in state of
 * people that stay (matched by qr_code). A status change unsynchronises the order for every API key
 * (3.1). Must run inside a transaction.
 */
/** 48 random bits: a stale revision matching a new one is not a concern. */
const newRevision = () => Math.floor(Math.random() * 2 ** 48);

export function upsertOrder(db: Db, tenantId: number, p: Pedido, nowIso: string): UpsertResult {
  const existing = q.order.get(db, { tenantId, numero: p.numero_pedido });
  const v = p.pagamento.valores;
  const columns = {
    status: p.status,
    pago_em: p.pago_em,
    origem: p.origem,
    cupom: p.cupom ? JSON.stringify(p.cupom) : null,
    cliente: JSON.stringify(p.cliente),
    total_bruto: toCents(v.total_bruto),
    desconto_promocao: v.desconto_promocao ? JSON.stringify(v.desconto_promocao) : null,
    desconto_pagamento: v.desconto_pagamento ? JSON.stringify(v.desconto_pagamento) : null,
    acrescimo_pagamento: v.acrescimo_pagamento ? JSON.stringify(v.acrescimo_pagamento) : null,
    valor_estornado: toCents(v.valor_estornado),
    updated_at: nowIso,
    // A new revision on every write: the check-in answer's memory of this order is stale from now on.
    revision: newRevision(),
  };

  let orderId: number;
  let statusChanged = false;
  if (existing) {
    orderId = existing.id;
    statusChanged = existing.status !== p.status;
    q.updateOrder.run(db, Object.assign(columns, { id: orderId }));
  } else {
    orderId = Number(
      q.insertOrder.run(
        db,
        Object.assign(columns, {
          tenant_id: tenantId,
          numero_pedido: p.numero_pedido,
          created_at: p.created_at ?? nowIso,
        }),
      ).lastInsertRowid,
    );
  }

  // A new order has no lots, people or additionals yet: nothing to match against.
  syncLotsAndPeople(db, tenantId, orderId, p, !existing);
  syncAdditionals(db, tenantId, orderId, p, !existing);
  if (statusChanged) q.unmarkOrder.run(db, { orderId });
  return { orderId, created: !existing, statusChanged };
}

function syncLotsAndPeople(db: Db, tenantId: number, orderId: number, p: Pedido, isNew: boolean) {
  const lots = new Map(isNew ? [] : q.lots.all(db, { orderId }).map((l) => [lotKey(l), l.id]));
  const people = new Map(isNew ? [] : q.people.all(db, { orderId }).map((r) => [r.qr_code, r]));
  const keptLots = new Set<number>();
  const keptPeople = new Set<number>();

  p.lotes.forEach((lote, li) => {
    const lotColumns = {
      position: li,
      categoria: lote.categoria,
      nome_ingresso: lote.nome_ingresso,
      nome_lote: lote.nome_lote,
      tipo_ingresso: lote.tipo_ingresso,
      valor_unitario: toCents(lote.valor_unitario),
    };
    let lotId = lots.get(lotKey(lote));
    if (lotId !== undefined && !keptLots.has(lotId)) {
      q.updateLot.run(db, Object.assign(lotColumns, { id: lotId }));
    } else {
      const ids = {
        ingresso_id: lote.ingresso_id,
        lote_mestre_id: lote.lote_mestre_id,
        data_uso: lote.data_uso,
        order_id: orderId,
      };
      lotId = Number(q.insertLot.run(db, Object.assign(lotColumns, ids)).lastInsertRowid);
    }
    keptLots.add(lotId);
    // A lot the cloud reports as fully checked in marks its people, so the gate refuses a second entry.
    const cloudCheckin = lote.checkin_realizado && lote.checkin_em ? lote.checkin_em : null;

    lote.dados.forEach((person, pi) => {
      const dados = cleanDados(person);
      const personColumns = { lot_id: lotId, position: pi, nome: personName(dados), dados: JSON.stringify(dados) };
      const current = people.get(person.qr_code);
      if (current) {
        keptPeople.add(current.id);
        q.updatePerson.run(db, Object.assign(personColumns, { id: current.id }));
        if (cloudCheckin && !current.checkin_em) q.cloudCheckin.run(db, { id: current.id, at: cloudCheckin });
        return;
      }
      const clash = q.personClash.get(db, { tenantId, qr: person.qr_code });
      if (clash)
        throw new OrderConflictError(`qr_code ${person.qr_code} já pertence ao pedido ${clash.numero_pedido}`, [
          'lotes',
          li,
          'dados',
          pi,
          'qr_code',
        ]);
      const res = q.insertPerson.run(
        db,
        Object.assign(personColumns, {
          tenant_id: tenantId,
          order_id: orderId,
          qr_code: person.qr_code,
          checkin_em: cloudCheckin,
        }),
      );
      keptPeople.add(Number(res.lastInsertRowid));
    });
  });

  for (const r of people.values()) if (!keptPeople.has(r.id)) q.deletePerson.run(db, { id: r.id });
  for (const id of lots.values()) if (!keptLots.has(id)) q.deleteLot.run(db, { id });
}

function syncAdditionals(db: Db, tenantId: number, orderId: number, p: Pedido, isNew: boolean) {
  const existing = isNew ? [] : q.additionals.all(db, { orderId });
  const items = p.adicionais ?? [];
  items.forEach((a, i) => {
    const columns = {
      position: i,
      adicional_id: a.adicional_id,
      nome: a.nome,
      quantidade: a.quantidade,
      preco_unitario: toCents(a.preco_unitario),
      subtotal: toCents(a.subtotal),
      pessoa_ingresso_id: a.pessoa_ingresso_id,
      combo_id: a.combo_id,
      combo_item_id: a.combo_item_id,
      is_brinde: a.is_brinde ? 1 : 0,
      codigo_integracao: a.codigo_integracao,
      adicional_qr_code: a.adicional_qr_code,
    };
    if (a.adicional_qr_code) {
      const clash = q.additionalClash.get(db, { tenantId, qr: a.adicional_qr_code });
      if (clash && clash.order_id !== orderId)
        throw new OrderConflictError(
          `adicional_qr_code ${a.adicional_qr_code} já pertence ao pedido ${clash.numero_pedido}`,
          ['adicionais', i, 'adicional_qr_code'],
        );
    }
    const row = existing[i];
    if (row) q.updateAdditional.run(db, Object.assign(columns, { id: row.id }));
    else q.insertAdditional.run(db, Object.assign(columns, { tenant_id: tenantId, order_id: orderId }));
  });
  for (const row of existing.slice(items.length)) q.deleteAdditional.run(db, { id: row.id });
}
