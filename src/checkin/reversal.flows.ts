import type { PersonState } from './checkin.repo.js';
import { moved } from './checkin.flows.js';
import { record, refuse, refuseWith, type Flow } from './flow.js';
import type { Reversed, ReversalResult } from './result.js';
import { additionalReversal, manyReversal, mayBeAdditional, mayBeGroup, personReversal } from './rules/index.js';

// Reversal flows (4.2, 7.2): read the facts, ask the rules (rules/reversal.ts), write. A reversal
// clears the active check-in and records who reversed it; the person may then check in again (docs/api.md).

function reversed(
  f: Flow,
  fields: Pick<Reversed, 'target' | 'code' | 'numeroPedido' | 'people'> & Partial<Reversed>,
): Reversed {
  return {
    ok: true,
    at: f.now,
    terminal: f.actor.terminal,
    operador: f.actor.operador,
    totalPessoas: fields.people.length,
    additional: null,
    ...fields,
  };
}

/** A scanned code: a person's QR, a group QR, an additional's QR; else not found, or another tenant's. */
export function reverseCode(f: Flow, code: string): ReversalResult {
  const tenant = f.actor.tenantId;
  const person = f.repo.personByQr(tenant, code);
  if (person) return reversePerson(f, code, person);
  const order = mayBeGroup(code) ? f.repo.orderByNumero(tenant, code) : undefined;
  if (order) return reverseMany(f, 'combo', code, order);
  const additional = mayBeAdditional(code) ? f.repo.additionalByQr(tenant, code) : undefined;
  if (additional) return reverseAdditional(f, code, additional);
  return refuse(
    f,
    { action: 'estorno', mode: 'qr', code, qrCode: code },
    f.repo.existsElsewhere(tenant, code) ? 'TENANT_MISMATCH' : 'TICKET_NOT_FOUND',
    { qr_code: code },
  );
}

export function reverseOrder(f: Flow, numero: string): ReversalResult {
  const order = f.repo.orderByNumero(f.actor.tenantId, numero);
  if (!order)
    return refuse(f, { action: 'estorno', mode: 'pedido', code: numero, numeroPedido: numero }, 'ORDER_NOT_FOUND', {
      numero_pedido: numero,
    });
  return reverseMany(f, 'pedido', numero, order);
}

function reverseOne(f: Flow, p: PersonState, mode: 'qr' | 'combo' | 'pedido', code: string): boolean {
  if (!f.repo.markReversed(p.id, p.checkin_em!, f.now, f.actor.terminal, f.actor.operador)) return false;
  f.repo.leaveAll(p.id, f.now);
  record(f, {
    action: 'estorno',
    mode,
    code,
    qrCode: p.qr_code,
    numeroPedido: p.numero_pedido,
    personId: p.id,
    result: 'ok',
    details: { checkin_em: p.checkin_em },
  });
  return true;
}

export function reversePerson(f: Flow, code: string, p: PersonState): ReversalResult {
  const ev = {
    action: 'estorno' as const,
    mode: 'qr' as const,
    code,
    qrCode: p.qr_code,
    numeroPedido: p.numero_pedido,
    personId: p.id,
  };
  const why = personReversal(f.cal, p, code);
  if (why) return refuseWith(f, ev, why);
  if (!reverseOne(f, p, 'qr', code)) return refuse(f, ev, 'SEM_CHECKIN', { qr_code: code });
  return reversed(f, {
    target: 'person',
    code,
    numeroPedido: p.numero_pedido,
    people: [moved(p)],
  });
}

/** Group QR and order mode: reverses every participant with a check-in of today. */
export function reverseMany(
  f: Flow,
  mode: 'combo' | 'pedido',
  code: string,
  order: { id: number; numero_pedido: string },
): ReversalResult {
  const ev = { action: 'estorno' as const, mode, code, numeroPedido: order.numero_pedido };
  const people = f.repo.peopleOfOrder(order.id);
  const today = manyReversal(f.cal, people, mode, code);
  if (!Array.isArray(today)) return refuseWith(f, ev, today);
  const undone = today.filter((p) => reverseOne(f, p, mode, code)).map(moved);
  return reversed(f, {
    target: mode === 'combo' ? 'group' : 'order',
    code,
    numeroPedido: order.numero_pedido,
    people: undone,
    totalPessoas: people.length,
  });
}

type AdditionalState = NonNullable<ReturnType<Flow['repo']['additionalByQr']>>;

/** An additional QR reverses its most recent redeemed unit, on the day it was redeemed. */
export function reverseAdditional(f: Flow, code: string, a: AdditionalState): ReversalResult {
  const ev = {
    action: 'estorno' as const,
    mode: 'adicional' as const,
    code,
    qrCode: code,
    numeroPedido: a.numero_pedido,
    additionalId: a.id,
  };
  const units = f.repo.redemptions(a.id);
  const decided = additionalReversal(f.cal, units, code);
  if (!('unit' in decided)) return refuseWith(f, ev, decided);
  const last = decided.unit;
  const active = units.filter((u) => u.estornado_em === null).length;
  f.repo.reverseUnit(last.id, f.now, f.actor.terminal, f.actor.operador);
  record(f, { ...ev, result: 'ok', details: { checkin_em: last.checkin_em } });
  return reversed(f, {
    target: 'additional',
    code,
    numeroPedido: a.numero_pedido,
    people: [],
    additional: { nome: a.nome, quantidade: a.quantidade, used: active - 1 },
  });
}
