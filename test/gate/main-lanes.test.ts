import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/auth/api-keys.js';
import { createClock } from '../../src/clock.js';
import { ConfigError, loadConfig } from '../../src/config.js';
import { migrateToLatest, openDatabase } from '../../src/db/open.js';
import { main } from '../../src/main.js';
import { upsertOrder } from '../../src/orders/orders.repo.js';
import { pedidoSchema } from '../../src/orders/order.schemas.js';
import { ensureTenant } from '../../src/tenants/tenants.repo.js';
import { tempDir, TZ } from '../support/box.js';
import { makeOrder } from '../support/fixtures.js';
import { BIN, ensureBuilt } from '../support/gate-process.js';
import { openScannerSim } from '../support/lanes.js';
import { openLcusSim } from '../support/lcus-sim.js';
import { openPtyPair, waitUntil } from '../support/pty.js';

// The composition root reads GATE_CONFIG: a bad file stops the start, a good one opens the lanes.
const clock = createClock(TZ);
const cleanups: (() => Promise<unknown> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function dataDir(tenants: string[]) {
  const dir = tempDir('gate-lanes-main-');
  const db = openDatabase(`${dir}/gate.db`);
  await migrateToLatest(db);
  const ids = tenants.map((slug) => ensureTenant(db, slug, clock.nowIso()));
  const { key } = createApiKey(db, {
    tenantId: ids[0]!,
    name: 'tecnico',
    permissions: ['local:read'],
    nowIso: clock.nowIso(),
  });
  upsertOrder(
    db,
    ids[0]!,
    pedidoSchema.parse(makeOrder({ prefix: 'MAINLANE', dataUso: clock.today() })),
    clock.nowIso(),
  );
  db.close();
  return { dir, key };
}
const env = (dir: string, extra: Record<string, string>) => ({
  GATE_DATA_DIR: dir,
  GATE_HOST: '127.0.0.1',
  GATE_PORT: '0',
  GATE_LOG_LEVEL: 'silent',
  ...extra,
});

describe('GATE_CONFIG', () => {
  it('starts the lanes of the file: a scan on the serial scanner opens the LCUS relay, and /api/local/gates shows them', async () => {
    const { dir, key } = await dataDir(['parque']);
    const scannerPty = await openPtyPair('scanner');
    const relayPty = await openPtyPair('lcus');
    cleanups.push(
      () => scannerPty.close(),
      () => relayPty.close(),
    );
    const relay = await openLcusSim(relayPty.device);
    cleanups.push(() => relay.close());
    const file = path.join(dir, 'lanes.yaml');
    fs.writeFileSync(
      file,
      `lanes:\n  - name: portao-1\n    direction: entrada\n    operador: Portão 1\n    scanners:\n      - path: ${scannerPty.box}\n    relay:\n      driver: lcus\n      path: ${relayPty.box}\n      pulseMs: 100\n`,
    );
    const box = await main(loadConfig(env(dir, { GATE_CONFIG: file })));
    cleanups.push(() => box.close());

    const scanner = await openScannerSim(scannerPty.device);
    cleanups.push(() => scanner.close());
    await waitUntil(
      async () => {
        const res = await fetch(`${box.url}/api/local/gates`, { headers: { 'x-api-key': key } });
        return ((await res.json()) as any).data.pistas[0]?.leitores[0]?.conectado;
      },
      5000,
      'scanner port open',
    );
    await scanner.scan('MAINLANE-1');
    await waitUntil(() => relay.changes.some((c) => c.channel === 1 && c.on), 5000, 'relay on');
    const res = await fetch(`${box.url}/api/local/gates`, { headers: { 'x-api-key': key } });
    const data = ((await res.json()) as any).data;
    expect(data).toMatchObject({ configurado: true, alarme_incendio: { ativo: false } });
    expect(data.pistas).toEqual([
      expect.objectContaining({
        nome: 'portao-1',
        operador: 'Portão 1',
        contadores: expect.objectContaining({ liberadas: 1 }),
      }),
    ]);
  });

  it('a bad lanes file stops the start with every problem named, before the database is touched', async () => {
    const dir = tempDir('gate-lanes-bad-');
    const file = path.join(dir, 'lanes.json');
    fs.writeFileSync(
      file,
      JSON.stringify({
        lanes: [
          {
            name: 'x',
            direction: 'norte',
            operador: 'o',
            scanners: [{ path: '/dev/serial/by-id/s' }],
            relay: { driver: 'lcus', path: '/dev/serial/by-id/r', channel: 9 },
          },
        ],
      }),
    );
    const start = main(loadConfig(env(dir, { GATE_CONFIG: file })));
    await expect(start).rejects.toBeInstanceOf(ConfigError);
    await expect(start).rejects.toThrow(/lanes\[0\]\.direction: use entrada ou saida\n {2}lanes\[0\]\.relay\.channel/);
    expect(fs.existsSync(path.join(dir, 'gate.db'))).toBe(false);
  });

  it('`gate serve` with a bad lanes file exits 2, like a bad variable, naming every problem of the file', async () => {
    ensureBuilt();
    const dir = tempDir('gate-lanes-serve-');
    const file = path.join(dir, 'lanes.json');
    const lane = (name: string, scanner: string, relay: Record<string, unknown>) => ({
      name,
      direction: 'entrada',
      operador: 'o',
      scanners: [{ path: scanner }],
      relay,
    });
    fs.writeFileSync(
      file,
      JSON.stringify({
        lanes: [
          lane('a', '/dev/serial/by-id/s1', { driver: 'lcus', path: '/dev/serial/by-id/r1', channel: 9 }),
          lane('a', '/dev/serial/by-id/r1', { driver: 'bridge', path: '/dev/serial/by-id/r2' }),
        ],
      }),
    );
    const child = spawn(process.execPath, [BIN, 'serve'], {
      env: { PATH: process.env.PATH, ...env(dir, { GATE_CONFIG: file }) },
    });
    let stderr = '';
    child.stderr.on('data', (c) => (stderr += c));
    expect(await new Promise((resolve) => child.once('exit', resolve))).toBe(2);
    expect(stderr).toContain(`Configuração das pistas inválida (${file}):`);
    expect(stderr).toMatch(/\n {2}lanes\[0\]\.relay\.channel: /);
    expect(stderr).toContain('\n  lanes[1].name: pista "a" repetida (já usada em lanes[0])');
    expect(stderr).toContain(
      '\n  lanes[1].scanners[0].path: porta /dev/serial/by-id/r1 já usada em lanes[0].relay.path',
    );
    expect(fs.existsSync(path.join(dir, 'gate.db'))).toBe(false);
  }, 180_000);

  it('with several tenants the lanes need GATE_TENANT', async () => {
    const { dir } = await dataDir(['parque', 'outro']);
    const file = path.join(dir, 'lanes.yaml');
    fs.writeFileSync(
      file,
      'lanes:\n  - name: a\n    direction: entrada\n    operador: o\n    scanners: [{ path: /tmp/none-a }]\n    relay: { driver: lcus, path: /tmp/none-b }\n',
    );
    await expect(main(loadConfig(env(dir, { GATE_CONFIG: file })))).rejects.toThrow(/defina GATE_TENANT/);
  });
});
