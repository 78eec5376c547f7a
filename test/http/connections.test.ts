import type { AddressInfo } from 'node:net';
import net from 'node:net';
import path from 'node:path';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/auth/api-keys.js';
import { createFixedClock } from '../../src/clock.js';
import { migrateToLatest, openDatabase, type Db } from '../../src/db/open.js';
import { HTTP_LIMITS, type HttpLimits } from '../../src/http/connections.js';
import { ensureTenant } from '../../src/tenants/tenants.repo.js';
import { bootBox, tempDir, TZ } from '../support/box.js';

// The box's HTTP server against a hostile LAN, on a real listener: idle, dribbling and stalled
// connections are closed, one address cannot hold every socket, parser errors come in the envelope,
// and a refused upload is not read to its end. Short limits here; the defaults are in docs/security.md.

// The attackers come from other loopback addresses (127.0.0.2...): 127.0.0.1 is uncapped, as the box itself.
const LIMITS: HttpLimits = {
  ...HTTP_LIMITS,
  idleMs: 1500,
  headersMs: 700,
  requestMs: 1000,
  keepAliveMs: 500,
  perAddress: 40,
};
const cleanups: (() => Promise<unknown> | unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function start() {
  const dir = tempDir('gate-conn-');
  const db: Db = openDatabase(path.join(dir, 'gate.db'));
  await migrateToLatest(db);
  const clock = createFixedClock(TZ, '2026-11-21T13:00:00.000Z');
  const tenantId = ensureTenant(db, 'parque', clock.nowIso());
  const { key } = createApiKey(db, { tenantId, name: 'catraca', permissions: ['checkin'], nowIso: clock.nowIso() });
  const lines: string[] = [];
  const logger = pino({ level: 'warn' }, { write: (l: string) => void lines.push(l) });
  const { app, close: closeBox } = await bootBox({ db, clock, logger, httpLimits: LIMITS });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const port = (app.server.address() as AddressInfo).port;
  cleanups.push(
    () => db.close(),
    () => closeBox(),
  );
  return { port, key, lines };
}

/** A raw socket from a given loopback address; resolves once connected. */
function connect(
  port: number,
  from = '127.0.0.1',
): Promise<net.Socket & { gone: Promise<number>; received: () => string }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ port, host: '127.0.0.1', localAddress: from });
    let data = '';
    const opened = Date.now();
    socket.on('data', (c) => (data += c.toString('latin1')));
    socket.on('error', () => {});
    const closed = new Promise<number>((r) => socket.once('close', () => r(Date.now() - opened)));
    cleanups.push(() => socket.destroy());
    socket.once('connect', () => resolve(Object.assign(socket, { gone: closed, received: () => data })));
    socket.once('error', reject);
  });
}

async function checkIn(port: number, key: string) {
  const started = Date.now();
  const res = await fetch(`http://127.0.0.1:${port}/api/v1/api-qrcode-checkin`, {
    method: 'POST',
    headers: { 'x-api-key': key, 'content-type': 'application/json' },
    body: '{"qr_code":"NINGUEM"}',
  });
  return { status: res.status, code: ((await res.json()) as any).error?.code, ms: Date.now() - started };
}

async function raw(port: number, request: string | Buffer) {
  const socket = await connect(port);
  socket.write(request);
  await socket.gone;
  const text = socket.received();
  const [head, body] = [text.slice(0, text.indexOf('\r\n\r\n')), text.slice(text.indexOf('\r\n\r\n') + 4)];
  return { status: Number(head.split(' ')[1]), head, body: body ? JSON.parse(body) : null };
}

