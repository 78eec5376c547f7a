import type { Writable } from 'node:stream';
import type { FastifyBaseLogger } from 'fastify';
import { buildApp, mergeRoutes, type App, type BoxRoutes } from './app.js';
import { closeApp, listen, logStart, stopLine } from './box-lines.js';
import { createAuth } from './auth/auth.js';
import { startCheckin } from './checkin/checkin.start.js';
import type { CheckinService, ScanNotice } from './checkin/checkin.service.js';
import { scanLogger } from './checkin/scan-log.js';
import { clientRoutes } from './clients/clients.routes.js';
import type { Clock } from './clock.js';
import { createClockCheck, type ClockCheck } from './clock-check.js';
import { comboRoutes } from './combos/combos.routes.js';
import { startConsole } from './console/console.start.js';
import { migrateToLatest, migrationState, openDatabase, type Db } from './db/open.js';
import { holdDatabase, openOrRelease } from './db/holder.js';
import { createStorageHealth } from './db/storage.js';
import { isEmptyBox, printDemoBanner, seedDemoWithOperator } from './demo/demo.js';
import { startGate, type GateSpec } from './gate/gate.start.js';
import { handheldAppRoutes } from './handheld/app.routes.js';
import { startHandheld, type HandheldSpec } from './handheld/handheld.start.js';
import type { GatesInfo } from './gate/lanes/gates.js';
import type { HttpLimits } from './http/connections.js';
import { createByteSlots } from './lib/byte-slots.js';
import { createClosers, type Closers } from './lib/closers.js';
import { createListeners } from './lib/listeners.js';
import { silentLog, type Log } from './lib/log.js';
import { startVouchers } from './orders/vouchers.start.js';
import { startStatus } from './status/status.start.js';
import type { BoxStatus } from './status/box-status.js';
import { cloudKeyPrint, startSiteLink } from './site/site.start.js';
import type { SiteConfig } from './site-config.js';
import { startSync, type SyncSpec } from './sync/sync.start.js';
import type { CloudClient } from './sync/cloud-client.js';
import type { SyncWorker } from './sync/worker.js';
import { databaseWriteProbe, type SystemdLink } from './systemd-notify.js';
import { boxTenant } from './tenants/box-tenant.js';
import { serveSiteTls, type SiteTlsSpec } from './tls/tls.start.js';
import { VERSION } from './version.js';

/** What a box is made of: the production box reads them from the environment (src/box-config.ts), tests choose. */
export interface BoxParts {
  /**
   * The database file, opened, migrated and closed by the box; or a database already open and migrated, which the
   * caller closes (tests that share one with other parts).
   */
  database: string | Db;
  clock: Clock;
  logger: FastifyBaseLogger | false;
  /** GATE_TENANT: the box's tenant, for the lanes and the sync worker. */
  tenant?: string | undefined;
  /** The lanes (GATE_CONFIG); none without. */
  lanes?: GateSpec | undefined;
  /** The cloud (GATE_CLOUD_*); a stand-alone box without. */
  cloud?: SyncSpec | undefined;
  /** The site's hub (GATE_SITE_*); a single box without. */
  siteLink?: SiteConfig | undefined;
  /** Whether the sync worker's schedules start once the box is up (default true; tests drive it by hand). */
  syncSchedules?: boolean | undefined;
  /** The handhelds (GATE_HANDHELD*, docs/handheld.md); off without. */
  handheld?: HandheldSpec | undefined;
  /** Where to listen; without, the box is served through app.inject only (tests). */
  listen?: { host: string; port: number } | undefined;
  /** HTTP timeouts and per-address cap; the defaults of src/http/connections.ts otherwise. */
  httpLimits?: HttpLimits | undefined;
  /** PEM certificate and key: the box serves HTTPS (GATE_TLS_CERT, GATE_TLS_KEY). */
  https?: { cert: Buffer; key: Buffer } | undefined;
  /** HTTPS from the site CA's dir (GATE_TLS_DIR): `https` is its pair; watched, renewed, the CA on plain HTTP. */
  siteTls?: SiteTlsSpec | undefined;
  /** Minutes without a request after which a console session ends (default 720). */
  consoleIdleMinutes?: number | undefined;
  /** How often a console's live stream is pinged and its session re-checked (default 15 s). */
  consolePingMs?: number | undefined;
  /** How often the search index's upkeep looks for pending documents once none are left (default 50 ms). */
  searchIdleMs?: number | undefined;
  /** Type=notify (systemd/gate.service): migrating, READY with the watchdog, STOPPING. */
  systemd?: SystemdLink | undefined;
  /** A fresh box with no park configured starts as the demo park; its banner (keys) goes here, never the logger. */
  demoBannerTo?: Writable | undefined;
}

