import { checkInGroup, checkInMany, checkInPerson } from './checkin.flows.js';
import type { PersonState } from './checkin.repo.js';
import { record, refuse, type Flow } from './flow.js';
import { PARK_AREA, type MovePolicy } from './movement.settings.js';
import type { CheckinResult, Granted, MovedPerson, Movement } from './result.js';

// Movements through the box's own doors (lanes, POST /api/local/saida): what an entry or an exit
// scan means. The spec's HTTP check-in is not one of them (it stays a plain check-in). Rules:
// - entry, not checked in → the check-in (first entry) into the lane's area;
// - entry, checked in today, inside the area → TICKET_ALREADY_USED; outside after an exit →
//   a re-entry if the policy allows (`reentrada: mesmo_dia`), else TICKET_ALREADY_USED; never in
//   this area today → an area entry (a lane group inside the park);
// - exit, inside the area → an exit; otherwise the lane's `saidaSemEntrada` policy: let out
//   (recorded as an exit without entry) or SEM_ENTRADA. An exit is never a check-in.
// - a full area refuses entries (CAPACITY_REACHED) until someone leaves.

type Standing = 'inside' | 'left' | 'never';

const moved = (p: PersonState): MovedPerson => ({ id: p.id, qrCode: p.qr_code, nome: p.nome });
const checkedInToday = (f: Flow, p: PersonState) =>
  p.checkin_em !== null && f.clock.localDate(p.checkin_em) === f.today;

function standing(f: Flow, p: PersonState): Standing {
  const row = f.repo.presence(f.actor.tenantId, f.area, p.id);
  if (row && row.local_date === f.today) return row.inside ? 'inside' : 'left';
  // A check-in is the park entry; one made before movements were recorded left no row.
  return f.area === PARK_AREA && checkedInToday(f, p) ? 'inside' : 'never';
}

function granted(
  f: Flow,
  movement: Movement,
  fields: Pick<Granted, 'target' | 'code' | 'orderId' | 'numeroPedido' | 'people'> & Partial<Granted>,
): Granted {
  return {
    ok: true,
    movement,
    at: f.now,
    totalPessoas: fields.people.length,
    additional: null,
    withoutEntry: false,
    ...fields,
  };
}

function full(
  f: Flow,
  policy: MovePolicy,
  entering: number,
): { area: string; capacidade: number; ocupacao: number } | null {
  if (policy.capacity === null || entering === 0) return null;
  const ocupacao = f.repo.insideArea(f.actor.tenantId, f.area, f.today);
  return ocupacao + entering > policy.capacity ? { area: f.area, capacidade: policy.capacity, ocupacao } : null;
}

function enterAgain(f: Flow, p: PersonState, mode: 'qr' | 'combo', code: string, kind: Standing): Movement {
  const movement = kind === 'left' ? 'reentrada' : 'entrada';
  f.repo.enter(f.actor.tenantId, f.area, p.id, f.today, f.now);
  record(f, {
    action: movement,
    mode,
    code,
    qrCode: p.qr_code,
    numeroPedido: p.numero_pedido,
    personId: p.id,
    result: 'ok',
    details: { area: f.area },
  });
  return movement;
}

export function enterPerson(f: Flow, code: string, p: PersonState, policy: MovePolicy): CheckinResult {
  const ev = {
    action: 'checkin' as const,
    mode: 'qr' as const,
    code,
    qrCode: p.qr_code,
    numeroPedido: p.numero_pedido,
    personId: p.id,
  };
  if (!checkedInToday(f, p)) {
    const over = full(f, policy, p.checkin_em === null ? 1 : 0);
    return over ? refuse(f, ev, 'CAPACITY_REACHED', over) : checkInPerson(f, code, p);
  }
  if (p.status !== 'pago') return refuse(f, ev, 'TICKET_CANCELLED', { qr_code: code, status: p.status });
  const where = standing(f, p);
  if (where === 'inside' || (where === 'left' && policy.reentrada === 'nao'))
    return refuse(f, ev, 'TICKET_ALREADY_USED', { qr_code: code, checkin_em: p.checkin_em });
  const over = full(f, policy, 1);
  if (over) return refuse(f, ev, 'CAPACITY_REACHED', over);
  const movement = enterAgain(f, p, 'qr', code, where);
  return granted(f, movement, {
    target: 'person',
    code,
    orderId: p.order_id,
    numeroPedido: p.numero_pedido,
    people: [moved(p)],
  });
}

