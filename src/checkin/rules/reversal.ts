import { isToday, type Calendar } from './calendar.js';
import type { PersonFacts, UnitFacts } from './checkin.js';
import type { Refusal } from './refusal.js';

// Reversal rules (spec 4.2, 7.2): only an active check-in, only on its park-local calendar day.

type Reversible = Pick<PersonFacts, 'checkin_em' | 'estornado_em' | 'estorno_operador' | 'estorno_dispositivo'>;

const alreadyReversed = (r: Omit<Reversible, 'checkin_em'>, code: string): Refusal => ({
  code: 'JA_ESTORNADO',
  details: {
    qr_code: code,
    estornado_em: r.estornado_em,
    estorno_operador: r.estorno_operador,
    estorno_terminal: r.estorno_dispositivo,
  },
});

const noCheckin = (code: string): Refusal => ({ code: 'SEM_CHECKIN', details: { qr_code: code } });

/** Reversal is allowed only on the park-local calendar day of the check-in. */
export function sameDay(
  cal: Calendar,
  checkinEm: string,
  code: string,
  codeKey: 'qr_code' | 'numero_pedido' = 'qr_code',
): Refusal | null {
  const day = cal.dayOf(checkinEm);
  if (day === cal.today) return null;
  return {
    code: 'ESTORNO_NAO_PERMITIDO',
    details: { [codeKey]: code, checkin_em: checkinEm, data_checkin: day, data_atual: cal.today },
  };
}

/** One person's QR: their active check-in of today. */
export function personReversal(cal: Calendar, p: Reversible, code: string): Refusal | null {
  if (p.checkin_em === null) return p.estornado_em ? alreadyReversed(p, code) : noCheckin(code);
  return sameDay(cal, p.checkin_em, code);
}

/**
 * Group QR and order mode: everyone with a check-in of today. SEM_CHECKIN when nobody has an active
 * check-in, JA_ESTORNADO only when every person was already reversed (the latest reversal's facts).
 */
export function manyReversal<P extends Reversible>(
  cal: Calendar,
  people: P[],
  mode: 'combo' | 'pedido',
  code: string,
): P[] | Refusal {
  const active = people.filter((p) => p.checkin_em !== null);
  if (active.length === 0) {
    const done = people
      .filter((p) => p.estornado_em !== null)
      .sort((a, b) => (a.estornado_em! < b.estornado_em! ? 1 : -1));
    return people.length > 0 && done.length === people.length ? alreadyReversed(done[0]!, code) : noCheckin(code);
  }
  const today = active.filter((p) => isToday(cal, p.checkin_em));
  if (today.length > 0) return today;
  return sameDay(cal, active[0]!.checkin_em!, code, mode === 'pedido' ? 'numero_pedido' : 'qr_code')!;
}

/** An additional's QR: its most recent unit not reversed, on the day it was redeemed. */
export function additionalReversal<U extends UnitFacts>(
  cal: Calendar,
  units: U[],
  code: string,
): { unit: U } | Refusal {
  const active = units.filter((u) => u.estornado_em === null);
  const last = active[active.length - 1];
  if (!last) {
    const done = units[units.length - 1];
    return done ? alreadyReversed(done, code) : noCheckin(code);
  }
  return sameDay(cal, last.checkin_em, code) ?? { unit: last };
}
