import fs from 'node:fs';
import path from 'node:path';
import { createApiKey } from '../../src/auth/api-keys.js';
import { createBox, type BoxParts } from '../../src/box.js';
import { createFixedClock, type Clock } from '../../src/clock.js';
import { migrateToLatest, openDatabase, type Db } from '../../src/db/open.js';
import { catchUpSearchIndex } from '../../src/db/search-index.js';
import type { GateSpec } from '../../src/gate/gate.start.js';
import type { HandheldSpec } from '../../src/handheld/handheld.start.js';
import type { SiteConfig } from '../../src/site-config.js';
import type { SyncSpec } from '../../src/sync/sync.start.js';
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
  /** How often a console stream is pinged and its session re-checked (the box's default: 15 s). */
  consolePingMs?: number;
  /** How often the search index's upkeep looks for pending documents (the box's default: 50 ms). */
  searchIdleMs?: number;
  /** Gate lanes on the box's check-in service (tenant `parque`), as the box starts them from GATE_CONFIG. */
  lanes?: GateSpec;
  /** A box of a site (GATE_SITE_*): its hub and its name there. */
  siteLink?: SiteConfig;
  /** A cloud (GATE_CLOUD_*, e.g. a fake cloud's): its worker's schedules never start; the test runs `sync`. */
  cloud?: SyncSpec;
  /** The handhelds (GATE_HANDHELD*). */
  handheld?: HandheldSpec;
}

/**
 * The real box (src/box.ts) on a database the caller opened: for tests that share that connection with other
 * parts (a fake cloud, a CLI command). Closing it leaves the database open.
 */
/** A cloud the box never reaches: for a sync worker whose state a test sets by hand (its schedules never start). */
export const UNREACHABLE_CLOUD: SyncSpec = {
  url: 'http://127.0.0.1:9',
  apiKey: 'nenhuma',
  integrationKey: 'nenhuma',
  tenant: 'parque',
  timeoutMs: 1000,
  pullSeconds: 60,
  pushSeconds: 60,
  refreshCron: '0 0 1 1 *',
  fullRefreshCron: '0 0 1 1 *',
  daysAhead: 1,
};

export async function bootBox(parts: Omit<BoxParts, 'database'> & { db: BoxParts['database'] }) {
  const { db, ...rest } = parts;
  const box = createBox({ ...rest, database: db });
  return { ...(await box.start()), close: () => box.close() };
}

/**
 * The test box's database booted again with a sync worker that never starts and a cloud that never answers: the
 * test sets the worker's state by hand. Close the test box's app first; close what this returns after.
 */
export const bootWithIdleSync = (box: { db: Db; clock: Clock }) =>
  bootBox({
    db: box.db,
    clock: box.clock,
    logger: false,
    tenant: 'parque',
    cloud: UNREACHABLE_CLOUD,
    syncSchedules: false,
  });

export async function createTestBox(opts: TestBoxOptions = {}) {
  const dir = tempDir();
  // The box's own closing: what was opened closes in reverse order, the folder last (src/lib/closers.ts).
  const closers = createClosers();
  closers.push('pasta', () => fs.rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'gate.db');
  const clock = createFixedClock(opts.timeZone ?? TZ, opts.now ?? '2026-11-21T13:00:00.000Z');
  // The tenants exist before the box starts: it resolves its own (`parque`) at start, as GATE_TENANT.
  const seed = openDatabase(file);
  await migrateToLatest(seed);
  const tenantId = ensureTenant(seed, 'parque', clock.nowIso(), 'Parque Teste');
  const otherTenantId = ensureTenant(seed, 'outro', clock.nowIso(), 'Outro Parque');
  seed.close();
  const box = createBox({
    database: file,
    clock,
    logger: false,
    tenant: 'parque',
    lanes: opts.lanes,
    consolePingMs: opts.consolePingMs,
    searchIdleMs: opts.searchIdleMs,
    siteLink: opts.siteLink,
    cloud: opts.cloud,
    syncSchedules: opts.cloud ? false : undefined,
    handheld: opts.handheld,
  });
  closers.push('caixa', () => box.close());
  const { app, db, checkin, gates, status, sync } = await box.start();
  const { sqlite } = db;
  const nowIso = clock.nowIso();
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

  /**
   * Loads orders as `gate import` would (same schema, same upsert, then the search index caught up: the box's upkeep
   * has nothing left to write in the middle of a test that counts commits).
   */
  const importOrders = (pedidos: PedidoInput[], tenant = tenantId) => {
    const stored = sqlite.transaction(() =>
      pedidos.map((p) => upsertOrder(db, tenant, pedidoSchema.parse(p), clock.nowIso())),
    )();
    catchUpSearchIndex(db);
    return stored;
  };

  return {
    dir,
    db,
    clock,
    app,
    /** The box's one check-in service, the same the HTTP routes call. */
    checkin,
    /** The lanes, when `lanes` was given. */
    gates,
    /** The box's one status (lanes, sync, storage, clock): what health, metrics and the console read. */
    status,
    /** The sync worker, when `cloud` was given. */
    sync,
    tenantId,
    otherTenantId,
    keys,
    importOrders,
    close: () => closers.close(),
  };
}
export type TestBox = Awaited<ReturnType<typeof createTestBox>>;
