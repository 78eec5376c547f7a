import { promisify } from 'node:util';
import zlib from 'node:zlib';
import { Pool } from 'undici';
import { clienteRecordSchema, type ClienteRecord } from '../clients/client.schemas.js';
import { availabilitySchema, comboSchema, type Combo, type ComboAvailability } from '../combos/combo.schemas.js';
import { describeIssues } from '../lib/zod-issues.js';
import {
  CloudUnavailableError,
  checkinResults,
  fieldOf,
  listItems,
  parseEach,
  parseJson,
  successData,
  type ItemResult,
  type Rejected,
} from './cloud-envelopes.js';
import { checkedPage, createPageSplitter, type CheckedPage } from './page-splitter.js';

const gunzip = promisify(zlib.gunzip);
const isGzip = (b: Buffer) => b.length > 2 && b[0] === 0x1f && b[1] === 0x8b;

/** Decodes as undici's body.text() does (a byte-order mark is dropped). */
const utf8 = new TextDecoder();

export { CloudUnavailableError, type ItemResult, type Rejected, type TransientKind } from './cloud-envelopes.js';

export interface CloudClientOptions {
  /** {base_url} of the spec: an origin, optionally with a path prefix. */
  url: string;
  apiKey: string;
  integrationKey: string;
  /** Connect, headers and body timeouts (each), in ms. */
  timeoutMs: number;
  connections?: number;
}

export interface Page<T> {
  items: T[];
  /** Items of the page that did not fit the import schema. */
  rejected: Rejected[];
  /** How many items the cloud returned (valid or not): paging goes by this. */
  received: number;
}

/**
 * A page of orders checked against the import schema off the event loop (page-splitter.ts): each
 * valid order's JSON as the schema outputs it, or why it does not fit; each one's number (or
 * `#position` when it has none); and the body the page came in, as bytes.
 */
export interface VoucherPage extends CheckedPage {
  refs: string[];
  received: number;
  body: Buffer;
  /**
   * What to keep of a page the cloud marked: its bytes gzipped off the event loop (an eighth of
   * them: keeping and deleting 1.2 MB took the event loop 4–5 ms each time). Null for other pages.
   */
  packed: Buffer | null;
}

export interface VoucherQuery {
  sincronizado?: boolean;
  marcar: boolean;
  data_uso?: string;
  limit: number;
  offset: number;
}

export interface ClientQuery {
  sincronizado?: boolean;
  marcar: boolean;
  limit: number;
  offset: number;
}

export interface CheckinActor {
  terminal: string | null;
  operador: string | null;
}

export interface CloudClient {
  listVouchers(q: VoucherQuery, signal?: AbortSignal): Promise<VoucherPage>;
  /**
   * A page of orders kept from an earlier answer (HTTP 200), read again: its bytes gzipped (VoucherPage.packed), or its
   * text when kept by an earlier release.
   */
  readVoucherPage(kept: Buffer | string): Promise<VoucherPage>;
  listClients(q: ClientQuery, signal?: AbortSignal): Promise<Page<ClienteRecord>>;
  listCombos(q: { limit: number; offset: number }, signal?: AbortSignal): Promise<Page<Combo>>;
  comboAvailability(comboId: string, from: string, to: string, signal?: AbortSignal): Promise<ComboAvailability>;
  /**
   * POST (check-in) or PATCH (reversal) api-qrcode-checkin with distinct comma-separated codes: one result per code.
   */
  send(
    action: 'checkin' | 'estorno',
    codes: readonly string[],
    actor: CheckinActor,
    signal?: AbortSignal,
  ): Promise<ItemResult[]>;
  /**
   * Hears the `Date` header of every answer from the cloud's application (below 500), with the milliseconds from
   * request to headers.
   */
  onDate?(listener: CloudDateListener): void;
  close(): Promise<void>;
}

export type CloudDateListener = (date: string | undefined, latencyMs: number) => void;

type Auth = 'api' | 'integration';

