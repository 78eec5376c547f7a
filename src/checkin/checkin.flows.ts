import type { PersonState } from './checkin.repo.js';
import { record, refuse, refuseWith, type Flow } from './flow.js';
import type { CheckinResult, Granted, MovedPerson, Refusal } from './result.js';
import {
  additionalCheckin,
  allUsed,
  alreadyUsed,
  groupCheckin,
  mayBeAdditional,
  mayBeGroup,
  orderCheckin,
  PARK_AREA,
  pendingValid,
  personCheckin,
} from './rules/index.js';

// Check-in flows: read the facts, ask the rules (rules/checkin.ts), write the change and its event.

export const moved = (p: PersonState): MovedPerson => ({ id: p.id, lotId: p.lot_id, qrCode: p.qr_code, nome: p.nome });

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

/** A scanned code: a person's QR, a group QR, an additional's QR, in that order. */
export function checkInCode(f: Flow, code: string): CheckinResult {
  const tenant = f.actor.tenantId;
  const person = f.repo.personByQr(tenant, code);
  if (person) return checkInPerson(f, code, person);
  const order = mayBeGroup(code) ? f.repo.orderByNumero(tenant, code) : undefined;
  if (order) return checkInGroup(f, code, order);
  const additional = mayBeAdditional(code) ? f.repo.additionalByQr(tenant, code) : undefined;
  if (additional) return checkInAdditional(f, code, additional);
  return refuse(f, { action: 'checkin', mode: 'qr', code, qrCode: code }, 'TICKET_NOT_FOUND', { qr_code: code });
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
  const why = personCheckin(p, f.cal.today, code);
  if (why) return refuseWith(f, ev, why);
  if (!markCheckedIn(f, p)) {
    const current = f.repo.personByQr(f.actor.tenantId, p.qr_code);
    return refuseWith(f, ev, alreadyUsed(code, current?.checkin_em ?? f.now));
  }
  record(f, { ...ev, result: 'ok', ...areaOf(f) });
  return checkedIn(f, {
    target: 'person',
    code,
    orderId: p.order_id,
    numeroPedido: p.numero_pedido,
    people: [moved(p)],
  });
}

/** A check-in at a door into another area than the park says so in its event (the site's boxes apply it there). */
const areaOf = (f: Flow) => (f.area === PARK_AREA ? {} : { details: { area: f.area } });

/** The check-in is the first entry: into the flow's area. */
function markCheckedIn(f: Flow, p: PersonState): boolean {
  if (!f.repo.markCheckedIn(p.id, f.now, f.actor.terminal, f.actor.operador)) return false;
  f.repo.enter(f.actor.tenantId, f.area, p.id, f.cal.today, f.now);
  return true;
}

/** Checks in the pending people valid today; the caller words the already-used refusal. */
export function checkInMany(
  f: Flow,
  people: PersonState[],
  mode: 'combo' | 'pedido',
  code: string,
): PersonState[] | Refusal | 'all-used' {
  const valid = pendingValid(people, f.cal.today, code);
  if (!Array.isArray(valid)) return valid;
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
      ...areaOf(f),
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
  // The people are read only for a paid order, as the rules ask in this order.
  const people = order.status === 'pago' ? f.repo.peopleOfOrder(order.id) : [];
  const why = groupCheckin(order, people.length, code);
  if (why) return refuseWith(f, ev, why);
  const result = checkInMany(f, people, 'combo', code);
  if (result === 'all-used') return refuseWith(f, ev, allUsed('combo_qr_code', code, people.length));
  if (!Array.isArray(result)) return refuseWith(f, ev, result);
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
  const people = order?.status === 'pago' ? f.repo.peopleOfOrder(order.id) : [];
  const why = orderCheckin(order, people.length, numero);
  if (why) return refuseWith(f, ev, why);
  const result = checkInMany(f, people, 'pedido', numero);
  if (result === 'all-used') return refuseWith(f, ev, allUsed('numero_pedido', numero, people.length));
  if (!Array.isArray(result)) return refuseWith(f, ev, result);
  return checkedIn(f, {
    target: 'order',
    code: numero,
    orderId: order!.id,
    numeroPedido: order!.numero_pedido,
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
  const active = a.status === 'pago' ? f.repo.redemptions(a.id).filter((r) => r.estornado_em === null) : [];
  const why = additionalCheckin(a, active, code);
  if (why) return refuseWith(f, ev, why);
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
