import { defineQuery } from '../db/query.js';
import { record, type Flow } from './flow.js';
import { dateRefusal, mayBeAdditional, mayBeGroup } from './rules/index.js';

// Facts: movements decided elsewhere (another box of the site; later a handheld offline) that this box records as
// they happened, whatever its own rules would say now — the visitor already went through. The check-in core owns
// the state they change; the caller (src/site/) owns where they came from.

export interface MovementFact {
  action: 'checkin' | 'entrada' | 'reentrada' | 'saida' | 'estorno';
  /** Whose state it changes: a person's ticket, or one unit of an additional. */
  kind: 'person' | 'additional';
  /** The person's or the additional's own QR. */
  qr: string;
  /** What was scanned (a group QR, an order number, the QR itself) and how. */
  code: string;
  mode: 'qr' | 'combo' | 'adicional' | 'pedido';
  at: string;
  area: string;
  terminal: string | null;
  operator: string | null;
  source: string;
  /** Its id on the site; none for a movement decided by a handheld offline (its device's id is kept apart). */
  site?: { id: string; box: string | null; seq: number | null; withoutSite: boolean } | undefined;
  /** Kept in the event's details beside the area (a handheld's movement id). */
  details?: Record<string, unknown> | undefined;
  /** A reversal that undoes one check-in only: the site id of that check-in (a compensation after a crash). */
  undoes?: string | undefined;
}

export type FactOutcome =
  /** Already recorded (by its site id): nothing done. */
  | { kind: 'duplicate' }
  /** No such ticket here (yet). */
  | { kind: 'unknown' }
  /** Recorded in the event log; the state changed only when `changed`. */
  | { kind: 'recorded'; eventId: number; changed: boolean }
  /** A check-in of a ticket already checked in by another event: recorded, state kept, both events named. */
  | { kind: 'double'; eventId: number; otherEventId: number };

const q = {
  bySiteId: defineQuery((k, p: { id: string }) => k.selectFrom('events').select('id').where('site_id', '=', p.id)),
  activeCheckin: defineQuery((k, p: { personId: number; at: string }) =>
    k
      .selectFrom('events')
      .select(['id', 'site_id'])
      .where('person_id', '=', p.personId)
      .where('action', '=', 'checkin')
      .where('result', '=', 'ok')
      .where('occurred_at', '=', p.at)
      .orderBy('id')
      .limit(1),
  ),
};

/**
 * Records one fact; `changeState` false records it as history only (an older movement of a ticket whose newer one
 * was applied first). Runs inside the caller's write transaction.
 */
export function applyFact(base: Flow, fact: MovementFact, changeState: boolean): FactOutcome {
  if (fact.site && q.bySiteId.get(base.db, { id: fact.site.id })) return { kind: 'duplicate' };
  // Recorded as it happened there: its instant, its terminal and operator, no key of this box.
  const f: Flow = {
    ...base,
    now: fact.at,
    relogio: null,
    actor: {
      tenantId: base.actor.tenantId,
      apiKeyId: null,
      keyName: null,
      source: fact.source,
      terminal: fact.terminal,
      operador: fact.operator,
    },
  };
  return fact.kind === 'person' ? personFact(f, fact, changeState) : additionalFact(f, fact, changeState);
}

/**
 * A compensation keeps the claim it undoes in its event: the site's double entries (rules/doubles.ts) and the cloud's
 * holds (src/sync/outbox.repo.ts) leave both out, since nobody was let in by that claim.
 */
const undoing = (fact: MovementFact) => (fact.undoes ? { undoes: fact.undoes } : {});

function personFact(f: Flow, fact: MovementFact, changeState: boolean): FactOutcome {
  const tenant = f.actor.tenantId;
  const p = f.repo.personByQr(tenant, fact.qr);
  if (!p) return { kind: 'unknown' };
  const day = f.cal.dayOf(fact.at);
  const eventId = record(f, {
    action: fact.action,
    mode: fact.mode,
    code: fact.code,
    qrCode: p.qr_code,
    numeroPedido: p.numero_pedido,
    personId: p.id,
    result: 'ok',
    details: {
      ...(fact.action === 'checkin' || fact.action === 'estorno' ? {} : { area: fact.area }),
      ...fact.details,
      ...undoing(fact),
    },
    site: fact.site,
  });
  if (!changeState) return { kind: 'recorded', eventId, changed: false };
  const { terminal, operator } = fact;
  switch (fact.action) {
    case 'checkin': {
      if (p.checkin_em) {
        const other = q.activeCheckin.get(f.db, { personId: p.id, at: p.checkin_em });
        return { kind: 'double', eventId, otherEventId: other?.id ?? 0 };
      }
      f.repo.markCheckedIn(p.id, fact.at, terminal, operator);
      f.repo.enter(tenant, fact.area, p.id, day, fact.at);
      break;
    }
    case 'entrada':
    case 'reentrada':
      f.repo.enter(tenant, fact.area, p.id, day, fact.at);
      break;
    case 'saida':
      f.repo.leave(tenant, fact.area, p.id, day, fact.at);
      break;
    case 'estorno': {
      // A reversal undoes a check-in made before it: one made later (a box that decided alone, published late) stands.
      if (!p.checkin_em || Date.parse(fact.at) < Date.parse(p.checkin_em))
        return { kind: 'recorded', eventId, changed: false };
      if (fact.undoes && q.activeCheckin.get(f.db, { personId: p.id, at: p.checkin_em })?.site_id !== fact.undoes)
        return { kind: 'recorded', eventId, changed: false };
      f.repo.markReversed(p.id, p.checkin_em, fact.at, terminal, operator);
      f.repo.leaveAll(p.id, fact.at);
      break;
    }
  }
  return { kind: 'recorded', eventId, changed: true };
}