/** A group QR moves its whole group: those coming back, and those not checked in yet. */
export function enterGroup(
  f: Flow,
  code: string,
  order: { id: number; numero_pedido: string; status: string },
  policy: MovePolicy,
): CheckinResult {
  const people = f.repo.peopleOfOrder(order.id);
  const returning = people.filter((p) => {
    if (!checkedInToday(f, p)) return false;
    const where = standing(f, p);
    return where === 'never' || (where === 'left' && policy.reentrada === 'mesmo_dia');
  });
  const pending = people.filter((p) => p.checkin_em === null);
  const over = full(f, policy, returning.length + pending.length);
  if (over)
    return refuse(
      f,
      { action: 'checkin', mode: 'combo', code, numeroPedido: order.numero_pedido },
      'CAPACITY_REACHED',
      over,
    );
  if (returning.length === 0 || order.status !== 'pago') return checkInGroup(f, code, order);
  const kinds = returning.map((p) => enterAgain(f, p, 'combo', code, standing(f, p)));
  const checked = checkInMany(f, pending, 'combo', code);
  const all = [...returning, ...(Array.isArray(checked) ? checked : [])];
  return granted(f, kinds.includes('reentrada') ? 'reentrada' : 'entrada', {
    target: 'group',
    code,
    orderId: order.id,
    numeroPedido: order.numero_pedido,
    people: all.map(moved),
    totalPessoas: people.length,
  });
}

function leave(f: Flow, p: PersonState, mode: 'qr' | 'combo', code: string): boolean {
  if (!f.repo.leave(f.actor.tenantId, f.area, p.id, f.today, f.now)) {
    // Inside without a row: checked in before movements were recorded. The exit writes one.
    if (standing(f, p) !== 'inside') return false;
    f.repo.enter(f.actor.tenantId, f.area, p.id, f.today, f.now);
    f.repo.leave(f.actor.tenantId, f.area, p.id, f.today, f.now);
  }
  record(f, {
    action: 'saida',
    mode,
    code,
    qrCode: p.qr_code,
    numeroPedido: p.numero_pedido,
    personId: p.id,
    result: 'ok',
    details: { area: f.area },
  });
  return true;
}

/** Nobody of this code is inside: let out by policy (recorded as an exit without entry) or refused. */
function withoutEntry(
  f: Flow,
  code: string,
  policy: MovePolicy,
  who: Pick<Granted, 'target' | 'orderId' | 'numeroPedido'> & { personId?: number; qrCode?: string },
): CheckinResult {
  const ev = {
    action: 'saida' as const,
    mode: who.target === 'group' ? ('combo' as const) : ('qr' as const),
    code,
    qrCode: who.qrCode ?? null,
    numeroPedido: who.numeroPedido,
    personId: who.personId ?? null,
  };
  if (policy.saidaSemEntrada === 'negar') return refuse(f, ev, 'SEM_ENTRADA', { qr_code: code, area: f.area });
  record(f, { ...ev, result: 'ok', details: { area: f.area, sem_entrada: true } });
  return granted(f, 'saida', { ...who, code, people: [], withoutEntry: true });
}

export function exitPerson(f: Flow, code: string, p: PersonState, policy: MovePolicy): CheckinResult {
  if (standing(f, p) === 'inside' && leave(f, p, 'qr', code)) {
    return granted(f, 'saida', {
      target: 'person',
      code,
      orderId: p.order_id,
      numeroPedido: p.numero_pedido,
      people: [moved(p)],
    });
  }
  return withoutEntry(f, code, policy, {
    target: 'person',
    orderId: p.order_id,
    numeroPedido: p.numero_pedido,
    personId: p.id,
    qrCode: p.qr_code,
  });
}

export function exitGroup(
  f: Flow,
  code: string,
  order: { id: number; numero_pedido: string },
  policy: MovePolicy,
): CheckinResult {
  const people = f.repo.peopleOfOrder(order.id);
  const out = people.filter((p) => standing(f, p) === 'inside' && leave(f, p, 'combo', code));
  if (out.length === 0)
    return withoutEntry(f, code, policy, { target: 'group', orderId: order.id, numeroPedido: order.numero_pedido });
  return granted(f, 'saida', {
    target: 'group',
    code,
    orderId: order.id,
    numeroPedido: order.numero_pedido,
    people: out.map(moved),
    totalPessoas: people.length,
  });
}

/** An exit scan of an additional's QR or of nothing known: no one to move, only the policy. */
export const exitUnknown = (f: Flow, code: string, policy: MovePolicy) =>
  withoutEntry(f, code, policy, { target: 'unknown', orderId: null, numeroPedido: null });
