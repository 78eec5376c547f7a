import { Writable } from 'node:stream';
import pino from 'pino';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { createOperator } from '../../src/operators/operators.repo.js';
import { bootBox, createTestBox, type TestBox } from '../support/box.js';

// Defect 6.1 of issue 22: a `gate_console` cookie with broken percent-encoding made every console
// route answer 500 and log an error line; anyone on the LAN could do it. It is no session: 401
// SESSAO_INVALIDA in the envelope, and nothing at error level in the log.

let box: TestBox;
let app: App;
let closeBox: (() => Promise<void>) | undefined;
const lines: { level: number; msg?: string }[] = [];

beforeAll(async () => {
  box = await createTestBox();
  await createOperator(box.db, {
    tenantId: box.tenantId,
    nome: 'Ana',
    papel: 'supervisor',
    segredo: '4321',
    nowIso: box.clock.nowIso(),
  });
  // The box as main.ts runs it, with its log captured: the test box runs without one.
  await box.app.close();
  const sink = new Writable({ write: (chunk, _e, done) => (lines.push(JSON.parse(String(chunk))), done()) });
  ({ app, close: closeBox } = await bootBox({ db: box.db, clock: box.clock, logger: pino({ level: 'debug' }, sink) }));
  await app.listen({ host: '127.0.0.1', port: 0 });
});
afterAll(async () => {
  await closeBox?.();
  await box?.close();
});

/**
 * Every route the app serves, as `METHOD /path`, read from fastify's own route tree (printRoutes with full segments:
 * a line's path is its parents' segments and its own).
 */
function appRoutes(): string[] {
  const routes: string[] = [];
  const stack: string[] = [];
  for (const line of app.printRoutes({ commonPrefix: false }).split('\n')) {
    const m = /^((?:│ {3}| {4})*)(?:├── |└── )(\S+)(?: \(([^)]+)\))?$/.exec(line);
    if (!m) continue;
    const depth = m[1]!.length / 4;
    stack.length = depth;
    stack.push(m[2]!);
    for (const method of m[3]?.split(', ') ?? []) routes.push(`${method} ${stack.join('')}`);
  }
  return routes;
}

const BROKEN = ['%zz', '%', 'abc%E0%A4%A', '%C3%28'];
const SAMPLE_PARAMS: Record<string, string> = { numero: '20261121-0001', id: '1' };
const fill = (path: string) => path.replace(/:(\w+)/g, (_m, name: string) => SAMPLE_PARAMS[name] ?? 'x');

describe('a gate_console cookie with broken percent-encoding', () => {
  it('is no session on every console route: 401 SESSAO_INVALIDA in the envelope, never a 5xx, no error-level log line', async () => {
    const routes = appRoutes().filter((r) => r.split(' ')[1]!.startsWith('/api/console/'));
    // Listed from the app itself, so a new console route is covered; these are a few that must be among them.
    expect(routes).toEqual(
      expect.arrayContaining([
        'GET /api/console/sessao',
        'GET /api/console/eventos',
        'POST /api/console/leitura',
        'POST /api/console/operadores/:id/desativar',
      ]),
    );
    lines.length = 0;
    for (const route of routes.filter((r) => r !== 'POST /api/console/entrar')) {
      const [method, path] = route.split(' ') as ['GET' | 'POST', string];
      for (const value of BROKEN) {
        const res = await app.inject({
          method,
          url: fill(path),
          headers: { cookie: `gate_console=${value}`, 'x-csrf-token': 'x' },
          ...(method === 'POST' ? { payload: {} } : {}),
        });
        expect(res.statusCode, `${route} with ${value}: ${res.body}`).toBe(401);
        expect(res.json()).toMatchObject({ success: false, error: { code: 'SESSAO_INVALIDA' } });
      }
    }
    expect(lines.filter((l) => l.level >= 50)).toEqual([]);
  });

  it('does not stand in the way of signing in: the sign-in answers as without it and sets a new cookie', async () => {
    lines.length = 0;
    const res = await app.inject({
      method: 'POST',
      url: '/api/console/entrar',
      headers: { cookie: 'gate_console=%zz' },
      payload: { nome: 'Ana', segredo: '4321', tenant: 'parque' },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(String(res.headers['set-cookie'])).toMatch(/^gate_console=[\w-]{20,};/);
    expect(lines.filter((l) => l.level >= 50)).toEqual([]);
  });

  it('is no session for the event stream over a real connection: 401 in the envelope, no stream', async () => {
    lines.length = 0;
    const address = app.server.address();
    if (!address || typeof address === 'string') throw new Error('no port');
    const res = await request(`http://127.0.0.1:${address.port}/api/console/eventos`, {
      headers: { cookie: 'gate_console=%zz', accept: 'text/event-stream' },
    });
    expect(res.statusCode).toBe(401);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(await res.body.json()).toMatchObject({ success: false, error: { code: 'SESSAO_INVALIDA' } });
    expect(lines.filter((l) => l.level >= 50)).toEqual([]);
  });
});
