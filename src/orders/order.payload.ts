import { fromCents, paymentTotals, toCents, type PaymentAdjustment, type PromotionDiscount } from './money.js';
import type { Lote } from './order.schemas.js';
import type { CheckinPedido, ComboPedido, ListedPedido, OrderModePedido, ReversedPerson } from './order.answers.js';
import type { AdditionalRow, LotRow, OrderRecord, OrderRow, PersonRow } from './order.records.js';

// The stored text columns hold what the import schemas let through (order.schemas.ts): their values are the enums'.
type Origem = ListedPedido['origem'];

// The orders' payloads (2.1–2.7, 4.1, 4.2), built from the loaded rows; typed by their one description,
// order.answers.ts (the rows' text columns hold what the import schemas let through).

export { loadOrders } from './order.records.js';
export type { AdditionalRow, LotRow, OrderRecord, OrderRow, PersonRow } from './order.records.js';

const latest = (values: (string | null)[]) =>
  values.reduce<string | null>((m, v) => (v !== null && (m === null || v > m) ? v : m), null);
const parse = <T>(json: string | null): T | null => (json === null ? null : (JSON.parse(json) as T));

export function valores(order: OrderRow) {
  const promo = parse<PromotionDiscount>(order.desconto_promocao);
  const desconto = parse<PaymentAdjustment>(order.desconto_pagamento);
  const acrescimo = parse<PaymentAdjustment>(order.acrescimo_pagamento);
  const t = paymentTotals({
    totalBruto: order.total_bruto,
    descontoPromocao: toCents(promo?.valor ?? 0),
    descontoPagamento: toCents(desconto?.valor ?? 0),
    acrescimoPagamento: toCents(acrescimo?.valor ?? 0),
    valorEstornado: order.valor_estornado,
  });
  return {
    total_bruto: fromCents(order.total_bruto),
    total_desconto: fromCents(t.totalDesconto),
    total_pago: fromCents(t.totalPago),
    desconto_promocao: promo,
    subtotal: fromCents(t.subtotal),
    desconto_pagamento: desconto,
    acrescimo_pagamento: acrescimo,
    valor_estornado: fromCents(order.valor_estornado),
  };
}

/** What a lot says of its people's state: the part of a lot's payload that changes with check-ins and marks. */
export type PersonState = Pick<
  PersonRow,
  'checkin_em' | 'checkin_dispositivo' | 'checkin_operador' | 'sincronizado_em'
>;

/** 2.5, the lot's own fields (what does not change with check-ins or marks). */
const lotFields = (lot: LotRow) => ({
  ingresso_id: lot.ingresso_id,
  lote_mestre_id: lot.lote_mestre_id,
  categoria: lot.categoria as Lote['categoria'],
  nome_ingresso: lot.nome_ingresso,
  nome_lote: lot.nome_lote,
  tipo_ingresso: lot.tipo_ingresso as Lote['tipo_ingresso'],
  data_uso: lot.data_uso,
  valor_unitario: fromCents(lot.valor_unitario),
});

/** 2.5, synchronisation and check-in of the lot's people. */
export function lotState(people: PersonState[]) {
  const checkins = people.map((p) => p.checkin_em);
  return {
    sincronizado: people.every((p) => p.sincronizado_em !== null),
    sincronizado_em: latest(people.map((p) => p.sincronizado_em)),
    checkin_realizado: people.length > 0 && checkins.every((c) => c !== null),
    checkin_em: latest(checkins),
  };
}

const lotSummary = (lot: LotRow, people: PersonState[]) => ({ ...lotFields(lot), ...lotState(people) });

/** 2.5 check-in extras, the part that changes: device and operator of the latest check-in. */
export function lastCheckinBy(people: PersonState[]) {
  const last = people.filter((p) => p.checkin_em !== null).sort((a, b) => (a.checkin_em! < b.checkin_em! ? 1 : -1))[0];
  return { checkin_dispositivo: last?.checkin_dispositivo ?? null, checkin_operador: last?.checkin_operador ?? null };
}

/** 2.5 check-in extras, the part fixed by the order: count and subtotal. */
const lotCount = (lot: LotRow, people: number) => ({
  quantidade: people,
  subtotal: fromCents(lot.valor_unitario * people),
});

const lotCheckinFields = (lot: LotRow, people: PersonState[]) => ({
  ...lastCheckinBy(people),
  ...lotCount(lot, people.length),
});

const dados = (p: PersonRow) => ({ qr_code: p.qr_code, ...(JSON.parse(p.dados) as Record<string, string>) });

function adicionalFull(a: AdditionalRow) {
  return {
    adicional_id: a.adicional_id,
    nome: a.nome,
    quantidade: a.quantidade,
    preco_unitario: fromCents(a.preco_unitario),
    subtotal: fromCents(a.subtotal),
    pessoa_ingresso_id: a.pessoa_ingresso_id,
    combo_id: a.combo_id,
    combo_item_id: a.combo_item_id,
    is_brinde: a.is_brinde === 1,
    codigo_integracao: a.codigo_integracao,
    adicional_qr_code: a.adicional_qr_code,
  };
}

const clienteShort = (order: OrderRow) => {
  const c = JSON.parse(order.cliente) as { nome: string; email: string };
  return { nome: c.nome, email: c.email };
};
const peopleCount = (r: OrderRecord) => r.lots.reduce((n, l) => n + l.people.length, 0);

