import type { BoxRoutes } from '../app.js';
import type { CheckinService, ScanNotice } from '../checkin/checkin.service.js';
import type { Clock } from '../clock.js';
import type { Db } from '../db/open.js';
import { startSearchUpkeep } from '../db/search-index.js';
import type { Listeners } from '../lib/listeners.js';
import type { Log } from '../lib/log.js';
import type { OperationDocs } from '../http/openapi.js';
import type { BoxStatus } from '../status/box-status.js';
import { createConsolePanels } from './console.panels.js';
import { consoleDocs } from './console.docs.js';
import { consoleRoutes } from './console.routes.js';
import { createConsoleView } from './console.view.js';
import { createFeed } from './feed.js';
import { liveRoutes, scanPublisher, startMonitor } from './live.js';
import { consoleGuard, createConsoleSessions, type ConsoleGuard } from './sessions.js';
import { siteConsoleDocs } from './site.docs.js';
import { siteConsoleRoutes } from './site.panel.js';
import { staticRoutes } from './static.routes.js';
import { supervisorRoutes } from './supervisor.routes.js';

export interface ConsolePart {
  routes: BoxRoutes;
  /** What /docs shows of the console's routes (their schemas carry none). */
  docs: Record<string, OperationDocs>;
  /**
   * Stops the monitor that samples lanes, alarms, the sync and the site for connected consoles, and the search index's
   * upkeep.
   */
  close(): Promise<void>;
  /** The sessions' hooks, for the screens of parts started after the console (handhelds). */
  guard: ConsoleGuard;
}

/**
 * The staff console (src/box.ts starts it after the sync): sessions, the screens' routes and the live stream,
 * which hears every door's results from the check-in service and samples the box's status.
 */
export function startConsole({
  db,
  clock,
  checkin,
  status,
  scans,
  log,
  idleMinutes = 720,
  pingMs,
  searchIdleMs,
}: {
  db: Db;
  clock: Clock;
  checkin: CheckinService;
  status: BoxStatus;
  /** Every door's results (the check-in service's onResult). */
  scans: Listeners<[ScanNotice]>;
  log?: Log | undefined;
  /** Minutes without a request after which a console session ends (default 720). */
  idleMinutes?: number | undefined;
  /** How often a console's live stream is pinged and its session re-checked (default 15 s). */
  pingMs?: number | undefined;
  /** How often the search index's upkeep looks for pending documents once none are left (src/db/search-index.ts). */
  searchIdleMs?: number | undefined;
}): ConsolePart {
  const feed = createFeed();
  const view = createConsoleView({ db, clock });
  scans.add(scanPublisher(feed, view, clock));
  const sessions = createConsoleSessions({ db, clock, idleMinutes });
  const guard = consoleGuard(sessions);
  const panels = createConsolePanels({ db, clock, status });
  const monitor = startMonitor({
    feed,
    panels,
    tenants: () => [
      ...new Set(
        [status.lanesTenantId, status.syncTenantId, ...sessions.tenants()].filter((t): t is number => t !== undefined),
      ),
    ],
    onError: (err) => log?.warn({ err }, 'console monitor: a sample failed; skipped until one works'),
  });
  // The search's documents moved into its index and merged, a small piece at a time, whoever stored them.
  const searchUpkeep = startSearchUpkeep({ db, log, idleMs: searchIdleMs });
  return {
    routes: {
      local: [
        consoleRoutes({ db, clock, checkin, sessions, guard, view }),
        supervisorRoutes({ db, clock, guard, panels, feed }),
        liveRoutes({ feed, guard, sessions, pingMs }),
        siteConsoleRoutes({ status, guard }),
        staticRoutes(),
      ],
    },
    docs: { ...consoleDocs, ...siteConsoleDocs },
    close: async () => {
      monitor.stop();
      await searchUpkeep.close();
    },
    guard,
  };
}
