import type { HandheldSpec } from '../../src/handheld/handheld.start.js';
import fs from 'node:fs';
import path from 'node:path';
import { createApiKey } from '../../src/auth/api-keys.js';
import { createBox } from '../../src/box.js';
import { createClock, type Clock } from '../../src/clock.js';
import { migrateToLatest, openDatabase } from '../../src/db/open.js';
import { createClosers } from '../../src/lib/closers.js';
import type { SyncConfig } from '../../src/sync/worker.js';
import { ensureTenant } from '../../src/tenants/tenants.repo.js';
import { tempDir, TZ } from './box.js';
import type { FakeCloud } from './fake-cloud.js';

/**
 * A clock that starts at a chosen instant and runs with real time (so timers, backoff and timeouts
 * behave), and can be moved forward by tests. Sharing one between the cloud and the gate means no skew.
 */
export function createTickingClock(
  startIso = '2026-11-21T13:00:00.000Z',
  timeZone = TZ,
): Clock & { advance(ms: number): void } {
  const origin = Date.now();
  let offset = Date.parse(startIso) - origin;
  return Object.assign(
    createClock(timeZone, () => new Date(Date.now() + offset)),
    {
      advance(ms: number) {
        offset += ms;
      },
    },
  );
}

/** Short intervals and backoffs, so tests see several cycles in a second. */
export const FAST: SyncConfig = {
  tenant: 'parque',
  pullSeconds: 0.2,
  pushSeconds: 0.05,
  refreshCron: '0 0 1 1 *',
  fullRefreshCron: '0 0 1 1 *',
  daysAhead: 2,
  tuning: { backoff: { baseMs: 20, maxMs: 200 } },
};

export interface GateKeys {
  checkin: string;
  local: string;
  local2: string;
}

export interface GateOptions {
  /** Reopen this directory's database (a restart); pass the keys of the first start with it. */
  dir?: string;
  keys?: GateKeys;
  config?: Partial<SyncConfig>;
  timeoutMs?: number;
  /** The handhelds (GATE_HANDHELD*). */
  handheld?: HandheldSpec;
}

/** The gate under test: a box on a real SQLite file whose sync worker talks to the fake cloud through its proxy. */
export async function startGate(cloud: FakeCloud, clock: Clock, opts: GateOptions = {}) {
  const dir = opts.dir ?? tempDir('gate-sync-');
  // Closed in reverse order of opening (src/lib/closers.ts); the folder last, unless kept.
  const closers = createClosers();
  let keepDir = false;
  closers.push('pasta', () => keepDir || fs.rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'gate.db');
  // The tenant and the keys exist before the box starts (it resolves GATE_TENANT at start).
  const seed = openDatabase(file);
  await migrateToLatest(seed);
  const seedTenant = ensureTenant(seed, 'parque', clock.nowIso());
  const key = (name: string, permissions: string[]) =>
    createApiKey(seed, { tenantId: seedTenant, name, permissions, nowIso: clock.nowIso() }).key;
  // A restart on the same file passes the keys of the first start (only their hashes are stored).
  const keys = opts.keys ?? {
    checkin: key('catraca-1', ['vouchers:checkin']),
    local: key('escritorio', ['local:read']),
    local2: key('auditoria', ['local:read']),
  };
  seed.close();
  // The real box with its sync worker on the fake cloud; the tests run the worker's cycles themselves.
  const box = createBox({
    database: file,
    clock,
    logger: false,
    tenant: 'parque',
    cloud: {
      url: cloud.url,
      apiKey: cloud.keys.box,
      integrationKey: cloud.keys.integration,
      timeoutMs: opts.timeoutMs ?? 10_000,
      ...FAST,
      ...opts.config,
    },
    syncSchedules: false,
    handheld: opts.handheld,
  });
  closers.push('caixa', () => box.close());
  const { app, db, tenantId, sync, cloudClient, checkin } = await box.start();
  const worker = sync!;
  const client = cloudClient!;
  const { sqlite } = db;

  const post = async (method: 'POST' | 'PATCH', key: string, payload: object) => {
    const res = await app.inject({ method, url: '/api/v1/api-qrcode-checkin', headers: { 'x-api-key': key }, payload });
    return { status: res.statusCode, body: res.json() };
  };
  let closing = false;

  return {
    dir,
    db,
    app,
    worker,
    client,
    /** The check-in service the box's doors call (its `move` is what a lane calls on a scan). */
    service: checkin,
    tenantId: tenantId!,
    keys,
    checkin: (key: string, qr: string, terminal = 'catraca-1', operador = 'ana') =>
      post('POST', key, { qr_code: qr, terminal, operador }),
    reverse: (key: string, qr: string, terminal = 'catraca-1', operador = 'ana') =>
      post('PATCH', key, { qr_code: qr, terminal, operador }),
    async local(key: string, url: string, headers: Record<string, string> = {}) {
      const res = await app.inject({ method: 'GET', url, headers: { 'x-api-key': key, ...headers } });
      return {
        status: res.statusCode,
        headers: res.headers,
        text: res.body,
        body: res.headers['content-type']?.toString().includes('json') ? res.json() : undefined,
      };
    },
    outbox() {
      return sqlite
        .prepare(
          'select p.*, e.qr_code, e.terminal, e.operador from sync_push p join events e on e.id = p.event_id order by p.event_id',
        )
        .all() as {
        event_id: number;
        chave: string;
        action: string;
        status: string;
        attempts: number;
        resultado: string | null;
        cloud_code: string | null;
        first_sent_at: string | null;
        qr_code: string;
        terminal: string | null;
        operador: string | null;
      }[];
    },
    person(qr: string) {
      return sqlite
        .prepare(
          'select p.qr_code, p.checkin_em, p.estornado_em, o.status from people p join orders o on o.id = p.order_id where p.qr_code = ?',
        )
        .get(qr) as
        { qr_code: string; checkin_em: string | null; estornado_em: string | null; status: string } | undefined;
    },
    /** Stops the worker and closes everything; the database file stays unless `remove`. */
    close(remove = true) {
      if (!closing) keepDir = !remove;
      closing = true;
      return closers.close();
    },
  };
}

export type Gate = Awaited<ReturnType<typeof startGate>>;

/** Polls `check` until it returns true (real time), failing with `what` after `ms`. */
export async function eventually(
  what: string,
  check: () => boolean | Promise<boolean>,
  ms = 60_000,
  every = 20,
): Promise<number> {
  const started = Date.now();
  for (;;) {
    if (await check()) return Date.now() - started;
    if (Date.now() - started > ms) throw new Error(`não aconteceu em ${ms} ms: ${what}`);
    await new Promise((r) => setTimeout(r, every));
  }
}