/** 2.1, the order's own fields before its lots. */
const pedidoHead = (order: OrderRow, forCheckin: boolean) => ({
  numero_pedido: order.numero_pedido,
  status: order.status,
  pago_em: order.pago_em,
  origem: order.origem as Origem,
  pagamento: { valores: valores(order) },
  cupom: parse<{ codigo: string; nome: string }>(order.cupom),
  cliente: forCheckin ? clienteShort(order) : JSON.parse(order.cliente),
});

/** The order of the vouchers listing (2.1–2.7); with `forCheckin`, the single-QR check-in variant. */
export function voucherPedido(r: OrderRecord): ListedPedido;
export function voucherPedido(r: OrderRecord, forCheckin: true): CheckinPedido;
export function voucherPedido(r: OrderRecord, forCheckin = false): ListedPedido | CheckinPedido {
  const allPeople = r.lots.flatMap((l) => l.people);
  return {
    ...pedidoHead(r.order, forCheckin),
    lotes: r.lots.map(({ lot, people }) => ({
      ...lotSummary(lot, people),
      ...(forCheckin ? lotCheckinFields(lot, people) : {}),
      dados: people.map(dados),
    })),
    total_pessoas: allPeople.length,
    total_lotes: r.lots.length,
    sincronizado: allPeople.every((p) => p.sincronizado_em !== null),
    ...(r.additionals.length > 0 ? { adicionais: r.additionals.map(adicionalFull) } : {}),
  };
}

/**
 * The single-QR check-in `pedido` (voucherPedido with forCheckin) as JSON text cut where people's
 * state goes: what the order fixes is made once per revision of the order (pedido-cache.ts), the
 * state of its people on every check-in, grouped by lot in the order of `lots` (as loadOrders groups them).
 */
export interface CheckinPedidoParts {
  /** `{...head,"lotes":[` */
  head: string;
  /** Per lot: `{` and its own fields, then (after its people's state) its count, subtotal and `dados`. */
  lots: { id: number; fields: string; rest: string }[];
  /** `],"total_pessoas":N,"total_lotes":M,` */
  totals: string;
  /** `,"adicionais":[...]}` or `}` */
  tail: string;
}

const inner = (value: object) => JSON.stringify(value).slice(1, -1);

export function checkinPedidoParts(r: OrderRecord): CheckinPedidoParts {
  return {
    head: `${JSON.stringify(pedidoHead(r.order, true)).slice(0, -1)},"lotes":[`,
    lots: r.lots.map(({ lot, people }) => ({
      id: lot.id,
      fields: `{${inner(lotFields(lot))},`,
      rest: `,${inner(lotCount(lot, people.length))},"dados":${JSON.stringify(people.map(dados))}}`,
    })),
    totals: `],"total_pessoas":${peopleCount(r)},"total_lotes":${r.lots.length},`,
    tail: r.additionals.length > 0 ? `,"adicionais":${JSON.stringify(r.additionals.map(adicionalFull))}}` : '}',
  };
}

/** The JSON text of voucherPedido(r, true), from its parts and the state of the order's people, grouped by lot. */
export function checkinPedidoJson(parts: CheckinPedidoParts, byLot: PersonState[][]): string {
  let json = parts.head;
  let all = true;
  parts.lots.forEach((lot, i) => {
    const people = byLot[i]!;
    if (!people.every((p) => p.sincronizado_em !== null)) all = false;
    // Object.assign, not a spread: on Node 20 a spread here costs more and outlives the young generation.
    json += `${i > 0 ? ',' : ''}${lot.fields}${inner(Object.assign(lotState(people), lastCheckinBy(people)))}${lot.rest}`;
  });
  return `${json}${parts.totals}"sincronizado":${all}${parts.tail}`;
}

/** The order of a combo (group QR) check-in response: lots with pessoas[], short additionals. */
export function comboPedido(r: OrderRecord): ComboPedido {
  const { order } = r;
  return {
    numero_pedido: order.numero_pedido,
    status: order.status,
    pago_em: order.pago_em,
    origem: order.origem as Origem,
    total: valores(order).total_pago,
    cliente: clienteShort(order),
    lotes: r.lots.map(({ lot, people }) => ({
      ...lotSummary(lot, people),
      ...lotCheckinFields(lot, people),
      pessoas: people.map((p) => ({
        qr_code: p.qr_code,
        nome: p.nome,
        checkin_realizado: p.checkin_em !== null,
        checkin_em: p.checkin_em,
        checkin_dispositivo: p.checkin_dispositivo,
        checkin_operador: p.checkin_operador,
      })),
    })),
    total_pessoas: peopleCount(r),
    adicionais: r.additionals.map((a) => ({
      nome: a.nome,
      quantidade: a.quantidade,
      preco_unitario: fromCents(a.preco_unitario),
      subtotal: fromCents(a.subtotal),
    })),
  };
}

/** The order of an order-mode check-in response (4.1). */
export function orderModePedido(r: OrderRecord): OrderModePedido {
  return {
    numero_pedido: r.order.numero_pedido,
    status: r.order.status,
    cliente: clienteShort(r.order),
    lotes: r.lots.map(({ lot, people }) => ({
      ...lotSummary(lot, people),
      ...lotCheckinFields(lot, people),
      dados: people.map(dados),
    })),
  };
}

/** A person in a reversal response (4.2). */
export const reversedPerson = (p: ReversedPerson): ReversedPerson => ({
  qr_code: p.qr_code,
  nome: p.nome,
  estornado_em: p.estornado_em,
  estorno_dispositivo: p.estorno_dispositivo,
  estorno_operador: p.estorno_operador,
});
