import { setImmediate as yieldToLoop } from 'node:timers/promises';
import { z } from 'zod';
import { describeIssues } from '../lib/zod-issues.js';

// The cloud's envelopes (spec part 1 and 7). The list envelopes are "not shown" in the spec, so a
// list's `data` is accepted as the array itself or as an object holding it under one of the names
// the box (and plausible cloud versions) use; docs/sync.md lists them.

/** Why a call to the cloud did not produce an answer the box can use. All of these are retried. */
export type TransientKind =
  | 'refused'
  | 'timeout'
  | 'network'
  | 'server'
  | 'rate-limited'
  | 'auth'
  | 'call-refused'
  | 'malformed'
  | 'envelope'
  | 'aborted';

const KIND_TEXT: Record<TransientKind, string> = {
  refused: 'conexão recusada',
  timeout: 'tempo esgotado',
  network: 'falha de rede',
  server: 'erro do servidor da nuvem',
  'rate-limited': 'limite de requisições da nuvem',
  auth: 'chave da nuvem recusada',
  'call-refused': 'chamada recusada pela nuvem',
  malformed: 'resposta que não é JSON',
  envelope: 'resposta fora do formato esperado',
  aborted: 'interrompido',
};

/**
 * A failure of the call as a whole; never a per-item result. `neverSent`: the request provably never left the box (no
 * connection was made), so the cloud cannot have applied it; otherwise it may have.
 */
export class CloudUnavailableError extends Error {
  constructor(
    readonly kind: TransientKind,
    detail: string,
    readonly status?: number,
    readonly neverSent = false,
  ) {
    super(`${KIND_TEXT[kind]}: ${detail}`);
  }
}

const errorBody = z.object({
  code: z.string(),
  message: z.string().optional(),
  details: z.record(z.string(), z.unknown()).optional(),
});
export type CloudErrorBody = z.output<typeof errorBody>;
const errorEnvelope = z.object({ success: z.literal(false), error: errorBody });
const okEnvelope = z.object({ success: z.literal(true), data: z.unknown() });

/** Request Timeout and Too Early: statuses of a call the server did not process (RFC 9110 15.5.9, RFC 8470 5.2). */
const CALL_STATUSES = new Set([408, 425]);

/** Auth failures are about the box's keys, not about the item: the call is retried once they are fixed. */
export const AUTH_CODES = new Set(['MISSING_API_KEY', 'INVALID_API_KEY', 'PERMISSION_DENIED', 'AUTH_ERROR']);

/** Array keys a list's `data` object may use, in the order they are tried. */
export const LIST_KEYS = ['pedidos', 'vouchers', 'clientes', 'combos', 'items', 'itens', 'data'] as const;

export function parseJson(text: string, status: number): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new CloudUnavailableError('malformed', `HTTP ${status}, ${text.length} bytes`, status);
  }
}

/** The `data` of a successful call; an error envelope becomes the right failure. */
export function successData(body: unknown, status: number): unknown {
  if (status >= 500) throw new CloudUnavailableError('server', `HTTP ${status}`, status);
  if (status === 429) throw new CloudUnavailableError('rate-limited', 'HTTP 429', status);
  const failed = errorEnvelope.safeParse(body);
  if (failed.success) {
    const code = failed.data.error.code;
    if (AUTH_CODES.has(code) || status === 401)
      throw new CloudUnavailableError('auth', `${code} (HTTP ${status})`, status);
    throw new CloudUnavailableError('envelope', `${code} (HTTP ${status})`, status);
  }
  const ok = okEnvelope.safeParse(body);
  if (!ok.success || status !== 200)
    throw new CloudUnavailableError('envelope', `HTTP ${status} sem { success: true, data }`, status);
  return ok.data.data;
}

/**
 * The array of a list response: `data` itself, or the first array under LIST_KEYS; an empty page may carry only
 * `mensagem`.
 */
export function listItems(data: unknown): unknown[] {
  if (Array.isArray(data)) return data;
  if (data && typeof data === 'object') {
    const record = data as Record<string, unknown>;
    for (const key of LIST_KEYS) if (Array.isArray(record[key])) return record[key];
    if (typeof record.mensagem === 'string' && !Object.values(record).some((v) => Array.isArray(v))) return [];
  }
  throw new CloudUnavailableError('envelope', 'data não contém a lista');
}

export interface Rejected {
  ref: string;
  reason: string;
}

/** Why a record of the cloud does not fit the import schema, in a line (kept in sync_rejects). */
export const rejectReason = (error: z.ZodError) => describeIssues(error).slice(0, 3).join('; ');

/** Longest run of validation between two turns of the event loop: a page of 1000 orders takes 20–40 ms. */
const PARSE_SLICE_MS = 3;

/**
 * Parses each item with the import schema; an item that does not fit is set aside, never the whole
 * page. Yields to the event loop between slices, so check-ins are not held up by a big page.
 */
