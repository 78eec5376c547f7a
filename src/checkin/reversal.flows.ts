import { AppError } from '../http/errors.js';
import { reversedPerson } from '../orders/order.payload.js';
import type { PersonState } from './checkin.repo.js';
import { sameDayRefusal } from './checkin.rules.js';
import { record, refuse, type Flow, type Outcome } from './flow.js';

// Reversal flows (4.2, 7.2). A reversal clears the active check-in and records who reversed it;
// the person may then check in again (docs/api.md).

const alreadyReversed = (p: PersonState, code: string) =>
  new AppError('JA_ESTORNADO', { qr_code: code, estornado_em: p.estornado_em, estorno_operador: p.estorno_operador, estorno_terminal: p.estorno_dispositivo });

function reverseOne(f: Flow, p: PersonState, mode: 'qr' | 'combo' | 'pedido', code: string) {
  if (!f.repo.markReversed(p.id, p.checkin_em!, f.now, f.actor.terminal, f.actor.operador)) return null;
  record(f, { action: 'estorno', mode, code, qrCode: p.qr_code, numeroPedido: p.numero_pedido, personId: p.id, result: 'ok', details: { checkin_em: p.checkin_em } });
  return reversedPerson({ qr_code: p.qr_code, nome: p.nome, estornado_em: f.now, estorno_dispositivo: f.actor.terminal, estorno_operador: f.actor.operador });
}

export function reversePerson(f: Flow, code: string, p: PersonState): Outcome {
  const ev = { action: 'estorno' as const, mode: 'qr' as const, code, qrCode: p.qr_code, numeroPedido: p.numero_pedido, personId: p.id };
  if (p.checkin_em === null) return refuse(f, ev, p.estornado_em ? alreadyReversed(p, code) : new AppError('SEM_CHECKIN', { qr_code: code }));
  const notToday = sameDayRefusal(f.clock.localDate(p.checkin_em), f.today, code, p.checkin_em);
  if (notToday) return refuse(f, ev, notToday);
  const pessoa = reverseOne(f, p, 'qr', code);
  if (!pessoa) return refuse(f, ev, new AppError('SEM_CHECKIN', { qr_code: code }));
  return { ok: true, data: { message: 'Check-in estornado com sucesso.', pedido: { numero_pedido: p.numero_pedido, pessoa } } };
}

/**
 * Group QR and order mode: reverses every participant with a same-day check-in. SEM_CHECKIN when
 * nobody has an active check-in, JA_ESTORNADO only when every person was already reversed.
 */
export function reverseMany(f: Flow, mode: 'combo' | 'pedido', code: string, order: { id: number; numero_pedido: string }): Outcome {
  const ev = { action: 'estorno' as const, mode, code, numeroPedido: order.numero_pedido };
  const people = f.repo.peopleOfOrder(order.id);
  const active = people.filter((p) => p.checkin_em !== null);
  if (active.length === 0) {
    const reversed = people.filter((p) => p.estornado_em !== null).sort((a, b) => (a.estornado_em! < b.estornado_em! ? 1 : -1));
    if (people.length > 0 && reversed.length === people.length) return refuse(f, ev, alreadyReversed(reversed[0]!, code));
    return refuse(f, ev, new AppError('SEM_CHECKIN', { qr_code: code }));
  }
  const today = active.filter((p) => f.clock.localDate(p.checkin_em!) === f.today);
  if (today.length === 0) {
    const p = active[0]!;
    return refuse(f, ev, sameDayRefusal(f.clock.localDate(p.checkin_em!), f.today, code, p.checkin_em!)!);
  }
  const pessoas = today.map((p) => reverseOne(f, p, mode, code)).filter((p) => p !== null);
  const total = { total_estornados: pessoas.length, total_pessoas: people.length };
  return mode === 'combo'
    ? { ok: true, data: { message: `Estorno do combo realizado: ${pessoas.length} pessoa(s).`, combo_qr_code: code, ...total, pedido: { numero_pedido: order.numero_pedido, pessoas } } }
    : { ok: true, data: { message: `Estorno do pedido realizado: ${pessoas.length} pessoa(s).`, numero_pedido: code, ...total, pedido: { numero_pedido: order.numero_pedido, pessoas } } };
}

type AdditionalState = NonNullable<ReturnType<Flow['repo']['additionalByQr']>>;

/** An additional QR reverses its most recent redeemed unit, on the day it was redeemed. */
export function reverseAdditional(f: Flow, code: string, a: AdditionalState): Outcome {
  const ev = { action: 'estorno' as const, mode: 'adicional' as const, code, qrCode: code, numeroPedido: a.numero_pedido, additionalId: a.id };
  const units = f.repo.redemptions(a.id);
  const active = units.filter((r) => r.reversed_at === null);
  const last = active[active.length - 1];
  if (!last) {
    const reversed = units[units.length - 1];
    if (!reversed) return refuse(f, ev, new AppError('SEM_CHECKIN', { qr_code: code }));
    return refuse(f, ev, new AppError('JA_ESTORNADO', { qr_code: code, estornado_em: reversed.reversed_at, estorno_operador: reversed.reversal_operador, estorno_terminal: reversed.reversal_terminal }));
  }
  const notToday = sameDayRefusal(f.clock.localDate(last.redeemed_at), f.today, code, last.redeemed_at);
  if (notToday) return refuse(f, ev, notToday);
  f.repo.reverseUnit(last.id, f.now, f.actor.terminal, f.actor.operador);
  record(f, { ...ev, result: 'ok', details: { checkin_em: last.redeemed_at } });
  return {
    ok: true,
    data: {
      message: 'Unidade do adicional estornada com sucesso.',
      qr_code: code,
      adicional: { nome: a.nome, quantidade: a.quantidade, unidades_utilizadas: active.length - 1, unidades_restantes: a.quantidade - active.length + 1 },
      pedido: { numero_pedido: a.numero_pedido, estornado_em: f.now, estorno_dispositivo: f.actor.terminal, estorno_operador: f.actor.operador },
    },
  };
}
