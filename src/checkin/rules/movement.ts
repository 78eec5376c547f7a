import { isToday, type Calendar } from './calendar.js';
import { personCheckin, type PersonFacts } from './checkin.js';
import type { Refusal } from './refusal.js';

// Movements through the box's own doors (lanes, POST /api/local/saida): what an entry or an exit
// scan means. The spec's HTTP check-in is not one of them (it stays a plain check-in). Rules:
// - entry, not checked in → the check-in (first entry) into the lane's area;
// - entry, checked in today, inside the area → TICKET_ALREADY_USED; outside after an exit →
//   a re-entry if the policy allows (`reentrada: mesmo_dia`), else TICKET_ALREADY_USED; never in
//   this area today → an area entry (a lane group inside the park);
// - exit, inside the area → an exit; otherwise the lane's `saidaSemEntrada` policy: let out
//   (recorded as an exit without entry) or SEM_ENTRADA. An exit is never a check-in.
// - a full area refuses entries (CAPACITY_REACHED) until someone leaves.

/** The area of every door that names none: the whole park. */
export const PARK_AREA = 'parque';

/** How one door moves people: its direction and area, and the tenant's rules for them. */
export interface MovePolicy {
  direction: 'entrada' | 'saida';
  area: string;
  reentrada: 'nao' | 'mesmo_dia';
  saidaSemEntrada: 'liberar' | 'negar';
  /** People the area holds at most; null: no limit. */
  capacity: number | null;
}

/** Where a person is in an area today. */
export type Standing = 'inside' | 'left' | 'never';

/** A person's presence row for one area (the latest day they entered it). */
export interface PresenceFacts {
  local_date: string;
  inside: number | boolean;
}

export type Decision<T> = T | { kind: 'refuse'; refusal: Refusal };
const refuse = (refusal: Refusal) => ({ kind: 'refuse' as const, refusal });

export function standing(
  cal: Calendar,
  area: string,
  presence: PresenceFacts | undefined,
  checkinEm: string | null,
): Standing {
  if (presence && presence.local_date === cal.today) return presence.inside ? 'inside' : 'left';
  // A check-in is the park entry; one made before movements were recorded left no row.
  return area === PARK_AREA && isToday(cal, checkinEm) ? 'inside' : 'never';
}

/** An entry of someone checked in today: back after an exit, or into an area not entered today. */
export const entryMovement = (where: Standing): 'entrada' | 'reentrada' => (where === 'left' ? 'reentrada' : 'entrada');

/** CAPACITY_REACHED when `entering` more people would overfill the area; `occupancy` is read only then. */
export function capacityRefusal(
  policy: Pick<MovePolicy, 'capacity'>,
  area: string,
  entering: number,
  occupancy: () => number,
): Refusal | null {
  if (policy.capacity === null || entering === 0) return null;
  const ocupacao = occupancy();
  if (ocupacao + entering <= policy.capacity) return null;
  return { code: 'CAPACITY_REACHED', details: { area, capacidade: policy.capacity, ocupacao } };
}

export interface MoveFacts {
  cal: Calendar;
  policy: MovePolicy;
  /** The area the door leads into or out of. */
  area: string;
  /** People inside the area now (read only when a capacity applies). */
  occupancy: () => number;
}

/** An entry scan of one person's QR: their check-in, an area entry, a re-entry, or a refusal. */
export function personEntry(
  m: MoveFacts,
  p: PersonFacts,
  code: string,
  where: () => Standing,
): Decision<{ kind: 'checkin' } | { kind: 'enter'; movement: 'entrada' | 'reentrada' }> {
  if (!isToday(m.cal, p.checkin_em)) {
    const why =
      capacityRefusal(m.policy, m.area, p.checkin_em === null ? 1 : 0, m.occupancy) ??
      personCheckin(p, m.cal.today, code);
    return why ? refuse(why) : { kind: 'checkin' };
  }
  if (p.status !== 'pago') return refuse({ code: 'TICKET_CANCELLED', details: { qr_code: code, status: p.status } });
  const w = where();
  if (w === 'inside' || (w === 'left' && m.policy.reentrada === 'nao'))
    return refuse({ code: 'TICKET_ALREADY_USED', details: { qr_code: code, checkin_em: p.checkin_em } });
  const full = capacityRefusal(m.policy, m.area, 1, m.occupancy);
  if (full) return refuse(full);
  return { kind: 'enter', movement: entryMovement(w) };
}

/**
 * An entry scan of a group QR moves its whole group: those coming back today, and those not
 * checked in yet. With nobody coming back (or an unpaid order) it is the group's check-in.
 */
export function groupEntry<P extends Pick<PersonFacts, 'checkin_em'>>(
  m: MoveFacts,
  order: { status: string },
  people: P[],
  where: (p: P) => Standing,
): Decision<{ kind: 'checkin' } | { kind: 'enter'; returning: P[]; pending: P[] }> {
  const returning = people.filter((p) => {
    if (!isToday(m.cal, p.checkin_em)) return false;
    const w = where(p);
    return w === 'never' || (w === 'left' && m.policy.reentrada === 'mesmo_dia');
  });
  const pending = people.filter((p) => p.checkin_em === null);
  const full = capacityRefusal(m.policy, m.area, returning.length + pending.length, m.occupancy);
  if (full) return refuse(full);
  if (returning.length === 0 || order.status !== 'pago') return { kind: 'checkin' };
  return { kind: 'enter', returning, pending };
}

/** An exit of nobody inside: let out by the policy (null), or SEM_ENTRADA. */
export function exitWithoutEntry(policy: Pick<MovePolicy, 'saidaSemEntrada'>, area: string, code: string) {
  return policy.saidaSemEntrada === 'negar'
    ? ({ code: 'SEM_ENTRADA', details: { qr_code: code, area } } satisfies Refusal)
    : null;
}

/** An exit scan of one person: out if inside, else the policy for an exit without entry. */
export function personExit(
  m: Pick<MoveFacts, 'policy' | 'area'>,
  where: Standing,
  code: string,
): Decision<{ kind: 'exit' } | { kind: 'let-out' }> {
  if (where === 'inside') return { kind: 'exit' };
  const why = exitWithoutEntry(m.policy, m.area, code);
  return why ? refuse(why) : { kind: 'let-out' };
}
