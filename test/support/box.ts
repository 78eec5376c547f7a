import fs from 'node:fs';
import path from 'node:path';
import { createApiKey } from '../../src/auth/api-keys.js';
import { assembleBox, type LaneServices } from '../../src/box.js';
import type { CheckinService } from '../../src/checkin/checkin.service.js';
import type { StorageHealth } from '../../src/db/storage.js';
import type { Clock } from '../../src/clock.js';
import type { GatesInfo } from '../../src/gate/lanes/gates.js';
import { createFixedClock } from '../../src/clock.js';
import { migrateToLatest, openDatabase, type Db } from '../../src/db/open.js';
import { upsertOrder } from '../../src/orders/orders.repo.js';
import { pedidoSchema, type PedidoInput } from '../../src/orders/order.schemas.js';
import { createClosers } from '../../src/lib/closers.js';
import { ensureTenant } from '../../src/tenants/tenants.repo.js';
import { tempDir } from './temp.js';

export const TZ = 'America/Sao_Paulo';

export { tempDir } from './temp.js';

/**
 * A whole box on a real SQLite file in a temp dir, with a fixed clock (default: 2026-11-21 10:00 in
 * São Paulo), tenant `parque` and one key per permission set.
 */
export interface TestBoxOptions {
  now?: string;
  timeZone?: string;
  /** Gate lanes on the box's check-in service (tenant `parque`), as main.ts starts them from GATE_CONFIG. */
  /** How often a console stream is pinged and its session re-checked (the box's default: 15 s). */
  consolePingMs?: number;
  lanes?: (box: {
    db: Db;
    clock: Clock;
    checkin: CheckinService;
    tenantId: number;
    storage: StorageHealth;
    onGrant: LaneServices['onGrant'];
  }) => GatesInfo;
}

export async function createTestBox(opts: TestBoxOptions = {}) {
  const dir = tempDir();
  // The box's own closing: what was opened closes in reverse order, the folder last (src/lib/closers.ts).
  const closers = createClosers();
  closers.push('pasta', () => fs.rmSync(dir, { recursive: true, force: true }));
  const db = openDatabase(path.join(dir, 'gate.db'));
  closers.push('banco', () => db.close());
  await migrateToLatest(db);
  const clock = createFixedClock(opts.timeZone ?? TZ, opts.now ?? '2026-11-21T13:00:00.000Z');
  const { sqlite } = db;
  const nowIso = clock.nowIso();
  const tenantId = ensureTenant(db, 'parque', nowIso, 'Parque Teste');
  const otherTenantId = ensureTenant(db, 'outro', nowIso, 'Outro Parque');
  const key = (permissions: string[], name: string, tenant = tenantId) =>
    createApiKey(db, { tenantId: tenant, name, permissions, nowIso }).key;
  const keys = {
    checkin: key(['vouchers:checkin'], 'catraca-1'),
    checkinPlain: key(['checkin'], 'catraca-2'),
    all: key(['all'], 'admin'),
    vouchers: key(['vouchers:read'], 'erp'),
    vouchers2: key(['vouchers:read'], 'bi'),
    clientes: key(['clientes:read'], 'crm'),
    combos: key(['integration:combos:read'], 'loja'),
    none: key(['clientes:read'], 'sem-checkin'),
    otherTenant: key(
      ['vouchers:checkin', 'vouchers:read', 'clientes:read', 'integration:combos:read'],
      'outro',
      otherTenantId,
    ),
  };
  const lanes =
    opts.lanes &&
    ((services: LaneServices) => {
      const started = opts.lanes!({ db, clock, tenantId, ...services });
      closers.push('pistas', () => started.gates.close());
      return started;
    });
  const { app, checkin, gates } = await assembleBox({
    db,
    clock,
    logger: false,
    lanes,
    consolePingMs: opts.consolePingMs,
  });
  closers.push('http', () => app.close());
  await app.ready();

  /** Loads orders as `gate import` would (same schema, same upsert). */
  const importOrders = (pedidos: PedidoInput[], tenant = tenantId) =>
    sqlite.transaction(() => pedidos.map((p) => upsertOrder(db, tenant, pedidoSchema.parse(p), clock.nowIso())))();

  return {
    dir,
    db,
    clock,
    app,
    /** The box's one check-in service, the same the HTTP routes call. */
    checkin,
    /** The lanes, when `lanes` was given. */
    gates,
    tenantId,
    otherTenantId,
    keys,
    importOrders,
    close: () => closers.close(),
  };
}
export type TestBox = Awaited<ReturnType<typeof createTestBox>>;
