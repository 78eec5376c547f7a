import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { Migrator } from 'kysely';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { migrations } from '../../migrations/index.js';
import { searchOrders } from '../../src/console/search.repo.js';
import { openDatabase } from '../../src/db/open.js';
import { upsertOrder } from '../../src/orders/orders.repo.js';
import { pedidoSchema } from '../../src/orders/order.schemas.js';
import { ensureTenant } from '../../src/tenants/tenants.repo.js';
import { makeOrder } from '../support/fixtures.js';
import { onOlderSchema } from '../support/older-schema.js';
import { tempDir } from '../support/temp.js';
import { gate, openData } from './run.js';

// An upgrade from the first release's schema (0001_core), with data: `gate migrate` copies the
// database first, applies every later migration, and the data is all there and searchable.

let dir: string;
beforeEach(() => {
  dir = tempDir('gate-upgrade-');
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

it('gate migrate takes a backup, then brings a first-release database with orders and check-ins to the latest schema', async () => {
  const old = openDatabase(path.join(dir, 'gate.db'));
  const result = await new Migrator({ db: old.kysely, provider: { getMigrations: async () => migrations } }).migrateTo(
    '0001_core',
  );
  expect(result.error).toBeUndefined();
  const now = '2026-11-20T13:00:00.000Z';
  const tenantId = ensureTenant(old, 'parque', now);
  onOlderSchema(old, () => {
    for (let i = 0; i < 20; i++)
      upsertOrder(
        old,
        tenantId,
        pedidoSchema.parse(makeOrder({ numero: `20261120-${String(i).padStart(4, '0')}`, prefix: `UP${i}` })),
        now,
      );
  });
  old.sqlite
    .prepare("UPDATE people SET checkin_em = ?, checkin_dispositivo = 'catraca-1' WHERE qr_code LIKE 'UP1%-1'")
    .run(now);
  const before = old.sqlite.prepare('SELECT qr_code, checkin_em, checkin_dispositivo FROM people ORDER BY id').all();
  old.close();

  const res = await gate(dir, ['migrate']);
  expect(res.code, res.stderr).toBe(0);
  expect(res.stdout.trim().split('\n')).toEqual(
    Object.keys(migrations)
      .slice(1)
      .map((m) => `aplicada: ${m}`),
  );
  const backup = /cópia antes de migrar: (\S+)/.exec(res.stderr)![1]!;
  const copy = new Database(backup, { readonly: true });
  expect(copy.prepare('SELECT name FROM kysely_migration').pluck().all()).toEqual(['0001_core']);
  copy.close();

  const db = openData(dir);
  try {
    expect(db.sqlite.prepare('SELECT qr_code, checkin_em, checkin_dispositivo FROM people ORDER BY id').all()).toEqual(
      before,
    );
    expect(db.sqlite.pragma('integrity_check')).toEqual([{ integrity_check: 'ok' }]);
    expect(searchOrders(db, tenantId, '20261120-0007').map((h) => h.numero_pedido)).toEqual(['20261120-0007']);
  } finally {
    db.close();
  }
  // Already current: no copy.
  expect((await gate(dir, ['migrate'])).stderr).not.toContain('cópia antes de migrar');
});
