import type { PushResult } from '../db/schema.js';
import type { ItemResult } from './cloud-envelopes.js';

// What the cloud's answer about one pushed event means for the park (docs/sync.md, "Conflict kinds").
// Pure: fixed inputs in tests.

const TOO_LATE = new Set(['TICKET_EXPIRED', 'TICKET_NOT_VALID_YET', 'ESTORNO_NAO_PERMITIDO']);
const CANCELLED = new Set(['TICKET_CANCELLED', 'ORDER_NOT_PAID']);

/**
 * How far the cloud's clock may trail the box's when telling our own earlier attempt (applied, reply
 * lost) from someone else's use of the ticket. Both clocks are expected to be NTP-synchronised.
 */
export const CLOCK_SKEW_MS = 5_000;

export interface Attempt {
  action: 'checkin' | 'estorno';
  /** Sends of this event before the one that got this answer. */
  priorAttempts: number;
  /**
   * When the box first sent this event in a call that may have reached the cloud (durably recorded before sending);
   * null when none may have: every earlier call failed before connecting (CloudUnavailableError.neverSent).
   */
  firstSentAt: string | null;
}

export interface Classified {
  resultado: PushResult;
  code: string | null;
  message: string | null;
  at: string | null;
}

/**
 * The cloud says "already used" (or "already reversed"): was that our own earlier attempt whose reply
 * was lost? Only if an earlier attempt exists and the cloud's time is at or after our first send: a
 * use before we ever sent the event was someone else's.
 */
export function isOwnEarlierAttempt(a: Attempt, cloudAt: string | null): boolean {
  if (a.priorAttempts === 0 || a.firstSentAt === null || cloudAt === null) return false;
  const at = Date.parse(cloudAt);
  return !Number.isNaN(at) && at >= Date.parse(a.firstSentAt) - CLOCK_SKEW_MS;
}

export function classify(a: Attempt, item: ItemResult): Classified {
  if (item.ok) return { resultado: 'aceito', code: null, message: null, at: item.at };
  const code = item.error?.code ?? `HTTP_${item.status}`;
  const message = item.error?.message ?? null;
  const base = { code, message, at: item.at };
  if (a.action === 'checkin' && code === 'TICKET_ALREADY_USED')
    return isOwnEarlierAttempt(a, item.at)
      ? {
          ...base,
          resultado: 'aceito',
          message: 'Confirmado: um envio anterior deste evento foi aplicado pela nuvem (a resposta se perdeu).',
        }
      : { ...base, resultado: 'ja_utilizado_na_nuvem' };
  if (a.action === 'estorno' && code === 'JA_ESTORNADO' && isOwnEarlierAttempt(a, item.at))
    return {
      ...base,
      resultado: 'aceito',
      message: 'Confirmado: um envio anterior deste estorno foi aplicado pela nuvem (a resposta se perdeu).',
    };
  if (TOO_LATE.has(code)) return { ...base, resultado: 'fora_do_prazo' };
  if (CANCELLED.has(code)) return { ...base, resultado: 'cancelado_na_nuvem' };
  return { ...base, resultado: 'outro' };
}

/** A reversal whose check-in the cloud did not take is not sent: it would undo someone else's entry. */
export const REVERSAL_NOT_SENT = {
  code: 'CHECKIN_NAO_ACEITO',
  message: (previous: PushResult) =>
    `Estorno não enviado: o check-in correspondente não foi aceito pela nuvem (${previous}).`,
};