/** The box once started: what the tests reach into. */
export interface RunningBox {
  /** Where it listens; undefined when it does not (parts.listen). */
  url: string | undefined;
  /** The plain HTTP port serving the site CA (parts.siteTls); undefined without. */
  caPort?: number | undefined;
  app: App;
  db: Db;
  tenantId: number | undefined;
  /** The one check-in service, the same every door calls. */
  checkin: CheckinService;
  gates: GatesInfo | undefined;
  sync: SyncWorker | undefined;
  cloudClient: CloudClient | undefined;
  clockCheck: ClockCheck;
  status: BoxStatus;
}

export interface Box {
  /**
   * Opens everything in order (and listens); when a step fails, closes what it had opened (newest first) and
   * rethrows.
   */
  start(): Promise<RunningBox>;
  /** The stop line and STOPPING, then everything start() opened, newest first, each once. Idempotent. */
  close(reason?: string): Promise<void>;
}

/**
 * The box's database, held while it runs and released with it: `gate restore` is refused meanwhile
 * (src/db/holder.ts).
 */
function openHeld(file: string, closers: Closers): Db {
  const hold = holdDatabase(file);
  const db = openOrRelease(hold, () => openDatabase(file));
  closers.push('banco', () => {
    db.close();
    hold.release();
  });
  return db;
}

const message = (error: unknown) => (error instanceof Error ? error.message : String(error));
type DemoSeed = Awaited<ReturnType<typeof seedDemoWithOperator>>;

/**
 * The one owner of the box's start and stop. start() goes: database → migrations → (demo seed) → tenant →
 * check-in core → gate → sync → status → console → HTTP → listen → start line → sync schedules → READY. Each part
 * pushes its closer onto one stack (src/lib/closers.ts) right after it opens, so a failed start and the stop close
 * the same things in reverse order.
 */
export function createBox(parts: BoxParts): Box {
  const { logger } = parts;
  const log: Log = logger || silentLog;
  const closers = createClosers({
    onClosed: (name) => logger && logger.debug({ recurso: name }, 'closed'),
    onError: (name, error) => log.error({ recurso: name, err: message(error) }, 'closing failed'),
  });
  let starting: Promise<RunningBox> | undefined;
  let closing: Promise<void> | undefined;
  /** Set once the box is up: the stop line and STOPPING=1 (which also stops the watchdog's probe writes). */
  let announceStop: ((reason: string) => Promise<void>) | undefined;
  /** Created for this start; its keys are shown only once, so a failed start shows them anyway. */
  let demo: DemoSeed | undefined;

  async function open(): Promise<RunningBox> {
    const { clock } = parts;
    const db = typeof parts.database === 'string' ? openHeld(parts.database, closers) : parts.database;
    if (typeof parts.database === 'string') {
      await parts.systemd?.migrating(migrationState(db.sqlite).pending.length);
      await migrateToLatest(db);
    }
    if (parts.demoBannerTo && parts.tenant === undefined && isEmptyBox(db))
      demo = await seedDemoWithOperator(db, clock);
    const tenantId = boxTenant(db, parts.tenant, parts.lanes !== undefined);
    const running = await startParts(parts, db, tenantId, log, closers);
    const url = parts.listen && (await listen(running.app, parts.listen));
    const tls = url && parts.siteTls ? await serveSiteTls(parts.siteTls, running.app, parts.listen!, log) : undefined;
    if (tls) closers.push('tls', tls.close);
    if (url) logStart(log, startLine(parts, url, demo?.tenantSlug), running.clockCheck, db);
    const stopping = url ? stopLine(db, log, parts.systemd) : undefined;
    if (parts.syncSchedules !== false && running.sync) {
      const { sync } = running;
      closers.push('sincronizador', () => sync.stop());
      sync.start();
    }
    // Straight to the given stream, not the logger: no log line ever carries a key.
    if (demo && url && parts.demoBannerTo) printDemoBanner(parts.demoBannerTo, { url, ...demo });
    await parts.systemd?.ready(
      `atendendo em ${url}`,
      databaseWriteProbe(db, () => clock.nowIso()),
    );
    announceStop = stopping;
    return { ...running, url, caPort: tls?.caPort };
  }

  return {
    start() {
      if (starting || closing)
        return Promise.reject(new Error(starting ? 'a caixa já foi iniciada' : 'a caixa já foi encerrada'));
      starting = open().catch(async (error: unknown) => {
        await closers.close().catch(() => undefined); // each failure already logged by onError
        if (demo && parts.demoBannerTo) {
          const { host = 'localhost', port = 0 } = parts.listen ?? {};
          parts.demoBannerTo.write(
            `\nA caixa não iniciou (${message(error)}), mas o parque de demonstração já foi criado:\n`,
          );
          printDemoBanner(parts.demoBannerTo, { url: `${parts.https ? 'https' : 'http'}://${host}:${port}`, ...demo });
        }
        throw error;
      });
      return starting;
    },
    close(reason = 'close') {
      closing ??= (async () => {
        // A close during the start waits for it: a failed start has already closed everything.
        await starting?.catch(() => undefined);
        const stopping = announceStop?.(reason);
        try {
          await closers.close();
        } finally {
          await stopping;
        }
      })();
      return closing;
    },
  };
}