export async function parseEach<T>(
  items: unknown[],
  schema: z.ZodType<T, unknown>,
  refOf: (raw: unknown, index: number) => string,
) {
  const ok: T[] = [];
  const rejected: Rejected[] = [];
  // The caller has just parsed the JSON of the page: that was a slice already.
  let sliceStart = -Infinity;
  for (let i = 0; i < items.length; i++) {
    if (performance.now() - sliceStart > PARSE_SLICE_MS) {
      await yieldToLoop();
      sliceStart = performance.now();
    }
    const parsed = schema.safeParse(items[i]);
    if (parsed.success) ok.push(parsed.data);
    else rejected.push({ ref: refOf(items[i], i), reason: rejectReason(parsed.error) });
  }
  return { items: ok, rejected, received: items.length };
}

export const fieldOf = (raw: unknown, field: string): string | undefined => {
  const v = raw && typeof raw === 'object' ? (raw as Record<string, unknown>)[field] : undefined;
  return typeof v === 'string' || typeof v === 'number' ? String(v) : undefined;
};

// Check-in and reversal answers (4.1, 4.2). Only what the outbox needs is read; the order inside
// is not re-validated, it is the cloud's business.
const batchItem = z.object({
  qr_code: z.string(),
  success: z.boolean(),
  status: z.number().optional(),
  error: errorBody.optional(),
  checkin_em: z.string().nullish(),
  pedido: z.unknown().optional(),
});
const batchData = z.object({ resultados: z.array(batchItem) });

/** What the cloud said about one code of a check-in or reversal call. */
export interface ItemResult {
  code: string;
  ok: boolean;
  status: number;
  error?: CloudErrorBody;
  /** checkin_em (check-in) or estornado_em (reversal) as the cloud reported it. */
  at: string | null;
}

const str = (v: unknown) => (typeof v === 'string' ? v : null);
const pessoaEstornadoEm = (data: unknown) => {
  const pedido = (data as { pedido?: { pessoa?: { estornado_em?: unknown } } } | undefined)?.pedido;
  return str(pedido?.pessoa?.estornado_em);
};
const detailsAt = (error: CloudErrorBody | undefined) =>
  str(error?.details?.checkin_em) ?? str(error?.details?.estornado_em);

function itemFromData(code: string, data: unknown): ItemResult {
  const d = (data ?? {}) as Record<string, unknown>;
  return { code, ok: true, status: 200, at: str(d.checkin_em) ?? pessoaEstornadoEm(d) };
}

/**
 * One result per code sent. A single code gets the single-code answer (its own HTTP status); two or
 * more get the batch answer (HTTP 200, `resultados[]`). A code missing from the answer makes the
 * whole answer unusable: it is retried.
 */
export function checkinResults(codes: readonly string[], body: unknown, status: number): ItemResult[] {
  if (status >= 500) throw new CloudUnavailableError('server', `HTTP ${status}`, status);
  if (status === 429) throw new CloudUnavailableError('rate-limited', 'HTTP 429', status);
  const failed = errorEnvelope.safeParse(body);
  if (failed.success) {
    const error = failed.data.error;
    if (AUTH_CODES.has(error.code) || status === 401)
      throw new CloudUnavailableError('auth', `${error.code} (HTTP ${status})`, status);
    // The spec answers several codes with 200 and a result each (4.1, rule 3): an error for the whole call is about
    // the call (too large, timed out, malformed), not about its tickets, and settles none of them. It is sent again
    // later, and after a few failures each code goes alone (push.ts, isolateAfter). For one code the error is that
    // code's answer, unless its status says the call never got that far.
    if (codes.length > 1 || CALL_STATUSES.has(status))
      throw new CloudUnavailableError('call-refused', `${error.code} (HTTP ${status})`, status);
    return codes.map((code) => ({ code, ok: false, status, error, at: detailsAt(error) }));
  }
  const ok = okEnvelope.safeParse(body);
  if (!ok.success || status !== 200)
    throw new CloudUnavailableError('envelope', `HTTP ${status} sem { success: true, data }`, status);
  const batch = batchData.safeParse(ok.data.data);
  if (!batch.success) {
    if (codes.length === 1) return [itemFromData(codes[0]!, ok.data.data)];
    throw new CloudUnavailableError('envelope', 'lote sem resultados[]');
  }
  const byCode = new Map(batch.data.resultados.map((r) => [r.qr_code.trim(), r]));
  return codes.map((code) => {
    const r = byCode.get(code);
    if (!r)
      throw new CloudUnavailableError(
        'envelope',
        `resultados[] sem o código enviado na posição ${codes.indexOf(code)}`,
      );
    if (r.success) return { ...itemFromData(code, r), status: r.status ?? 200 };
    return { code, ok: false, status: r.status ?? 0, ...(r.error ? { error: r.error } : {}), at: detailsAt(r.error) };
  });
}
