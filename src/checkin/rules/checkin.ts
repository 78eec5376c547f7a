import type { Refusal } from './refusal.js';

// Check-in rules. Order for one person: cancelled order, already used, date validity.

/** What a ticket says of its day: dayuse, evento and dia_unico are valid only on their data_uso. */
export interface TicketDay {
  tipo_ingresso: string;
  data_uso: string;
}

/** A person's ticket as the rules see it. */
export interface PersonFacts extends TicketDay {
  qr_code: string;
  /** The order's status: only `pago` is valid. */
  status: string;
  /** The active check-in (null: none, or reversed). */
  checkin_em: string | null;
  estornado_em: string | null;
  estorno_operador: string | null;
  estorno_dispositivo: string | null;
}

/** An order as the rules see it. */
export interface OrderFacts {
  status: string;
}

/** An additional (14-character QR): one unit per scan, up to the quantity bought. */
export interface AdditionalFacts {
  status: string;
  quantidade: number;
}

/** One redeemed unit of an additional. */
export interface UnitFacts {
  checkin_em: string;
  estornado_em: string | null;
  estorno_operador: string | null;
  estorno_dispositivo: string | null;
}

/** dayuse_sem_data is an open-dated ticket and is not gated by date. */
export function dateRefusal(ticket: TicketDay, today: string, qrCode: string): Refusal | null {
  if (ticket.tipo_ingresso === 'dayuse_sem_data') return null;
  if (ticket.data_uso < today)
    return { code: 'TICKET_EXPIRED', details: { data_ingresso: ticket.data_uso, data_atual: today, qr_code: qrCode } };
  if (ticket.data_uso > today)
    return { code: 'TICKET_NOT_VALID_YET', details: { data_ingresso: ticket.data_uso, qr_code: qrCode } };
  return null;
}

export const alreadyUsed = (code: string, checkinEm: string): Refusal => ({
  code: 'TICKET_ALREADY_USED',
  details: { qr_code: code, checkin_em: checkinEm },
});

/** Whether one person's ticket may be checked in now (null: yes). */
export function personCheckin(p: PersonFacts, today: string, code: string): Refusal | null {
  if (p.status !== 'pago') return { code: 'TICKET_CANCELLED', details: { qr_code: code, status: p.status } };
  if (p.checkin_em) return alreadyUsed(code, p.checkin_em);
  return dateRefusal(p, today, code);
}

/** A group QR: a paid order with people. */
export function groupCheckin(order: OrderFacts, people: number, code: string): Refusal | null {
  if (order.status !== 'pago')
    return { code: 'TICKET_CANCELLED', details: { combo_qr_code: code, status: order.status } };
  if (people === 0) return { code: 'NO_PEOPLE', details: { combo_qr_code: code } };
  return null;
}

/** Order mode: a known, paid order with people. */
export function orderCheckin(order: OrderFacts | undefined, people: number, numero: string): Refusal | null {
  if (!order) return { code: 'ORDER_NOT_FOUND', details: { numero_pedido: numero } };
  if (order.status !== 'pago')
    return { code: 'ORDER_NOT_PAID', details: { numero_pedido: numero, status: order.status } };
  if (people === 0) return { code: 'NO_PEOPLE', details: { numero_pedido: numero } };
  return null;
}

/**
 * Of a group's or order's people, those to check in now: pending (no active check-in) and valid
 * today. 'all-used' when nobody is pending; the first pending person's date refusal when none is
 * valid today (worded with the scanned code).
 */
export function pendingValid<P extends Pick<PersonFacts, 'checkin_em' | 'qr_code'> & TicketDay>(
  people: P[],
  today: string,
  code: string,
): P[] | Refusal | 'all-used' {
  const pending = people.filter((p) => p.checkin_em === null);
  if (pending.length === 0) return 'all-used';
  const valid = pending.filter((p) => dateRefusal(p, today, p.qr_code) === null);
  if (valid.length === 0) return dateRefusal(pending[0]!, today, code)!;
  return valid;
}

/** Everyone of the group or order is already checked in. */
export const allUsed = (key: 'combo_qr_code' | 'numero_pedido', code: string, total: number): Refusal => ({
  code: 'TICKET_ALREADY_USED',
  details: { [key]: code, total_pessoas: total },
});

/** An additional's next unit, given its units not reversed (oldest first). */
export function additionalCheckin(a: AdditionalFacts, active: UnitFacts[], code: string): Refusal | null {
  if (a.status !== 'pago') return { code: 'TICKET_CANCELLED', details: { qr_code: code, status: a.status } };
  if (active.length >= a.quantidade)
    return {
      code: 'TICKET_ALREADY_USED',
      details: {
        qr_code: code,
        checkin_em: active[active.length - 1]!.checkin_em,
        quantidade: a.quantidade,
        unidades_utilizadas: active.length,
      },
    };
  return null;
}
