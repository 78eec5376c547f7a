import { Pool } from 'undici';
import { CloudUnavailableError, parseJson, successData } from './cloud-envelopes.js';
import { createPageSplitter } from './page-splitter.js';

// The transport under the cloud client (cloud-client.ts): one keep-alive pool, the spec's keys, every
// failure below HTTP as one typed, retryable error.

/** Decodes as undici's body.text() does (a byte-order mark is dropped). */
export const utf8 = new TextDecoder();

export interface CloudClientOptions {
  /** {base_url} of the spec: an origin, optionally with a path prefix. */
  url: string;
  apiKey: string;
  integrationKey: string;
  /** Connect, headers and body timeouts (each), in ms. */
  timeoutMs: number;
  connections?: number;
}

export type CloudDateListener = (date: string | undefined, latencyMs: number) => void;

export type Auth = 'api' | 'integration';
export type Method = 'GET' | 'POST' | 'PATCH';

/** One keep-alive pool to the cloud, the page splitter's worker and who hears the answers' `Date`. */
export interface Link {
  opts: CloudClientOptions;
  /** The base URL's path, without a trailing slash, put before every path of the spec. */
  prefix: string;
  pool: Pool;
  splitter: ReturnType<typeof createPageSplitter>;
  dateListener: CloudDateListener | undefined;
}

export function openLink(opts: CloudClientOptions): Link {
  const base = new URL(opts.url);
  return {
    opts,
    prefix: base.pathname.replace(/\/+$/, ''),
    pool: new Pool(base.origin, {
      connections: opts.connections ?? 4,
      connectTimeout: opts.timeoutMs,
      headersTimeout: opts.timeoutMs,
      bodyTimeout: opts.timeoutMs,
      keepAliveTimeout: 10_000,
    }),
    splitter: createPageSplitter(),
    dateListener: undefined,
  };
}

const headersFor = ({ opts }: Link, auth: Auth, json: boolean) => ({
  accept: 'application/json',
  'user-agent': 'gate-appliance-sync',
  ...(auth === 'api' ? { 'x-api-key': opts.apiKey } : { 'x-integration-key': opts.integrationKey }),
  ...(json ? { 'content-type': 'application/json' } : {}),
});

export async function callBytes(
  link: Link,
  method: Method,
  path: string,
  auth: Auth,
  body: unknown,
  signal: AbortSignal | undefined,
) {
  const signals = [AbortSignal.timeout(link.opts.timeoutMs * 3), ...(signal ? [signal] : [])];
  try {
    const started = performance.now();
    const res = await link.pool.request({
      method,
      path: link.prefix + path,
      headers: headersFor(link, auth, body !== undefined),
      body: body === undefined ? null : JSON.stringify(body),
      signal: AbortSignal.any(signals),
    });
    // A gateway's error page may carry another machine's clock; the application's answers carry the cloud's.
    if (res.statusCode < 500) link.dateListener?.(headerValue(res.headers.date), performance.now() - started);
    return { status: res.statusCode, body: Buffer.from(await res.body.arrayBuffer()) };
  } catch (error) {
    throw asUnavailable(error, signal);
  }
}

export async function call(link: Link, method: Method, path: string, auth: Auth, body: unknown, signal?: AbortSignal) {
  const res = await callBytes(link, method, path, auth, body, signal);
  return { status: res.status, body: parseJson(utf8.decode(res.body), res.status) };
}

export async function get(link: Link, path: string, auth: Auth, signal?: AbortSignal) {
  const res = await call(link, 'GET', path, auth, undefined, signal);
  return successData(res.body, res.status);
}

const headerValue = (h: string | string[] | undefined) => (Array.isArray(h) ? h[0] : h);

export function query(params: Record<string, string | number | boolean | undefined>): string {
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

/**
 * Failures of making the connection, before undici writes a byte of the request (it fails every request queued on a
 * connection that could not be made, undici/lib/dispatcher/client.js `handleConnectError`): the name not resolved, the
 * connection refused (an RST to the SYN; on an open connection a reset is ECONNRESET), undici's own connect timeout,
 * the cloud's certificate refused during the handshake. Anything else may have reached the cloud: a reset or a timeout
 * once connected, a dead keep-alive socket (UND_ERR_SOCKET), an unreachable host reported on an open connection.
 */
const NEVER_SENT_CODES = new Set([
  'ENOTFOUND',
  'EAI_AGAIN',
  'ECONNREFUSED',
  'UND_ERR_CONNECT_TIMEOUT',
  'ERR_TLS_CERT_ALTNAME_INVALID',
  'CERT_HAS_EXPIRED',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
]);

/** Every way a call can fail below HTTP, as one typed, retryable failure. */
export function asUnavailable(error: unknown, signal: AbortSignal | undefined): CloudUnavailableError {
  if (error instanceof CloudUnavailableError) return error;
  const e = error as { code?: string; name?: string; message?: string; cause?: { code?: string } };
  const code = e.code ?? e.cause?.code ?? '';
  const neverSent = NEVER_SENT_CODES.has(code);
  if (signal?.aborted) return new CloudUnavailableError('aborted', 'parada do sincronizador');
  if (code === 'ECONNREFUSED') return new CloudUnavailableError('refused', code, undefined, true);
  if (TIMEOUT_CODES.has(code) || e.name === 'TimeoutError')
    return new CloudUnavailableError('timeout', code || 'tempo total da requisição', undefined, neverSent);
  return new CloudUnavailableError('network', code || e.message || String(error), undefined, neverSent);
}
