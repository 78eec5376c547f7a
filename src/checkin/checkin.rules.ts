import { AppError } from '../http/errors.js';
import type { Refusal } from './result.js';

// Pure rules of check-in and reversal: no I/O, fixed inputs in tests.

export const GROUP_QR = /^\d{8}-\d{4}$/;
export const ADDITIONAL_QR_LENGTH = 14;
/** A batch is one transaction: a larger one would hold every other check-in of the box meanwhile. */
export const MAX_BATCH_CODES = 1000;
/**
 * The longest code taken: far above any real ticket (a person QR is a 36-character UUID, a group QR
 * 13, an additional's 14; an OSDP reader sends at most 64) and the scanners' default line limit.
 * A longer one is refused before anything is stored, so the event log never keeps more of a code.
 */
export const MAX_CODE_LENGTH = 256;

/** Comma-separated codes, trimmed, empties dropped, duplicates processed once in first-seen order. */
export function splitCodes(raw: string): string[] {
  return [
    ...new Set(
      raw
        .split(',')
        .map((c) => c.trim())
        .filter((c) => c !== ''),
    ),
  ];
}

/**
 * Date validity of a ticket on `today` (tenant-local): dayuse, evento and dia_unico are valid only on
 * their data_uso; dayuse_sem_data is an open-dated ticket and is not gated by date.
 */
export function dateRefusal(
  ticket: { tipo_ingresso: string; data_uso: string },
  today: string,
  qrCode: string,
): Refusal | null {
  if (ticket.tipo_ingresso === 'dayuse_sem_data') return null;
  if (ticket.data_uso < today)
    return { code: 'TICKET_EXPIRED', details: { data_ingresso: ticket.data_uso, data_atual: today, qr_code: qrCode } };
  if (ticket.data_uso > today)
    return { code: 'TICKET_NOT_VALID_YET', details: { data_ingresso: ticket.data_uso, qr_code: qrCode } };
  return null;
}

/** Reversal is allowed only on the tenant-local calendar day of the check-in. */
export function sameDayRefusal(
  checkinLocalDate: string,
  today: string,
  code: string,
  checkinEm: string,
  codeKey: 'qr_code' | 'numero_pedido' = 'qr_code',
): Refusal | null {
  if (checkinLocalDate === today) return null;
  return {
    code: 'ESTORNO_NAO_PERMITIDO',
    details: { [codeKey]: code, checkin_em: checkinEm, data_checkin: checkinLocalDate, data_atual: today },
  };
}

export interface RequestFields {
  qr_code?: string | undefined;
  numero_pedido?: string | undefined;
}

/**
 * Exactly one of qr_code or numero_pedido (blank counts as absent). With `batch` false the qr_code is
 * one code even if it holds a comma (a scanner read is never a batch).
 */
export function requestTarget(
  req: RequestFields,
  batch = true,
): { kind: 'codes'; codes: string[] } | { kind: 'order'; numero: string } {
  const qr = req.qr_code?.trim() ?? '';
  const numero = req.numero_pedido?.trim() ?? '';
  if (qr && numero) throw new AppError('AMBIGUOUS_INPUT');
  if (numero.length > MAX_CODE_LENGTH) throw invalid('body.numero_pedido', `no máximo ${MAX_CODE_LENGTH} caracteres`);
  if (numero) return { kind: 'order', numero };
  const codes = batch ? splitCodes(qr) : qr ? [qr] : [];
  if (codes.length === 0) throw new AppError('MISSING_FIELD');
  if (codes.length > MAX_BATCH_CODES)
    throw invalid('body.qr_code', `no máximo ${MAX_BATCH_CODES} códigos por requisição (recebidos ${codes.length})`);
  const long = codes.findIndex((c) => c.length > MAX_CODE_LENGTH);
  if (long >= 0)
    throw invalid(
      'body.qr_code',
      `cada código tem no máximo ${MAX_CODE_LENGTH} caracteres (o ${long + 1}º tem ${codes[long]!.length})`,
    );
  return { kind: 'codes', codes };
}

const invalid = (campo: string, mensagem: string) =>
  new AppError('VALIDATION_ERROR', { campos: [{ campo, mensagem }] }, `Parâmetros inválidos: ${campo}: ${mensagem}`);

export const batchMessage = (ok: number, failed: number, verb: string) =>
  `${ok + failed} código(s) processado(s): ${ok} ${verb} com sucesso, ${failed} com falha.`;
