import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { Pool } from 'undici';

/**
 * What the proxy does to a request instead of (or on top of) forwarding it:
 * - `hang`: never answers (the client's timeouts fire);
 * - `status`: answers with this HTTP status and an INTERNAL_ERROR envelope, without forwarding;
 * - `malformed`: answers 200 with a truncated JSON body, without forwarding;
 * - `slow`: waits `ms`, then forwards (the cloud applies it even if the client gave up meanwhile);
 * - `lose-reply`: forwards, waits for the cloud's whole answer (it committed), then drops the connection;
 * - `answer`: answers with this status and body, without forwarding (an answer of the cloud's recorded earlier).
 */
export type Fault =
  | { kind: 'hang' }
  | { kind: 'status'; status: number }
  | { kind: 'malformed' }
  | { kind: 'slow'; ms: number }
  | { kind: 'lose-reply' }
  | { kind: 'answer'; status: number; body: Buffer };

export interface SeenRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  body: string;
  /** The fault applied, if any. */
  fault: Fault['kind'] | null;
}

export interface RequestMatch {
  method?: string;
  path?: RegExp;
  /** Every given parameter must have this value. */
  query?: Record<string, string>;
  body?: RegExp;
}

export interface FaultRule {
  fault: Fault;
  match?: RequestMatch;
  /** How many matching requests get it; unlimited when absent. */
  times?: number;
}

const matches = (r: SeenRequest, m: RequestMatch | undefined) =>
  !m ||
  ((!m.method || m.method === r.method) &&
    (!m.path || m.path.test(r.path)) &&
    (!m.body || m.body.test(r.body)) &&
    Object.entries(m.query ?? {}).every(([k, v]) => r.query.get(k) === v));

const FORWARDED = ['x-api-key', 'x-integration-key', 'x-handheld-key', 'content-type', 'accept', 'user-agent'];

/**
 * An HTTP proxy on loopback in front of the fake cloud, with faults injected per request or by outage.
 * `date`: the `Date` header of every answer (the cloud's clock); Node's own clock otherwise.
 */
export async function startFaultProxy(target: string, opts: { record?: boolean; date?: () => Date } = {}) {
  const upstream = new Pool(target, { connections: 8 });
  const rules: FaultRule[] = [];
  const requests: SeenRequest[] = [];
  const sockets = new Set<Socket>();
  const hanging = new Set<http.ServerResponse>();
  let record = opts.record ?? true;

  const server = http.createServer(async (req, res) => {
    if (opts.date) res.setHeader('date', opts.date().toUTCString());
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks);
    const url = new URL(req.url ?? '/', 'http://proxy');
    const seen: SeenRequest = {
      method: req.method ?? 'GET',
      path: url.pathname,
      query: url.searchParams,
      body: rules.length > 0 || record ? body.toString() : '',
      fault: null,
    };
    if (record) requests.push(seen);
    const rule = rules.find((r) => (r.times === undefined || r.times > 0) && matches(seen, r.match));
    if (rule && rule.times !== undefined) rule.times--;
    const fault = rule?.fault;
    seen.fault = fault?.kind ?? null;
    const json = { 'content-type': 'application/json; charset=utf-8' };

    if (fault?.kind === 'hang') {
      hanging.add(res);
      return;
    }
    if (fault?.kind === 'status') {
      res
        .writeHead(fault.status, json)
        .end(
          JSON.stringify({ success: false, error: { code: 'INTERNAL_ERROR', message: 'Erro interno do servidor.' } }),
        );
      return;
    }
    if (fault?.kind === 'answer') {
      res.writeHead(fault.status, json).end(fault.body);
      return;
    }
    if (fault?.kind === 'malformed') {
      res.writeHead(200, json).end('{"success":true,"data":{"pedidos":[{"numero_pedido":"2026');
      return;
    }
    if (fault?.kind === 'slow') await sleep(fault.ms);
    const headers = Object.fromEntries(
      FORWARDED.filter((h) => req.headers[h] !== undefined).map((h) => [h, String(req.headers[h])]),
    );
    try {
      const up = await upstream.request({
        method: seen.method as 'GET',
        path: req.url ?? '/',
        headers,
        body: body.length > 0 ? body : null,
      });
      const answer = Buffer.from(await up.body.arrayBuffer());
      if (fault?.kind === 'lose-reply') {
        req.socket.destroy();
        return;
      }
      res
        .writeHead(up.statusCode, { 'content-type': String(up.headers['content-type'] ?? 'application/json') })
        .end(answer);
    } catch {
      req.socket.destroy();
    }
  });
  server.keepAliveTimeout = 30_000;
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });

  const listen = (port: number) =>
    new Promise<number>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        server.off('error', reject);
        resolve((server.address() as AddressInfo).port);
      });
    });
  const port = await listen(0);
  let up = true;

  const dropConnections = () => {
    for (const r of hanging) r.socket?.destroy();
    hanging.clear();
    for (const s of sockets) s.destroy();
  };

  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    /** Applies `fault` to the next matching requests (all of them when `times` is absent). */
    inject(rule: FaultRule): FaultRule {
      rules.push(rule);
      return rule;
    },
    /** Removes every fault and answers hanging requests' sockets by closing them. */
    clear() {
      rules.length = 0;
      for (const r of hanging) r.socket?.destroy();
      hanging.clear();
    },
    /** Outage: stops listening and drops every connection, so connecting is refused. */
    async down() {
      if (!up) return;
      up = false;
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      dropConnections();
      await closed;
    },
    async up() {
      if (up) return;
      await listen(port);
      up = true;
    },
    setRecording(on: boolean) {
      record = on;
    },
    count(match: RequestMatch) {
      return requests.filter((r) => matches(r, match)).length;
    },
    async close() {
      rules.length = 0;
      dropConnections();
      if (up) await new Promise<void>((resolve) => server.close(() => resolve()));
      up = false;
      await upstream.close();
    },
  };
}

export type FaultProxy = Awaited<ReturnType<typeof startFaultProxy>>;
