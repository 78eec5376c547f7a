import type { BoxRoutes } from '../app.js';
import type { Auth } from '../auth/auth.js';
import type { ScanNotice } from '../checkin/checkin.service.js';
import type { Clock } from '../clock.js';
import type { ClockCheck } from '../clock-check.js';
import type { Db } from '../db/open.js';
import type { StorageHealth } from '../db/storage.js';
import type { GatesInfo } from '../gate/lanes/gates.js';
import type { Listeners } from '../lib/listeners.js';
import type { TenantSite } from '../site/site.answers.js';
import type { SyncInfo } from '../sync/worker.js';
import type { SiteTlsInfo } from '../tls/site-tls.js';
import { createBoxStatus, type BoxStatus } from './box-status.js';
import { healthRoutes } from './health.routes.js';
import { createMetrics, metricsRoutes } from './metrics.js';

/**
 * The box's status (src/box.ts starts it after the sync): the one status object the console reads too, health and
 * metrics, which hear every scan and every grant.
 */
export function startStatus({
  db,
  clock,
  auth,
  storage,
  clockCheck,
  gates,
  sync,
  site,
  scans,
  grants,
  handhelds = false,
  tls,
}: {
  db: Db;
  clock: Clock;
  auth: Auth;
  storage: StorageHealth;
  clockCheck: ClockCheck;
  gates: GatesInfo | undefined;
  sync: SyncInfo | undefined;
  site: TenantSite | undefined;
  scans: Listeners<[ScanNotice]>;
  grants: Listeners<[lane: string, seconds: number]>;
  /** GATE_HANDHELD: the handhelds' gauges. */
  handhelds?: boolean;
  /** The site CA's fingerprint and the box certificate's end (GATE_TLS_DIR). */
  tls?: (() => SiteTlsInfo) | undefined;
}): { status: BoxStatus; routes: BoxRoutes; close: (() => void) | undefined } {
  const status = createBoxStatus({ db, storage, clockCheck, gates, sync, site, tls });
  const metrics = createMetrics({ db, clock, status, site, handhelds });
  scans.add(metrics.observe);
  grants.add(metrics.observeGrant);
  return {
    status,
    routes: { local: [healthRoutes({ db, clock, status }), metricsRoutes({ metrics, auth })] },
    // Only the site's claim times are drained on a timer: a single box has nothing to stop.
    close: site ? metrics.stop : undefined,
  };
}