/**
 * The parts on the open database, in order: check-in core → gate → sync → status → console → vouchers → HTTP. Each
 * is one line: its entry started with what it needs, then `use` pushes its closer when it opened something. The next
 * part (the site link) is one more such line where it belongs in the order. Routes are mounted in the order /docs
 * has always listed them, which is not the start order.
 */
async function startParts(parts: BoxParts, db: Db, tenantId: number | undefined, log: Log, closers: Closers) {
  const { clock, logger } = parts;
  const base = { db, clock, auth: createAuth({ db, clock }) };
  const use = <P extends { routes: BoxRoutes; close?: (() => unknown) | undefined }>(name: string, part: P): P => {
    if (part.close) closers.push(name, part.close);
    return part;
  };
  const storage = createStorageHealth({ sqlite: db.sqlite, log: logger || undefined });
  // Before any scan: the newest recorded event is read once, then everything is in memory.
  const clockCheck = createClockCheck({ db, clock });
  // Every door's results and every lane's grants, heard by the parts started after the check-in core.
  const scans = createListeners<[ScanNotice]>();
  const grants = createListeners<[lane: string, seconds: number]>();
  if (logger) scans.add(scanLogger(logger.child({ modulo: 'portaria' })));
  // Room for the large answers being sent (batches, listing pages): see lib/byte-slots.ts.
  const slots = createByteSlots();
  const movement = parts.lanes && tenantId !== undefined ? { tenantId, settings: parts.lanes.config } : undefined;
  const core = { storage, clockCheck };

  const checkin = use('portaria', startCheckin({ ...base, ...core, log, slots, movement, onResult: scans.emit }));
  const lanes = { lanes: parts.lanes, checkin: checkin.service, tenantId, storage, onGrant: grants.emit };
  const gate = use('pistas', await startGate({ ...base, ...lanes, log: childOf(log, 'pistas') }));
  const sync = use(
    'nuvem',
    await startSync({ ...base, cloud: parts.cloud, log: childOf(log, 'sync'), tenantId, clockCheck }),
  );
  const siteDeps = { ...base, link: parts.siteLink, checkin: checkin.service, tenantId, log: childOf(log, 'site') };
  const site = use('site', await startSiteLink({ ...siteDeps, cloudKey: cloudKeyPrint(parts.cloud) }));
  const parted = { gates: gate.gates, sync: sync.worker, site: site.info, tls: parts.siteTls?.tls.info };
  const status = use(
    'estado',
    startStatus({ ...base, ...core, ...parted, scans, grants, handhelds: !!parts.handheld }),
  );
  const { consoleIdleMinutes: idleMinutes, consolePingMs: pingMs, searchIdleMs } = parts;
  const consoleOptions = { idleMinutes, pingMs, searchIdleMs };
  const staff = use(
    'console',
    startConsole({ ...base, checkin: checkin.service, status: status.status, scans, log, ...consoleOptions }),
  );
  const handheld = startHandheld({
    ...base,
    checkin: checkin.service,
    consoleGuard: staff.guard,
    spec: parts.handheld,
  });
  const vouchers = use('paginas', startVouchers({ ...base, slots }));
  const listings = { v1: [clientRoutes(base)], integration: [comboRoutes(base)] };

  const app = await buildApp({
    logger: parts.logger,
    ...(parts.httpLimits ? { httpLimits: parts.httpLimits } : {}),
    https: parts.https,
    routeDocs: { ...staff.docs, ...handheld.docs },
    ...mergeRoutes(
      status.routes,
      sync.routes,
      gate.routes,
      checkin.routes,
      vouchers.routes,
      listings,
      staff.routes,
      site.routes,
      handheld.routes,
      parts.handheld ? handheldAppRoutes({ ...parts.handheld, timeZone: parts.clock.timeZone }) : {},
    ),
  });
  closers.push('http', () => closeApp(app));
  await app.ready();
  const running = { checkin: checkin.service, gates: gate.gates, sync: sync.worker, cloudClient: sync.client };
  return { ...running, app, db, tenantId, clockCheck, status: status.status };
}

const childOf = (log: Log, modulo: string): Log =>
  'child' in log && typeof log.child === 'function' ? (log.child({ modulo }) as Log) : log;

const startLine = (parts: BoxParts, url: string, demoSlug: string | undefined) => ({
  versao: VERSION,
  url,
  tenant: parts.tenant ?? demoSlug ?? null,
  data: typeof parts.database === 'string' ? parts.database : parts.database.sqlite.name,
  timeZone: parts.clock.timeZone,
  nuvem: parts.cloud ? new URL(parts.cloud.url).host : null,
  pistas: parts.lanes?.config.lanes.length ?? 0,
  watchdogSegundos: parts.systemd?.watchdogSeconds ?? null,
});
