import { checkInAdditional, checkInGroup, checkInMany, checkInPerson, moved } from './checkin.flows.js';
import type { PersonState } from './checkin.repo.js';
import { record, refuse, refuseWith, type Flow } from './flow.js';
import type { CheckinResult, Granted, Movement } from './result.js';
import {
  entryMovement,
  exitWithoutEntry,
  groupEntry,
  mayBeAdditional,
  mayBeGroup,
  personEntry,
  personExit,
  standing as standingOf,
  type MoveFacts,
  type MovePolicy,
  type Standing,
} from './rules/index.js';

// Movements through the box's own doors (lanes, POST /api/local/saida): read the facts, ask the
// rules (rules/movement.ts, which says what an entry or an exit scan means), write.

const standing = (f: Flow, p: PersonState): Standing =>
  standingOf(f.cal, f.area, f.repo.presence(f.actor.tenantId, f.area, p.id), p.checkin_em);

const facts = (f: Flow, policy: MovePolicy): MoveFacts => ({
  cal: f.cal,
  policy,
  area: f.area,
  occupancy: () => f.repo.insideArea(f.actor.tenantId, f.area, f.cal.today),
});

/** One code at a door: a person's QR, a group QR; an entry also takes an additional's QR. */
export function moveCode(f: Flow, code: string, policy: MovePolicy): CheckinResult {
  const tenant = f.actor.tenantId;
  const entry = policy.direction === 'entrada';
  const person = f.repo.personByQr(tenant, code);
  if (person) return entry ? enterPerson(f, code, person, policy) : exitPerson(f, code, person, policy);
  const order = mayBeGroup(code) ? f.repo.orderByNumero(tenant, code) : undefined;
  if (order) return entry ? enterGroup(f, code, order, policy) : exitGroup(f, code, order, policy);
  if (!entry) return exitUnknown(f, code, policy);
  const additional = mayBeAdditional(code) ? f.repo.additionalByQr(tenant, code) : undefined;
  if (additional) return checkInAdditional(f, code, additional);
  return refuse(f, { action: 'checkin', mode: 'qr', code, qrCode: code }, 'TICKET_NOT_FOUND', { qr_code: code });
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

function enterAgain(f: Flow, p: PersonState, mode: 'qr' | 'combo', code: string, movement: Movement): Movement {
  f.repo.enter(f.actor.tenantId, f.area, p.id, f.cal.today, f.now);
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
  const decided = personEntry(facts(f, policy), p, code, () => standing(f, p));
  if (decided.kind === 'refuse') return refuseWith(f, ev, decided.refusal);
  if (decided.kind === 'checkin') return checkInPerson(f, code, p);
  const movement = enterAgain(f, p, 'qr', code, decided.movement);
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
  const decided = groupEntry(facts(f, policy), order, people, (p) => standing(f, p));
  if (decided.kind === 'refuse')
    return refuseWith(
      f,
      { action: 'checkin', mode: 'combo', code, numeroPedido: order.numero_pedido },
      decided.refusal,
    );
  if (decided.kind === 'checkin') return checkInGroup(f, code, order);
  const kinds = decided.returning.map((p) => enterAgain(f, p, 'combo', code, entryMovement(standing(f, p))));
  const checked = checkInMany(f, decided.pending, 'combo', code);
  const all = [...decided.returning, ...(Array.isArray(checked) ? checked : [])];
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
  if (!f.repo.leave(f.actor.tenantId, f.area, p.id, f.cal.today, f.now)) {
    // Inside without a row: checked in before movements were recorded. The exit writes one.
    if (standing(f, p) !== 'inside') return false;
    f.repo.enter(f.actor.tenantId, f.area, p.id, f.cal.today, f.now);
    f.repo.leave(f.actor.tenantId, f.area, p.id, f.cal.today, f.now);
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
  const why = exitWithoutEntry(policy, f.area, code);
  if (why) return refuseWith(f, ev, why);
  record(f, { ...ev, result: 'ok', details: { area: f.area, sem_entrada: true } });
  return granted(f, 'saida', { ...who, code, people: [], withoutEntry: true });
}

export function exitPerson(f: Flow, code: string, p: PersonState, policy: MovePolicy): CheckinResult {
  const decided = personExit({ policy, area: f.area }, standing(f, p), code);
  if (decided.kind === 'exit' && leave(f, p, 'qr', code)) {
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
