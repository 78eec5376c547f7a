import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClock } from '../../src/clock.js';
import { tempDir, TZ } from '../support/box.js';
import { makeOrder } from '../support/fixtures.js';
import { BIN, ensureBuilt, serveGate } from '../support/gate-process.js';
import { writeImportFile } from './run.js';

// The real `gate` as a user runs it: node bin/gate.js, compiled code in dist/, separate processes
// sharing one database file.

const children: ChildProcess[] = [];
let dir: string;
let env: NodeJS.ProcessEnv;

function run(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string; ms: number }> {
  const started = Date.now();
  const child = spawn(process.execPath, [BIN, ...args], { env, cwd: dir });
  children.push(child);
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c) => (stdout += c));
  child.stderr.on('data', (c) => (stderr += c));
  return new Promise((resolve) =>
    child.on('close', (code) => resolve({ code, stdout, stderr, ms: Date.now() - started })),
  );
}

const serve = () => serveGate(env, dir, children);

// One kept-alive connection, closed before the server is stopped: fetch's pool may leave sockets
// that never carried a request, which Node's server.close() waits on until they time out.
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });

function request(
  url: string,
  opts: { method?: string; headers?: Record<string, string>; body?: unknown } = {},
): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const payload = opts.body === undefined ? undefined : JSON.stringify(opts.body);
    const req = http.request(
      url,
      {
        method: opts.method ?? 'GET',
        agent,
        headers: { ...opts.headers, ...(payload ? { 'content-type': 'application/json' } : {}) },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

beforeAll(() => {
  ensureBuilt();
  dir = tempDir('gate-spawn-');
  env = {
    PATH: process.env.PATH,
    GATE_DATA_DIR: dir,
    GATE_HOST: '127.0.0.1',
    GATE_PORT: '0',
    GATE_TENANT: 'parque',
    GATE_TIMEZONE: TZ,
  };
});

afterAll(async () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('the built gate command', () => {
  it('keys create prints just the key', async () => {
    expect((await run(['tenants', 'create', 'parque'])).code).toBe(0);
    const res = await run(['keys', 'create', '--tenant', 'parque', '--permissions', 'vouchers:checkin,vouchers:read']);
    expect(res.code).toBe(0);
    expect(res.stdout).toMatch(/^gk_[0-9a-f]{12}_[A-Za-z0-9_-]{43}\n$/);
  });

  it('imports while a server runs on the same database: check-ins keep being answered, then the orders are served', async () => {
    const today = createClock(TZ).today();
    // People to check in during the import, imported before it.
    const early = makeOrder({ numero: '20250101-0001', prefix: 'EARLY', people: 300, dataUso: today });
    expect(
      (await run(['import', '--tenant', 'parque', writeImportFile(dir, { pedidos: [early] }, 'early.json')])).code,
    ).toBe(0);
    const key = (
      await run(['keys', 'create', '--tenant', 'parque', '--permissions', 'vouchers:checkin,vouchers:read'])
    ).stdout.trim();
    const big = Array.from({ length: 4000 }, (_, i) =>
      makeOrder({
        numero: `20250102-${String(i + 1).padStart(4, '0')}`,
        prefix: `BIG${i + 1}`,
        people: 3,
        dataUso: today,
      }),
    );
    const bigFile = writeImportFile(dir, { pedidos: big }, 'big.json');

    const { child: server, url } = await serve();
    const importing = run(['import', '--tenant', 'parque', bigFile]);
    let done = false;
    void importing.then(() => (done = true));

    const latencies: number[] = [];
    for (let n = 1; !done && n <= 300; n++) {
      const started = Date.now();
      const res = await request(`${url}/api/v1/api-qrcode-checkin`, {
        method: 'POST',
        headers: { 'x-api-key': key },
        body: { qr_code: `EARLY-${n}`, terminal: 'catraca-1' },
      });
      expect(res.status).toBe(200);
      if (!done) latencies.push(Date.now() - started);
    }
    const result = await importing;

    expect(result.code).toBe(0);
    expect(result.stdout).toContain('pedidos: 4.000 criados');
    // Many check-ins answered while the import wrote, none held for long by its transactions.
    expect(latencies.length).toBeGreaterThanOrEqual(10);
    expect(Math.max(...latencies)).toBeLessThan(2000);

    const listed = await request(`${url}/api/v1/api-vouchers?numero_pedido=20250102-4000&marcar_sincronizado=false`, {
      headers: { 'x-api-key': key },
    });
    expect(listed.body.data.pedidos.map((p: { numero_pedido: string }) => p.numero_pedido)).toEqual(['20250102-4000']);

    // A graceful stop: SIGTERM closes the box and the process ends with 0.
    agent.destroy();
    server.kill('SIGTERM');
    const code = await new Promise((resolve) => server.on('exit', resolve));
    expect(code).toBe(0);
  }, 120_000);

  it('says how to build when dist/ is missing', () => {
    const copy = tempDir('gate-bin-');
    fs.mkdirSync(path.join(copy, 'bin'));
    fs.copyFileSync(BIN, path.join(copy, 'bin/gate.js'));
    const res = spawnSync(process.execPath, [path.join(copy, 'bin/gate.js'), 'help'], { encoding: 'utf8' });
    fs.rmSync(copy, { recursive: true, force: true });
    expect(res.status).toBe(1);
    expect(res.stderr).toContain('npm run build');
  });
});
