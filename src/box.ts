import type { FastifyBaseLogger } from 'fastify';
import { buildApp, type App } from './app.js';
import { createAuth } from './auth/auth.js';
import { checkinRoutes } from './checkin/checkin.routes.js';
import { createCheckinService, type CheckinService, type ScanNotice } from './checkin/checkin.service.js';
import { scanLogger } from './checkin/scan-log.js';
import { movementRoutes } from './checkin/movement.routes.js';
import { DEFAULT_MOVEMENT_SETTINGS } from './checkin/movement.settings.js';
import { clientRoutes } from './clients/clients.routes.js';
import type { Clock } from './clock.js';
import { createClockCheck, type ClockCheck } from './clock-check.js';
import { comboRoutes } from './combos/combos.routes.js';
import type { Db } from './db/open.js';
import { createStorageHealth, type StorageHealth } from './db/storage.js';
import type { GatesInfo } from './gate/lanes/gates.js';
import { gatesRoutes } from './gate/gates.routes.js';
import type { HttpLimits } from './http/connections.js';
import { healthRoutes } from './http/health.routes.js';
import { createMetrics, metricsRoutes } from './http/metrics.js';
import { createByteSlots } from './lib/byte-slots.js';
import { createVoucherPages } from './orders/vouchers.page.js';
import { voucherRoutes } from './orders/vouchers.routes.js';
import { syncRoutes } from './sync/sync.routes.js';
import type { SyncInfo } from './sync/worker.js';
import { createConsolePanels } from './console/console.panels.js';
import { consoleDocs } from './console/console.docs.js';
import { consoleRoutes } from './console/console.routes.js';
import { createConsoleView } from './console/console.view.js';
import { createFeed } from './console/feed.js';
import { liveRoutes, scanPublisher, startMonitor } from './console/live.js';
import { consoleGuard, createConsoleSessions } from './console/sessions.js';
import { staticRoutes } from './console/static.routes.js';
import { supervisorRoutes } from './console/supervisor.routes.js';

/** What the box gives the lanes it starts. */
export interface LaneServices {
  checkin: CheckinService;
  storage: StorageHealth;
  /** Each grant's time from the scan to the relay taking it (gate_lane_grant_seconds). */
  onGrant: (lane: string, seconds: number) => void;
}

export interface BoxDeps {
  db: Db;
  clock: Clock;
  logger: FastifyBaseLogger | false;
  /** The sync worker, when the cloud is configured: /api/local/sync shows its state. */
  sync?: SyncInfo | undefined;
  /**
   * Starts the gate lanes on the box's check-in service (GATE_CONFIG): /api/local/gates shows them. The caller closes
   * them.
   */
  lanes?: ((services: LaneServices) => GatesInfo) | undefined;
  /** HTTP timeouts and per-address cap; the defaults of src/http/connections.ts otherwise. */
  httpLimits?: HttpLimits | undefined;
  /** PEM certificate and key: the box serves HTTPS (GATE_TLS_CERT, GATE_TLS_KEY). */
  https?: { cert: Buffer; key: Buffer } | undefined;
  /** Minutes without a request after which a console session ends (default 720). */
  consoleIdleMinutes?: number | undefined;
  /** How often a console's live stream is pinged and its session re-checked (default 15 s). */
  consolePingMs?: number | undefined;
}

/**
 * Services and HTTP app wired together: shared by the box (box-lifecycle.ts) and the tests, so both run the same
 * wiring.
 */
export async function assembleBox({
  db,
  clock,
  logger,
  sync,
  lanes,
  httpLimits,
  https,
  consoleIdleMinutes = 720,
  consolePingMs,
}: BoxDeps): Promise<{ app: App; checkin: CheckinService; gates: GatesInfo | undefined; clockCheck: ClockCheck }> {
  const base = { db, clock };
  // Before any scan: the newest recorded event is read once, then everything is in memory.
  const clockCheck = createClockCheck(base);
  sync?.onCloudDate?.(clockCheck.cloudDate);
  const auth = createAuth(base);
  const listing = { ...base, auth };
  const storage = createStorageHealth({ sqlite: db.sqlite, log: logger || undefined });
  // The consoles' live stream hears every door's results from the one check-in service.
  const feed = createFeed();
  const view = createConsoleView(base);
  const publish = scanPublisher(feed, view, clock);
  const logScan = logger ? scanLogger(logger.child({ modulo: 'portaria' })) : undefined;
  // Read at scrape time, after the lanes below have started.
  const metrics = createMetrics({ db, clock, gates: () => gates, sync, clockCheck });
  const onResult = (notice: ScanNotice) => {
    logScan?.(notice);
    metrics.observe(notice);
    publish(notice);
  };
  const checkin = createCheckinService({
    db,
    clock,
    storage,
    onResult,
    clockCheck,
    ...(logger ? { log: logger } : {}),
  });
  const gates = lanes?.({ checkin, storage, onGrant: metrics.observeGrant });
  const sessions = createConsoleSessions({ db, clock, idleMinutes: consoleIdleMinutes });
  const guard = consoleGuard(sessions);
  const panels = createConsolePanels({ ...base, gates, sync });
  const monitor = startMonitor({
    feed,
    panels,
    tenants: () => [
      ...new Set([gates?.tenantId, sync?.tenantId, ...sessions.tenants()].filter((t): t is number => t !== undefined)),
    ],
    onError: (err) =>
      logger ? logger.warn({ err }, 'console monitor: a sample failed; skipped until one works') : undefined,
  });
  // Room for the large answers being sent (batches, listing pages): see lib/byte-slots.ts.
  const slots = createByteSlots();
  const pages = createVoucherPages(db.sqlite.name, slots);
  let app: App;
  try {
    app = await buildApp({
      logger,
      ...(httpLimits ? { httpLimits } : {}),
      https,
      routeDocs: consoleDocs,
      v1: [
        checkinRoutes({ auth, checkin, slots, db }),
        voucherRoutes({ db, clock, auth, pages }),
        clientRoutes(listing),
      ],
      integration: [comboRoutes(listing)],
      local: [
        healthRoutes({ ...base, storage, gates, sync, clockCheck }),
        metricsRoutes({ metrics, auth }),
        syncRoutes({ ...listing, sync }),
        gatesRoutes({ auth, gates, checkin }),
        movementRoutes({
          auth,
          checkin,
          settingsOf: (tenantId) => (gates?.tenantId === tenantId ? gates.settings : DEFAULT_MOVEMENT_SETTINGS),
        }),
        consoleRoutes({ db, clock, checkin, sessions, guard, view }),
        supervisorRoutes({ db, clock, guard, panels, feed }),
        liveRoutes({ feed, guard, sessions, pingMs: consolePingMs }),
        staticRoutes(),
      ],
    });
  } catch (error) {
    // No app to close: what was started for it stops here (the caller closes the lanes it started).
    monitor.stop();
    await pages.close();
    throw error;
  }
  app.addHook('onClose', () => {
    monitor.stop();
    return pages.close();
  });
  return { app, checkin, gates, clockCheck };
}
