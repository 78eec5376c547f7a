import type { PersonState } from './checkin.repo.js';
import { sameDayRefusal } from './checkin.rules.js';
import { record, refuse, type Flow } from './flow.js';
import type { Refusal, Reversed, ReversalResult } from './result.js';

// Reversal flows (4.2, 7.2). A reversal clears the active check-in and records who reversed it;
// the person may then check in again (docs/api.md).

const alreadyReversed = (p: PersonState, code: string): Refusal => ({
  code: 'JA_ESTORNADO',
  details: {
    qr_code: code,
    estornado_em: p.estornado_em,
    estorno_operador: p.estorno_operador,
    estorno_terminal: p.estorno_dispositivo,
  },
});

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
  if (p.checkin_em === null) {
    const why = p.estornado_em
      ? alreadyReversed(p, code)
      : { code: 'SEM_CHECKIN' as const, details: { qr_code: code } };
    return refuse(f, ev, why.code, why.details);
  }
  const notToday = sameDayRefusal(f.clock.localDate(p.checkin_em), f.today, code, p.checkin_em);
  if (notToday) return refuse(f, ev, notToday.code, notToday.details);
  if (!reverseOne(f, p, 'qr', code)) return refuse(f, ev, 'SEM_CHECKIN', { qr_code: code });
  return reversed(f, {
    target: 'person',
    code,
    numeroPedido: p.numero_pedido,
    people: [{ id: p.id, qrCode: p.qr_code, nome: p.nome }],
  });
}

/**
 * Group QR and order mode: reverses every participant with a same-day check-in. SEM_CHECKIN when
 * nobody has an active check-in, JA_ESTORNADO only when every person was already reversed.
 */
export function reverseMany(
  f: Flow,
  mode: 'combo' | 'pedido',
  code: string,
  order: { id: number; numero_pedido: string },
): ReversalResult {
  const ev = { action: 'estorno' as const, mode, code, numeroPedido: order.numero_pedido };
  const people = f.repo.peopleOfOrder(order.id);
  const active = people.filter((p) => p.checkin_em !== null);
  if (active.length === 0) {
    const done = people
      .filter((p) => p.estornado_em !== null)
      .sort((a, b) => (a.estornado_em! < b.estornado_em! ? 1 : -1));
    const why =
      people.length > 0 && done.length === people.length
        ? alreadyReversed(done[0]!, code)
        : { code: 'SEM_CHECKIN' as const, details: { qr_code: code } };
    return refuse(f, ev, why.code, why.details);
  }
  const today = active.filter((p) => f.clock.localDate(p.checkin_em!) === f.today);
  if (today.length === 0) {
    const p = active[0]!;
    const why = sameDayRefusal(
      f.clock.localDate(p.checkin_em!),
      f.today,
      code,
      p.checkin_em!,
      mode === 'pedido' ? 'numero_pedido' : 'qr_code',
    )!;
    return refuse(f, ev, why.code, why.details);
  }
  const undone = today
    .filter((p) => reverseOne(f, p, mode, code))
    .map((p) => ({ id: p.id, qrCode: p.qr_code, nome: p.nome }));
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
  const active = units.filter((r) => r.estornado_em === null);
  const last = active[active.length - 1];
  if (!last) {
    const done = units[units.length - 1];
    if (!done) return refuse(f, ev, 'SEM_CHECKIN', { qr_code: code });
    return refuse(f, ev, 'JA_ESTORNADO', {
      qr_code: code,
      estornado_em: done.estornado_em,
      estorno_operador: done.estorno_operador,
      estorno_terminal: done.estorno_dispositivo,
    });
  }
  const notToday = sameDayRefusal(f.clock.localDate(last.checkin_em), f.today, code, last.checkin_em);
  if (notToday) return refuse(f, ev, notToday.code, notToday.details);
  f.repo.reverseUnit(last.id, f.now, f.actor.terminal, f.actor.operador);
  record(f, { ...ev, result: 'ok', details: { checkin_em: last.checkin_em } });
  return reversed(f, {
    target: 'additional',
    code,
    numeroPedido: a.numero_pedido,
    people: [],
    additional: { nome: a.nome, quantidade: a.quantidade, used: active.length - 1 },
  });
}
