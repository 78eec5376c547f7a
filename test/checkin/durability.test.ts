import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import { afterAll, expect, it } from 'vitest';
import { createApiKey } from '../../src/auth/api-keys.js';
import { migrateToLatest, openDatabase } from '../../src/db/open.js';
import { upsertOrder } from '../../src/orders/orders.repo.js';
import { pedidoSchema } from '../../src/orders/order.schemas.js';
import { ensureTenant } from '../../src/tenants/tenants.repo.js';
import { tempDir } from '../support/box.js';
import { makeOrder } from '../support/fixtures.js';

const entry = path.resolve('dist/src/main.js');
let child: ChildProcess | undefined;
afterAll(() => child?.kill('SIGKILL'));

it('keeps every acknowledged check-in after the server is killed with SIGKILL mid-load', async () => {
  expect(fs.existsSync(entry), 'run `npm run build` first (npm test does)').toBe(true);
  const dir = tempDir();
  const db = openDatabase(path.join(dir, 'gate.db'));
  await migrateToLatest(db);
  const now = new Date().toISOString();
  const tenantId = ensureTenant(db.sqlite, db.kysely, 'parque', now);
  const { key } = createApiKey(db.sqlite, db.kysely, { tenantId, name: 'catraca', permissions: ['checkin'], nowIso: now });
  const today = new Intl.DateTimeFormat('en-CA', { timeZone: 'America/Sao_Paulo' }).format(new Date());
  db.sqlite.transaction(() => upsertOrder(db.sqlite, db.kysely, tenantId, pedidoSchema.parse(makeOrder({ prefix: 'DUR', people: 400, dataUso: today })), now))();
  db.close();

  child = spawn(process.execPath, ['--input-type=module', '-e', `import(${JSON.stringify(entry)}).then((m) => m.main())`], {
    env: { ...process.env, GATE_DATA_DIR: dir, GATE_PORT: '0', GATE_HOST: '127.0.0.1', GATE_TENANT: 'parque', GATE_LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const url = await new Promise<string>((resolve, reject) => {
    child!.once('exit', (code) => reject(new Error(`server exited with ${code}`)));
    readline.createInterface({ input: child!.stdout! }).on('line', (line) => {
      const m = /"url":"([^"]+)"/.exec(line);
      if (m) resolve(m[1]!);
    });
  });

  const acknowledged: string[] = [];
  let killed = false;
  const sends = Array.from({ length: 400 }, (_, i) => `DUR-${i + 1}`).map(async (qr) => {
    try {
      const res = await fetch(`${url}/api/v1/api-qrcode-checkin`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': key },
        body: JSON.stringify({ qr_code: qr }),
      });
      if (res.status === 200) acknowledged.push(qr);
      if (acknowledged.length >= 150 && !killed) {
        killed = true;
        child!.kill('SIGKILL');
      }
    } catch {
      // in flight when the server died: not acknowledged, may or may not be stored
    }
  });
  await Promise.all(sends);
  expect(killed).toBe(true);
  expect(acknowledged.length).toBeGreaterThanOrEqual(150);

  const after = openDatabase(path.join(dir, 'gate.db'));
  const stored = new Set(
    (after.sqlite.prepare("select qr_code from people where checkin_em is not null").all() as { qr_code: string }[]).map((r) => r.qr_code),
  );
  const logged = new Set((after.sqlite.prepare("select qr_code from events where result = 'ok'").all() as { qr_code: string }[]).map((r) => r.qr_code));
  expect(acknowledged.filter((qr) => !stored.has(qr))).toEqual([]);
  expect(acknowledged.filter((qr) => !logged.has(qr))).toEqual([]);
  expect(after.sqlite.pragma('synchronous', { simple: true })).toBe(2); // FULL: survives power loss, not only a crash
  expect(after.sqlite.pragma('journal_mode', { simple: true })).toBe('wal');
  after.close();
  fs.rmSync(dir, { recursive: true, force: true });
});
