// What a request names: one or more codes, or an order number. Pure: the same checks for every door.

/** A batch is sliced into transactions, but one request still holds its caller's answer until the end. */
export const MAX_BATCH_CODES = 1000;
/**
 * The longest code taken: far above any real ticket (a person QR is a 36-character UUID, a group QR
 * 13, an additional's 14; an OSDP reader sends at most 64) and the scanners' default line limit.
 * A longer one is refused before anything is stored, so the event log never keeps more of a code.
 */
export const MAX_CODE_LENGTH = 256;
export const GROUP_QR = /^\d{8}-\d{4}$/;
export const ADDITIONAL_QR_LENGTH = 14;

export type InputErrorKind = 'AMBIGUOUS_INPUT' | 'MISSING_FIELD' | 'TOO_MANY_CODES' | 'CODE_TOO_LONG';

/** Which field of the request, in the domain's words (each door knows its own name for it). */
export type InputField = 'code' | 'orderNumber';

export interface InputErrorData {
  field?: InputField;
  /** The limit passed (codes per request, characters per code). */
  limit?: number;
  /** What was sent: how many codes, or how many characters. */
  got?: number;
  /** 1-based position of the offending code in a batch. */
  position?: number;
}

/** A request the rules cannot act on: the caller's mistake, never a refusal of a ticket. */
export class CheckinInputError extends Error {
  constructor(
    readonly kind: InputErrorKind,
    readonly data: InputErrorData = {},
  ) {
    super(kind);
    this.name = 'CheckinInputError';
  }
}

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

export type Target = { kind: 'codes'; codes: string[] } | { kind: 'order'; numero: string };

/**
 * Exactly one of code or orderNumber (blank counts as absent). With `batch` false the code is one
 * code even if it holds a comma (a scanner read is never a batch).
 */
export function requestTarget(
  req: { code?: string | null | undefined; orderNumber?: string | null | undefined },
  batch = true,
): Target {
  const qr = req.code?.trim() ?? '';
  const numero = req.orderNumber?.trim() ?? '';
  if (qr && numero) throw new CheckinInputError('AMBIGUOUS_INPUT');
  if (numero.length > MAX_CODE_LENGTH)
    throw new CheckinInputError('CODE_TOO_LONG', { field: 'orderNumber', limit: MAX_CODE_LENGTH, got: numero.length });
  if (numero) return { kind: 'order', numero };
  const codes = batch ? splitCodes(qr) : qr ? [qr] : [];
  if (codes.length === 0) throw new CheckinInputError('MISSING_FIELD');
  if (codes.length > MAX_BATCH_CODES)
    throw new CheckinInputError('TOO_MANY_CODES', { field: 'code', limit: MAX_BATCH_CODES, got: codes.length });
  const long = codes.findIndex((c) => c.length > MAX_CODE_LENGTH);
  if (long >= 0)
    throw new CheckinInputError('CODE_TOO_LONG', {
      field: 'code',
      limit: MAX_CODE_LENGTH,
      got: codes[long]!.length,
      position: long + 1,
    });
  return { kind: 'codes', codes };
}

/** What kind of thing a code can be, by its shape alone (which tables to look in, in order). */
export const mayBeGroup = (code: string) => GROUP_QR.test(code);
export const mayBeAdditional = (code: string) => code.length === ADDITIONAL_QR_LENGTH;
