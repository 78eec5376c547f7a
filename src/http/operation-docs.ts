import type { z } from 'zod';
import type { ErrorCode } from './errors.js';

// What a route's docs say (read by openapi.ts into /docs and by answer-schemas.ts into the route's response
// schema), and the example details of error codes the docs share.

export interface Example {
  summary: string;
  value: unknown;
}

/** The 200 answer: the schema of its JSON body, examples, other media types. */
export interface Answer {
  description: string;
  /**
   * The answer's one schema (the feature's *.answers.ts): /docs shows its input side (the wire shape) and
   * buildApp makes it the route's 200 response schema (answer-schemas.ts).
   */
  schema?: z.ZodType;
  examples?: Record<string, Example>;
  /** Media types other than JSON (CSV, Prometheus text, an event stream), with an example text. */
  other?: Record<string, { example: string }>;
  /** Response headers and what they mean. */
  headers?: Record<string, string>;
  /**
   * false: the route answers pages of up to thousands of rows, and checking one against the schema would cost
   * several times building it, on the gate's event loop (500 clients: 11 ms against 2 ms for JSON.stringify). Its
   * answers are checked by test/http/answer-schemas.test.ts only (docs/architecture.md, "Answers").
   */
  checked?: false;
}

export interface OperationDocs {
  /** What the operation does, in the repository's own words (no reference outside the repository). */
  description: string;
  ok: Answer;
  /**
   * Codes this operation answers with besides the ones every operation of its kind has (credentials,
   * body, query and path, INTERNAL_ERROR, SERVICE_UNAVAILABLE: see commonErrors).
   */
  errors?: readonly ErrorCode[];
  /** Permissions the key needs: the PERMISSION_DENIED example names them. */
  permissions?: readonly string[];
  /** Example details of a code where this operation's differ from the usual ones (DETAILS). */
  details?: Partial<Record<ErrorCode, readonly Variant[]>>;
  /** The credentials, for a route whose schema does not say them (the console's, documented by a table). */
  security?: Record<string, string[]>[] | undefined;
}

/**
 * One example of an error code: its details (none: code and message only) and, when a code has several, what tells it
 * apart.
 */
export interface Variant {
  label?: string;
  details?: Record<string, unknown>;
}

/** `METHOD /path` of a route, as the tables of docs for routes without their own use. */
export const routeKey = (method: string, url: string) => `${method.toUpperCase()} ${url}`;

const QR = 'a1b2c3d4-0000-4000-8000-000000000001';
const NUMERO = '20261121-0042';

/** Example details per code: the keys the spec gives (part 7) and, where it is silent, docs/api.md's. */
export const DETAILS: Partial<Record<ErrorCode, readonly Variant[]>> = {
  TICKET_NOT_FOUND: [{ details: { qr_code: 'QR-DESCONHECIDO' } }],
  TICKET_ALREADY_USED: [
    { details: { qr_code: QR, checkin_em: '2026-11-21T12:31:07.000Z' } },
    { label: 'combo', details: { combo_qr_code: NUMERO, total_pessoas: 4 } },
    { label: 'pedido', details: { numero_pedido: NUMERO, total_pessoas: 4 } },
    {
      label: 'adicional',
      details: {
        qr_code: 'AD7K2M9Q4X1B3C',
        checkin_em: '2026-11-21T12:40:00.000Z',
        quantidade: 2,
        unidades_utilizadas: 2,
      },
    },
  ],
  TICKET_EXPIRED: [{ details: { data_ingresso: '2026-11-20', data_atual: '2026-11-21', qr_code: QR } }],
  TICKET_NOT_VALID_YET: [{ details: { data_ingresso: '2026-11-22', qr_code: QR } }],
  TICKET_CANCELLED: [{ details: { qr_code: QR, status: 'cancelado' } }],
  ORDER_NOT_FOUND: [{ details: { numero_pedido: NUMERO } }],
  ORDER_NOT_PAID: [{ details: { numero_pedido: NUMERO, status: 'reembolsado' } }],
  NO_PEOPLE: [{ details: { numero_pedido: NUMERO } }],
  ESTORNO_NAO_PERMITIDO: [
    {
      details: {
        qr_code: QR,
        checkin_em: '2026-11-20T14:02:11.000Z',
        data_checkin: '2026-11-20',
        data_atual: '2026-11-21',
      },
    },
  ],
  SEM_CHECKIN: [{ details: { qr_code: QR } }],
  JA_ESTORNADO: [
    {
      details: {
        qr_code: QR,
        estornado_em: '2026-11-21T12:45:00.000Z',
        estorno_operador: 'Joana',
        estorno_terminal: 'catraca-2',
      },
    },
  ],
  TENANT_MISMATCH: [{ details: { qr_code: QR } }],
  RATE_LIMITED: [{ details: { limite: 100, janela_segundos: 60, tentar_novamente_em_segundos: 42 } }],
  VALIDATION_ERROR: [
    { details: { campos: [{ campo: 'querystring.limit', mensagem: 'deve ser um número inteiro decimal' }] } },
  ],
  SERVICE_UNAVAILABLE: [{ label: 'encerrando' }],
  CAPACITY_REACHED: [{ details: { area: 'piscina', capacidade: 120, ocupacao: 120 } }],
  SEM_ENTRADA: [{ details: { qr_code: QR, area: 'parque' } }],
  CREDENCIAIS_INVALIDAS: [{ details: { tentativas_restantes: 4 } }, { label: 'operador desconhecido' }],
  CONTA_BLOQUEADA: [{ details: { bloqueada_ate: '2026-11-21T13:15:00.000Z' } }],
};

/** SERVICE_UNAVAILABLE where the operation writes: also a database that cannot be written (its message says so). */
export const WRITE_REFUSED: readonly Variant[] = [
  { label: 'encerrando' },
  { label: 'sem gravação', details: { motivo: 'SQLITE_FULL' } },
];

/** Security schemes of the box (components.securitySchemes). */
