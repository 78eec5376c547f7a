// What a rule answers when it says no: a code and the refusal's facts. No HTTP status and no wording:
// each door words a refusal (the HTTP door through the error catalogue, a lane as a deny reason, the
// console in its own sentences). The details are keyed by the spec's wire words because they are
// the facts the answers carry (which code, when it was used, which dates), unchanged by any door.

/** Every refusal of a check-in, a reversal or a movement. */
export type RefusalCode =
  // check-in (spec 7.1)
  | 'TICKET_NOT_FOUND'
  | 'TICKET_ALREADY_USED'
  | 'TICKET_EXPIRED'
  | 'TICKET_NOT_VALID_YET'
  | 'TICKET_CANCELLED'
  | 'ORDER_NOT_FOUND'
  | 'ORDER_NOT_PAID'
  | 'NO_PEOPLE'
  // reversal (spec 7.2)
  | 'ESTORNO_NAO_PERMITIDO'
  | 'SEM_CHECKIN'
  | 'JA_ESTORNADO'
  | 'TENANT_MISMATCH'
  // movements at the box's own doors
  | 'CAPACITY_REACHED'
  | 'SEM_ENTRADA'
  // one code of a batch whose processing failed unexpectedly (the others stand)
  | 'INTERNAL_ERROR';

export interface Refusal {
  code: RefusalCode;
  details?: Record<string, unknown>;
}
