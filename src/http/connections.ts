import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import { STATUS_CODES } from 'node:http';
import { systemClock, type Clock } from '../clock.js';
import type { Log } from '../lib/log.js';
import { AppError, errorEnvelope, type ErrorCode } from './errors.js';

// What the box's HTTP server allows a client on the LAN (docs/security.md): no connection lives
// without sending a whole request, no address holds more than its share of sockets, and the HTTP
// parser's own refusals come in the spec's envelope like every other error.

export interface HttpLimits {
  /** A socket with no traffic at all for this long is closed (Node's server.timeout). */
  idleMs: number;
  /** Headers must be complete this long after the request starts (slowloris). */
  headersMs: number;
  /** The whole request, body included, must arrive within this (a stalled body). */
  requestMs: number;
  /** A kept-alive connection waits this long for the next request. */
  keepAliveMs: number;
  /** Open connections from one address; more are closed at once (a turnstile needs a few). */
  perAddress: number;
  /**
   * Addresses without that cap: the box itself and a local reverse proxy (TLS in front of the box),
   * through which every LAN client would look like one.
   */
  uncapped: readonly string[];
}

export const HTTP_LIMITS: HttpLimits = {
  idleMs: 60_000,
  headersMs: 20_000,
  requestMs: 30_000,
  keepAliveMs: 30_000,
  perAddress: 128,
  uncapped: ['127.0.0.1', '::1', '::ffff:127.0.0.1'],
};

/** Applies the timeouts and the per-address cap to a server; logs the cap once per address a minute. */
export function limitConnections(server: Server, limits: HttpLimits, log: Log, clock: Clock = systemClock): void {
  const now = () => clock.now().getTime();
  server.timeout = limits.idleMs;
  server.headersTimeout = limits.headersMs;
  server.requestTimeout = limits.requestMs;
  server.keepAliveTimeout = limits.keepAliveMs;
  // How often Node checks headersTimeout and requestTimeout (default 30 s): a tenth of the shorter.
  (server as Server & { connectionsCheckingInterval?: number }).connectionsCheckingInterval =
    Math.min(limits.headersMs, limits.requestMs) / 10;
  const open = new Map<string, number>();
  const warned = new Map<string, number>();
  server.on('connection', (socket: Socket) => {
    const address = socket.remoteAddress ?? 'desconhecido';
    if (limits.uncapped.includes(address)) return;
    const count = open.get(address) ?? 0;
    if (count >= limits.perAddress) {
      const last = warned.get(address);
      if (last === undefined || now() - last >= 60_000) {
        warned.set(address, now());
        log.warn(
          { endereco: address, limite: limits.perAddress },
          'too many connections from one address: new ones are closed',
        );
      }
      socket.destroy();
      return;
    }
    open.set(address, count + 1);
    socket.once('close', () => {
      const left = (open.get(address) ?? 1) - 1;
      if (left <= 0) open.delete(address);
      else open.set(address, left);
    });
  });
}

const PARSER_ERRORS: Partial<Record<string, ErrorCode>> = {
  HPE_HEADER_OVERFLOW: 'HEADERS_TOO_LARGE',
  ERR_HTTP_REQUEST_TIMEOUT: 'REQUEST_TIMEOUT',
};

/**
 * fastify's clientErrorHandler: Node's HTTP parser refused the request (conflicting Content-Length
 * and Transfer-Encoding, a bad chunk size, a raw space in the URL, headers over 16 KB, a timeout).
 * The answer is the envelope, and the connection is closed.
 */
export function answerClientError(err: NodeJS.ErrnoException, socket: Socket): void {
  // A request already being answered (refused by its hooks before its body came, then the body was malformed): one
  // answer per request, so the connection just closes.
  const answering = (socket as Socket & { _httpMessage?: { headersSent?: boolean } | null })._httpMessage?.headersSent;
  if (!socket.writable || err.code === 'ECONNRESET' || answering) {
    socket.destroy();
    return;
  }
  const e = new AppError(PARSER_ERRORS[err.code ?? ''] ?? 'BAD_REQUEST');
  const body = JSON.stringify(errorEnvelope(e.toBody()));
  socket.end(
    `HTTP/1.1 ${e.status} ${STATUS_CODES[e.status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}
