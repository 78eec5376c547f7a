import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/auth/api-keys.js';
import { createClock } from '../../src/clock.js';
import { migrateToLatest, openDatabase } from '../../src/db/open.js';
import { upsertOrder } from '../../src/orders/orders.repo.js';
import { pedidoSchema } from '../../src/orders/order.schemas.js';
import { ensureTenant } from '../../src/tenants/tenants.repo.js';
import { tempDir, TZ } from '../support/box.js';
import { makeOrder } from '../support/fixtures.js';
import { ensureBuilt, serveGate } from '../support/gate-process.js';
import { openOsdpSim } from '../support/osdp-reader-sim.js';
import { openPtyPair, waitUntil } from '../support/pty.js';

// The real `gate serve`, its lanes file giving an OSDP reader a key in a key file: a secure
// lane end to end (check-in by the reader's card data, a power cut), and the key never in a log
// line or on /api/local/gates, with the log at debug.

const KEY = '5a5a5a5a0123456789abcdef5a5a5a5a';
const children: ChildProcess[] = [];
const cleanups: (() => unknown)[] = [];
afterAll(async () => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
  for (const c of cleanups.reverse()) await c();
});

// A build of dist/ (when the sources are newer) is not part of what the test times.
beforeAll(() => ensureBuilt(), 180_000);

describe('gate serve with a secure OSDP lane', () => {
  it('checks in from the reader over the secure channel, restores it after a power cut, and never logs the key', async () => {
    const clock = createClock(TZ);
    const dir = tempDir('gate-osdp-serve-');
    cleanups.push(() => fs.rmSync(dir, { recursive: true, force: true }));
    const db = openDatabase(`${dir}/gate.db`);
    await migrateToLatest(db);
    const tenantId = ensureTenant(db, 'parque', clock.nowIso());
    const { key } = createApiKey(db, {
      tenantId,
      name: 'tecnico',
      permissions: ['local:read'],
      nowIso: clock.nowIso(),
    });
    upsertOrder(
      db,
      tenantId,
      pedidoSchema.parse(makeOrder({ prefix: 'SECURE', dataUso: clock.today() })),
      clock.nowIso(),
    );
    db.close();

    const pty = await openPtyPair('osdp-serve');
    cleanups.push(() => pty.close());
    const sim = await openOsdpSim(pty.device, [{ address: 2, scbk: Buffer.from(KEY, 'hex'), enforceSecure: true }]);
    cleanups.push(() => sim.close());
    fs.writeFileSync(path.join(dir, 'leitor-2.key'), `${KEY}\n`, { mode: 0o600 });
    const lanes = path.join(dir, 'lanes.yaml');
    fs.writeFileSync(
      lanes,
      `lanes:\n  - name: norte\n    direction: entrada\n    operador: Norte\n    relay:\n      driver: osdp\n      path: ${pty.box}\n      address: 2\n      scbkFile: leitor-2.key\n`,
    );

    const env = {
      PATH: process.env.PATH,
      GATE_DATA_DIR: dir,
      GATE_HOST: '127.0.0.1',
      GATE_PORT: '0',
      GATE_TIMEZONE: TZ,
      GATE_TENANT: 'parque',
      GATE_CONFIG: lanes,
      GATE_LOG_LEVEL: 'debug',
    };
    const served = await serveGate(env, dir, children);
    const rele = async () => {
      const res = await fetch(`${served.url}/api/local/gates`, { headers: { 'x-api-key': key } });
      return { text: await res.clone().text(), rele: ((await res.json()) as any).data.pistas[0].rele };
    };
    await waitUntil(async () => (await rele()).rele.online, 10_000, 'secure reader online');
    expect((await rele()).rele.dispositivo).toMatchObject({ secureChannel: true, keyConfigured: true });

    const r = sim.reader(2);
    r.scan('SECURE-1');
    await waitUntil(() => r.output(0).changes.some((c) => c.on), 5000, 'turnstile opened');
    const checked = openDatabase(`${dir}/gate.db`);
    cleanups.push(() => checked.close());
    expect(
      checked.sqlite.prepare('select checkin_dispositivo from people where qr_code = ?').pluck().get('SECURE-1'),
    ).toBe('norte');

    r.powerCut();
    await waitUntil(
      async () => (await rele()).rele.dispositivo.restarts === 1 && (await rele()).rele.online,
      10_000,
      'back after the cut',
    );
    expect(r.sessionActive()).toBe(true);

    const { text } = await rele();
    served.child.kill('SIGTERM');
    await new Promise((resolve) => served.child.once('exit', resolve));
    const logs = served.output();
    expect(logs).toContain('OSDP PD restarted');
    for (const shown of [logs, text]) expect(shown.toLowerCase()).not.toContain(KEY);
  }, 45_000);
});