/** The box as a client of the cloud's integration API, over one keep-alive pool. Never retries: the worker decides. */
export function createCloudClient(opts: CloudClientOptions): CloudClient {
  const base = new URL(opts.url);
  const prefix = base.pathname.replace(/\/+$/, '');
  const pool = new Pool(base.origin, {
    connections: opts.connections ?? 4,
    connectTimeout: opts.timeoutMs,
    headersTimeout: opts.timeoutMs,
    bodyTimeout: opts.timeoutMs,
    keepAliveTimeout: 10_000,
  });
  const splitter = createPageSplitter();
  let dateListener: CloudDateListener | undefined;
  const headersFor = (auth: Auth, json: boolean) => ({
    accept: 'application/json',
    'user-agent': 'gate-appliance-sync',
    ...(auth === 'api' ? { 'x-api-key': opts.apiKey } : { 'x-integration-key': opts.integrationKey }),
    ...(json ? { 'content-type': 'application/json' } : {}),
  });

  async function call(
    method: 'GET' | 'POST' | 'PATCH',
    path: string,
    auth: Auth,
    body: unknown,
    signal: AbortSignal | undefined,
  ) {
    const res = await callText(method, path, auth, body, signal);
    return { status: res.status, body: parseJson(res.text, res.status) };
  }

  async function callText(
    method: 'GET' | 'POST' | 'PATCH',
    path: string,
    auth: Auth,
    body: unknown,
    signal: AbortSignal | undefined,
  ) {
    const res = await callBytes(method, path, auth, body, signal);
    return { status: res.status, text: utf8.decode(res.body) };
  }

  async function callBytes(
    method: 'GET' | 'POST' | 'PATCH',
    path: string,
    auth: Auth,
    body: unknown,
    signal: AbortSignal | undefined,
  ) {
    const signals = [AbortSignal.timeout(opts.timeoutMs * 3), ...(signal ? [signal] : [])];
    try {
      const started = performance.now();
      const res = await pool.request({
        method,
        path: prefix + path,
        headers: headersFor(auth, body !== undefined),
        body: body === undefined ? null : JSON.stringify(body),
        signal: AbortSignal.any(signals),
      });
      // A gateway's error page may carry another machine's clock; the application's answers carry the cloud's.
      if (res.statusCode < 500) dateListener?.(headerValue(res.headers.date), performance.now() - started);
      return { status: res.statusCode, body: Buffer.from(await res.body.arrayBuffer()) };
    } catch (error) {
      throw asUnavailable(error, signal);
    }
  }

  async function voucherPage(body: Buffer, status: number, offset: number, pack: boolean): Promise<VoucherPage> {
    const split = status === 200 ? await splitter.split(body, pack) : { body: parseJson(utf8.decode(body), status) };
    if ('malformed' in split)
      throw new CloudUnavailableError('malformed', `HTTP ${status}, ${body.length} bytes`, status);
    const { items, refs, reasons, packed } =
      'items' in split ? split : { ...checkedPage(listItems(successData(split.body, status))), packed: null };
    return {
      items,
      refs: refs.map((ref, i) => ref ?? `#${offset + i}`),
      reasons,
      received: items.length,
      body,
      packed,
    };
  }

  const get = async (path: string, auth: Auth, signal?: AbortSignal) => {
    const res = await call('GET', path, auth, undefined, signal);
    return successData(res.body, res.status);
  };

  return {
    async listVouchers(q, signal) {
      const path = `/api/v1/api-vouchers?${query({ ...q, marcar: undefined, marcar_sincronizado: q.marcar, order_by: 'created_at', order: 'asc' })}`;
      const res = await callBytes('GET', path, 'api', undefined, signal);
      return voucherPage(res.body, res.status, q.offset, q.marcar);
    },
    async readVoucherPage(kept) {
      const bytes = typeof kept === 'string' ? Buffer.from(kept) : isGzip(kept) ? await gunzip(kept) : kept;
      return voucherPage(bytes, 200, 0, false);
    },
    async listClients(q, signal) {
      const items = listItems(
        await get(
          `/api/v1/api-clientes?${query({ ...q, marcar: undefined, marcar_sincronizado: q.marcar, order_by: 'created_at', order: 'asc' })}`,
          'api',
          signal,
        ),
      );
      return parseEach(items, clienteRecordSchema, (raw, i) => fieldOf(raw, 'id') ?? `#${q.offset + i}`);
    },
    async listCombos(q, signal) {
      const items = listItems(await get(`/api/integration/combos?${query(q)}`, 'integration', signal));
      return parseEach(items, comboSchema, (raw, i) => fieldOf(raw, 'id') ?? `#${q.offset + i}`);
    },
    async comboAvailability(comboId, from, to, signal) {
      const data = await get(
        `/api/integration/combos/${encodeURIComponent(comboId)}/availability?${query({ date_from: from, date_to: to })}`,
        'integration',
        signal,
      );
      const parsed = availabilitySchema.safeParse(data);
      if (!parsed.success)
        throw new CloudUnavailableError(
          'envelope',
          `disponibilidade do combo ${comboId}: ${describeIssues(parsed.error)[0]}`,
        );
      return parsed.data;
    },
    async send(action, codes, actor, signal) {
      const body = {
        qr_code: codes.join(','),
        ...(actor.terminal ? { terminal: actor.terminal } : {}),
        ...(actor.operador ? { operador: actor.operador } : {}),
      };
      const res = await call(
        action === 'checkin' ? 'POST' : 'PATCH',
        '/api/v1/api-qrcode-checkin',
        'api',
        body,
        signal,
      );
      return checkinResults(codes, res.body, res.status);
    },
    onDate(listener) {
      dateListener = listener;
    },
    close: async () => {
      await splitter.close();
      await pool.close();
    },
  };
}

const headerValue = (h: string | string[] | undefined) => (Array.isArray(h) ? h[0] : h);

function query(params: Record<string, string | number | boolean | undefined>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined) q.set(k, String(v));
  return q.toString();
}

const TIMEOUT_CODES = new Set([
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'ETIMEDOUT',
]);

/** Every way a call can fail below HTTP, as one typed, retryable failure. */
function asUnavailable(error: unknown, signal: AbortSignal | undefined): CloudUnavailableError {
  if (error instanceof CloudUnavailableError) return error;
  const e = error as { code?: string; name?: string; message?: string; cause?: { code?: string } };
  const code = e.code ?? e.cause?.code ?? '';
  if (signal?.aborted) return new CloudUnavailableError('aborted', 'parada do sincronizador');
  if (code === 'ECONNREFUSED') return new CloudUnavailableError('refused', code);
  if (TIMEOUT_CODES.has(code) || e.name === 'TimeoutError')
    return new CloudUnavailableError('timeout', code || 'tempo total da requisição');
  return new CloudUnavailableError('network', code || e.message || String(error));
}
