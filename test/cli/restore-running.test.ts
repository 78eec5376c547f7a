import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createClock } from '../../src/clock.js';
import { tempDir, TZ } from '../support/box.js';
import { makeOrder } from '../support/fixtures.js';
import { ensureBuilt, serveGate, type Served } from '../support/gate-process.js';
import { gate, writeImportFile } from './run.js';

// `gate restore` under a running box (issue 22, 6.9): the box kept writing into the renamed old file,
// still reported ready, and a check-in it acknowledged afterwards was missing from the restored
// database. Now the restore is refused while a box holds the database (a lock the box holds for its
// life, which dies with it), and a box whose file is replaced anyway stops being ready and says why.

const children: ChildProcess[] = [];
let dir: string;
let env: NodeJS.ProcessEnv;
let key: string;

beforeAll(async () => {
  ensureBuilt();
  dir = tempDir('gate-restore-running-');
  env = {
    PATH: process.env.PATH,
    GATE_DATA_DIR: dir,
    GATE_HOST: '127.0.0.1',
    GATE_PORT: '0',
    GATE_TENANT: 'parque',
    GATE_TIMEZONE: TZ,
  };
  expect((await gate(dir, ['tenants', 'create', 'parque'])).code).toBe(0);
  const today = createClock(TZ).today();
  const orders = { pedidos: [makeOrder({ numero: '20261125-0001', prefix: 'RUN', people: 10, dataUso: today })] };
  expect((await gate(dir, ['import', '--tenant', 'parque', writeImportFile(dir, orders)])).code).toBe(0);
  key = (await gate(dir, ['keys', 'create', '--tenant', 'parque', '--permissions', 'vouchers:checkin'])).stdout.trim();
});

afterAll(() => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  fs.rmSync(dir, { recursive: true, force: true });
});

const checkin = (box: Served, code: string) =>
  fetch(`${box.url}/api/v1/api-qrcode-checkin`, {
    method: 'POST',
    headers: { 'x-api-key': key, 'content-type': 'application/json' },
    body: JSON.stringify({ qr_code: code, terminal: 'catraca-1' }),
  });

const killed = (child: ChildProcess) =>
  new Promise<void>((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });

it('refuses to restore under a running box, also after a crash leaves no stale lock; a box whose file is replaced is not ready and says why', async () => {
  const box = await serveGate(env, dir, children);
  expect((await checkin(box, 'RUN-1')).status).toBe(200);
  const backup = await gate(dir, ['backup', '--to', path.join(dir, 'copias')]);
  expect(backup.code, backup.stderr).toBe(0);
  const file = backup.stdout.trim();
  expect((await checkin(box, 'RUN-2')).status).toBe(200);

  const refused = await gate(dir, ['restore', '--force', file]);
  expect(refused.code).toBe(1);
  expect(refused.stderr).toContain('um box está usando o banco');
  expect(refused.stderr).toContain('systemctl stop gate');
  expect(fs.readdirSync(dir).filter((f) => f.includes('antes-de-restaurar'))).toEqual([]);
  expect((await fetch(`${box.url}/health/ready`)).status).toBe(200);
  // The box goes on: the check-in acknowledged after the refused restore is in the database it uses.
  expect((await checkin(box, 'RUN-3')).status).toBe(200);

  // The file swapped under the box by hand (what `gate restore` did before): no longer ready, and why.
  fs.renameSync(path.join(dir, 'gate.db'), path.join(dir, 'gate.db.velho'));
  fs.copyFileSync(file, path.join(dir, 'gate.db'));
  const ready = await fetch(`${box.url}/health/ready`);
  expect(ready.status).toBe(503);
  const body = (await ready.json()) as { success: boolean; error: { message: string; details: unknown } };
  expect(body.success).toBe(false);
  expect(JSON.stringify(body.error)).toContain('BANCO_SUBSTITUIDO');
  expect(JSON.stringify(body.error)).toContain('reinicie o box');
  expect((await fetch(`${box.url}/health`)).status).toBe(503);
  await expect.poll(() => box.output(), { timeout: 5000 }).toContain('database file replaced under the running box');
  fs.rmSync(path.join(dir, 'gate.db'));
  fs.renameSync(path.join(dir, 'gate.db.velho'), path.join(dir, 'gate.db'));

  // A box that crashed (kill -9) holds nothing: the restore goes through, and says what it replaced.
  await killed(box.child);
  const restored = await gate(dir, ['restore', '--force', file]);
  expect(restored.code, restored.stderr).toBe(0);
  expect(restored.stdout).toMatch(/^cópia\s+1\s+10\s+1\s/m);
  expect(restored.stdout).toMatch(/^banco atual\s+1\s+10\s+3\s/m);
  expect(fs.readdirSync(dir).filter((f) => f.includes('antes-de-restaurar'))).toHaveLength(1);
}, 60_000);