describe('HTTP connections', () => {
  it('idle sockets, dribbling headers and a stalled body are closed; one address gets its share; check-ins keep answering', async () => {
    const { port, key, lines } = await start();
    const idle = await Promise.all(Array.from({ length: 200 }, () => connect(port, '127.0.0.2')));
    const closedAt = await Promise.all(idle.map((s) => s.gone));
    expect((await checkIn(port, key)).code).toBe('TICKET_NOT_FOUND');
    // Over the cap: closed at once; the rest by the idle timeout.
    expect(closedAt.filter((ms) => ms < LIMITS.idleMs / 2).length).toBe(200 - LIMITS.perAddress);
    expect(closedAt.every((ms) => ms < LIMITS.idleMs + 1500)).toBe(true);
    expect(lines.filter((l) => l.includes('too many connections')).map((l) => JSON.parse(l).endereco)).toEqual([
      '127.0.0.2',
    ]);

    const dribble = await connect(port, '127.0.0.3');
    dribble.write('POST /api/v1/api-qrcode-checkin HTTP/1.1\r\nHost: box\r\n');
    const drip = setInterval(() => dribble.writable && dribble.write('X-Slow: 1\r\n'), 100);
    const stalled = await connect(port, '127.0.0.4');
    stalled.write(
      `POST /api/v1/api-qrcode-checkin HTTP/1.1\r\nHost: box\r\nX-API-Key: ${key}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"qr_code":`,
    );
    const during = await checkIn(port, key);
    const [dribbled, stall] = await Promise.all([dribble.gone, stalled.gone]);
    clearInterval(drip);
    expect(during.code).toBe('TICKET_NOT_FOUND');
    expect(dribbled).toBeLessThan(LIMITS.headersMs + 1500);
    expect(stall).toBeLessThan(LIMITS.requestMs + 1500);
  }, 20_000);

  it.each([
    [
      'Content-Length with Transfer-Encoding',
      'POST /api/v1/api-qrcode-checkin HTTP/1.1\r\nHost: b\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n',
      400,
      'BAD_REQUEST',
    ],
    [
      'a bad chunk size',
      'POST /api/console/entrar HTTP/1.1\r\nHost: b\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nabc\r\n',
      400,
      'BAD_REQUEST',
    ],
    [
      'a bad Content-Length',
      'POST /api/v1/api-qrcode-checkin HTTP/1.1\r\nHost: b\r\nContent-Length: abc\r\n\r\n',
      400,
      'BAD_REQUEST',
    ],
    ['a raw space in the URL', 'GET /api/local/ocu pacao HTTP/1.1\r\nHost: b\r\n\r\n', 400, 'BAD_REQUEST'],
    ['an HTTP/1.1 request without Host', 'GET /health/live HTTP/1.1\r\n\r\n', 400, 'BAD_REQUEST'],
    [
      'headers over 16 KB',
      `GET /health HTTP/1.1\r\nHost: b\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
      431,
      'HEADERS_TOO_LARGE',
    ],
  ])('the parser refusing %s answers in the envelope', async (_name, request, status, code) => {
    const { port } = await start();
    const res = await raw(port, request);
    expect(res.status).toBe(status);
    expect(res.head).toMatch(/content-type: application\/json/i);
    expect(res.body).toEqual({ success: false, error: { code, message: expect.any(String) } });
  });

  it('a request refused by its key before its malformed body gets that one answer, then the connection closes', async () => {
    const { port } = await start();
    const res = await raw(
      port,
      'POST /api/v1/api-qrcode-checkin HTTP/1.1\r\nHost: b\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nabc\r\n',
    );
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ success: false, error: { code: 'MISSING_API_KEY', message: expect.any(String) } });
  });

  it("an HTTP/1.0 request without Host is served (Host is HTTP/1.1's): the answer, then the connection closes", async () => {
    const { port } = await start();
    const res = await raw(port, 'GET /health/live HTTP/1.0\r\n\r\n');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ success: true, data: { status: 'ok' } });
  });

  it('an upload refused before its body (no key) is not read to its end: 401, then the connection closes', async () => {
    const { port } = await start();
    const socket = await connect(port);
    socket.write(
      'POST /api/v1/api-qrcode-checkin HTTP/1.1\r\nHost: b\r\nContent-Type: application/json\r\nContent-Length: 104857600\r\n\r\n',
    );
    const chunk = Buffer.alloc(1024 * 1024, 0x20);
    let sent = 0;
    let open = true;
    void socket.gone.then(() => (open = false));
    while (open && sent < 100 * 1024 * 1024) {
      if (!socket.write(chunk))
        await new Promise((r) => {
          socket.once('drain', r);
          socket.once('close', r);
        });
      sent += chunk.length;
    }
    await socket.gone;
    expect(socket.received()).toMatch(/^HTTP\/1.1 401/);
    expect(socket.received()).toContain('"MISSING_API_KEY"');
    expect(sent).toBeLessThan(50 * 1024 * 1024);
  }, 20_000);
});
