import type { PersonState } from './checkin.repo.js';
import { dateRefusal } from './checkin.rules.js';
import { record, refuse, type Flow } from './flow.js';
import type { CheckinResult, Granted, MovedPerson, Refusal } from './result.js';

// Check-in flows. Order of the rules for one person: cancelled order, already used, date validity.

const moved = (p: PersonState): MovedPerson => ({ id: p.id, qrCode: p.qr_code, nome: p.nome });

function checkedIn(
  f: Flow,
  fields: Pick<Granted, 'target' | 'code' | 'orderId' | 'numeroPedido' | 'people'> & Partial<Granted>,
): Granted {
  return {
    ok: true,
    movement: 'checkin',
    at: f.now,
    totalPessoas: fields.people.length,
    additional: null,
    withoutEntry: false,
    ...fields,
  };
}

export function checkInPerson(f: Flow, code: string, p: PersonState): CheckinResult {
  const ev = {
    action: 'checkin' as const,
    mode: 'qr' as const,
    code,
    qrCode: p.qr_code,
    numeroPedido: p.numero_pedido,
    personId: p.id,
  };
  if (p.status !== 'pago') return refuse(f, ev, 'TICKET_CANCELLED', { qr_code: code, status: p.status });
  if (p.checkin_em) return refuse(f, ev, 'TICKET_ALREADY_USED', { qr_code: code, checkin_em: p.checkin_em });
  const dateError = dateRefusal(p, f.today, code);
  if (dateError) return refuse(f, ev, dateError.code, dateError.details);
  if (!markCheckedIn(f, p)) {
    const current = f.repo.personByQr(f.actor.tenantId, p.qr_code);
    return refuse(f, ev, 'TICKET_ALREADY_USED', { qr_code: code, checkin_em: current?.checkin_em ?? f.now });
  }
  record(f, { ...ev, result: 'ok' });
  return checkedIn(f, {
    target: 'person',
    code,
    orderId: p.order_id,
    numeroPedido: p.numero_pedido,
    people: [moved(p)],
  });
}

/** The check-in is the first entry: into the flow's area. */
function markCheckedIn(f: Flow, p: PersonState): boolean {
  if (!f.repo.markCheckedIn(p.id, f.now, f.actor.terminal, f.actor.operador)) return false;
  f.repo.enter(f.actor.tenantId, f.area, p.id, f.today, f.now);
  return true;
}

/** Checks in the pending people valid today; the caller words the already-used refusal. */
export function checkInMany(
  f: Flow,
  people: PersonState[],
  mode: 'combo' | 'pedido',
  code: string,
): PersonState[] | Refusal | 'all-used' {
  const pending = people.filter((p) => p.checkin_em === null);
  if (pending.length === 0) return 'all-used';
  const valid = pending.filter((p) => dateRefusal(p, f.today, p.qr_code) === null);
  if (valid.length === 0) return dateRefusal(pending[0]!, f.today, code)!;
  const done = valid.filter((p) => markCheckedIn(f, p));
  for (const p of done)
    record(f, {
      action: 'checkin',
      mode,
      code,
      qrCode: p.qr_code,
      numeroPedido: p.numero_pedido,
      personId: p.id,
      result: 'ok',
    });
  return done.length > 0 ? done : 'all-used';
}

/** A group QR (YYYYMMDD-NNNN) checks in every participant of the order at once. */
export function checkInGroup(
  f: Flow,
  code: string,
  order: { id: number; numero_pedido: string; status: string },
): CheckinResult {
  const ev = { action: 'checkin' as const, mode: 'combo' as const, code, numeroPedido: order.numero_pedido };
  if (order.status !== 'pago') return refuse(f, ev, 'TICKET_CANCELLED', { combo_qr_code: code, status: order.status });
  const people = f.repo.peopleOfOrder(order.id);
  if (people.length === 0) return refuse(f, ev, 'NO_PEOPLE', { combo_qr_code: code });
  const result = checkInMany(f, people, 'combo', code);
  if (result === 'all-used')
    return refuse(f, ev, 'TICKET_ALREADY_USED', { combo_qr_code: code, total_pessoas: people.length });
  if (!Array.isArray(result)) return refuse(f, ev, result.code, result.details);
  return checkedIn(f, {
    target: 'group',
    code,
    orderId: order.id,
    numeroPedido: order.numero_pedido,
    people: result.map(moved),
    totalPessoas: people.length,
  });
}

/** Order mode: every pending person of a paid order; additionals are not processed. */
export function checkInOrder(f: Flow, numero: string): CheckinResult {
  const ev = { action: 'checkin' as const, mode: 'pedido' as const, code: numero, numeroPedido: numero };
  const order = f.repo.orderByNumero(f.actor.tenantId, numero);
  if (!order) return refuse(f, ev, 'ORDER_NOT_FOUND', { numero_pedido: numero });
  if (order.status !== 'pago') return refuse(f, ev, 'ORDER_NOT_PAID', { numero_pedido: numero, status: order.status });
  const people = f.repo.peopleOfOrder(order.id);
  if (people.length === 0) return refuse(f, ev, 'NO_PEOPLE', { numero_pedido: numero });
  const result = checkInMany(f, people, 'pedido', numero);
  if (result === 'all-used')
    return refuse(f, ev, 'TICKET_ALREADY_USED', { numero_pedido: numero, total_pessoas: people.length });
  if (!Array.isArray(result)) return refuse(f, ev, result.code, result.details);
  return checkedIn(f, {
    target: 'order',
    code: numero,
    orderId: order.id,
    numeroPedido: order.numero_pedido,
    people: result.map(moved),
    totalPessoas: people.length,
  });
}

type AdditionalState = NonNullable<ReturnType<Flow['repo']['additionalByQr']>>;

/** A 14-character additional QR redeems one unit per scan, up to the quantity bought. */
export function checkInAdditional(f: Flow, code: string, a: AdditionalState): CheckinResult {
  const ev = {
    action: 'checkin' as const,
    mode: 'adicional' as const,
    code,
    qrCode: code,
    numeroPedido: a.numero_pedido,
    additionalId: a.id,
  };
  if (a.status !== 'pago') return refuse(f, ev, 'TICKET_CANCELLED', { qr_code: code, status: a.status });
  const active = f.repo.redemptions(a.id).filter((r) => r.estornado_em === null);
  if (active.length >= a.quantidade)
    return refuse(f, ev, 'TICKET_ALREADY_USED', {
      qr_code: code,
      checkin_em: active[active.length - 1]!.checkin_em,
      quantidade: a.quantidade,
      unidades_utilizadas: active.length,
    });
  f.repo.redeemUnit(a.id, f.now, f.actor.terminal, f.actor.operador);
  record(f, { ...ev, result: 'ok' });
  return checkedIn(f, {
    target: 'additional',
    code,
    orderId: a.order_id,
    numeroPedido: a.numero_pedido,
    people: [],
    additional: { id: a.id, nome: a.nome, quantidade: a.quantidade, used: active.length + 1 },
  });
}