function additionalFact(f: Flow, fact: MovementFact, changeState: boolean): FactOutcome {
  const a = f.repo.additionalByQr(f.actor.tenantId, fact.qr);
  if (!a) return { kind: 'unknown' };
  const eventId = record(f, {
    action: fact.action,
    mode: 'adicional',
    code: fact.code,
    qrCode: fact.qr,
    numeroPedido: a.numero_pedido,
    additionalId: a.id,
    result: 'ok',
    ...(fact.details || fact.undoes ? { details: { ...fact.details, ...undoing(fact) } } : {}),
    site: fact.site,
  });
  if (!changeState) return { kind: 'recorded', eventId, changed: false };
  if (fact.action === 'checkin') {
    f.repo.redeemUnit(a.id, fact.at, fact.terminal, fact.operator);
    return { kind: 'recorded', eventId, changed: true };
  }
  if (fact.action !== 'estorno') return { kind: 'recorded', eventId, changed: false };
  const last = f.repo
    .redemptions(a.id)
    .filter((u) => u.estornado_em === null)
    .at(-1);
  const changed = last !== undefined && f.repo.reverseUnit(last.id, fact.at, fact.terminal, fact.operator);
  return { kind: 'recorded', eventId, changed };
}

/** A check-in another door decided on its own (a handheld offline): what it scanned, when, where and by whom. */
export type DoorCheckinFact = Pick<
  MovementFact,
  'code' | 'at' | 'area' | 'terminal' | 'operator' | 'source' | 'details'
>;

export type DoorCheckin =
  /** Nothing here matches what the door let in: a code unknown here, a group with nobody for that day. */
  | { kind: 'unknown' }
  /** Recorded, one outcome per ticket it moved; `status` is the order's here now. */
  | { kind: 'known'; status: string; outcomes: FactOutcome[] };

/**
 * Records a check-in decided at another door, found as the box's own check-in finds a code (person QR, group QR,
 * additional QR). Of a group, the people not checked in here who were valid on the decision's day, or all of those
 * when all already were (a double entry of the group); an additional's unit beyond the quantity bought is a double.
 */
export function applyDoorCheckin(f: Flow, fact: DoorCheckinFact): DoorCheckin {
  const tenant = f.actor.tenantId;
  const apply = (kind: MovementFact['kind'], qr: string, mode: MovementFact['mode']) =>
    applyFact(f, { ...fact, action: 'checkin', kind, qr, mode }, true);
  const person = f.repo.personByQr(tenant, fact.code);
  if (person) return { kind: 'known', status: person.status, outcomes: [apply('person', person.qr_code, 'qr')] };
  const order = mayBeGroup(fact.code) ? f.repo.orderByNumero(tenant, fact.code) : undefined;
  if (order) {
    const day = f.cal.dayOf(fact.at);
    const valid = f.repo.peopleOfOrder(order.id).filter((p) => dateRefusal(p, day, p.qr_code) === null);
    const pending = valid.filter((p) => p.checkin_em === null);
    const moved = pending.length > 0 ? pending : valid;
    if (moved.length === 0) return { kind: 'unknown' };
    return { kind: 'known', status: order.status, outcomes: moved.map((p) => apply('person', p.qr_code, 'combo')) };
  }
  const additional = mayBeAdditional(fact.code) ? f.repo.additionalByQr(tenant, fact.code) : undefined;
  if (!additional) return { kind: 'unknown' };
  const outcome = apply('additional', fact.code, 'adicional');
  const active = f.repo.redemptions(additional.id).filter((u) => u.estornado_em === null).length;
  const over = outcome.kind === 'recorded' && active > additional.quantidade;
  return {
    kind: 'known',
    status: additional.status,
    outcomes: [over ? { kind: 'double', eventId: outcome.eventId, otherEventId: 0 } : outcome],
  };
}
