import type { ClockCheck, ClockState } from '../clock-check.js';
import type { Db } from '../db/open.js';
import type { StorageHealth } from '../db/storage.js';
import type { GatesInfo, GatesStatus } from '../gate/lanes/gates.js';
import type { SiteView, TenantSite } from '../site/site.answers.js';
import { publicView } from '../site/site.view.js';
import type { SyncInfo } from '../sync/worker.js';
import type { SiteTlsInfo } from '../tls/site-tls.js';
import { CONFLICT_KINDS, eventsWaiting, syncSummary } from '../sync/sync.repo.js';

// The box's one status (lanes, sync, storage, clock): health (/health/ready), metrics and the
// console's panels all read it here and only word it their way.

/** The running lanes of the box's tenant. */
export interface LanesStatus extends GatesStatus {
  tenantId: number;
}

/** A tenant's sync as the box sees it, whether or not its worker runs on this box. */
export interface SyncStatus {
  /** The box's sync worker is this tenant's (GATE_CLOUD_URL). */
  configured: boolean;
  /** Whether the cloud answered the last call; null when not configured or not yet known. */
  online: boolean | null;
  lastPullAt: string | null;
  lastPushAt: string | null;
  lastError: string | null;
  /** Events that will be sent and were not accepted yet. */
  waiting: number;
  /** When the oldest of them happened. */
  oldestWaitingAt: string | null;
  /** Of them, those held for another box's movement of the same ticket, and when the last hold ends at the latest. */
  heldForSite: number;
  heldUntil: string | null;
  /** Events the cloud did not accept, and the site's second entries (duplo_no_site), by kind (0 included). */
  conflicts: Record<(typeof CONFLICT_KINDS)[number], number>;
  /** Every event the cloud answered with anything but acceptance, and every duplo_no_site. */
  conflictsTotal: number;
}

export interface BoxStatus {
  /** The lanes (GATE_CONFIG), when they run for this tenant (the box's tenant when none is named). */
  lanes(tenantId?: number): LanesStatus | null;
  /** The box's sync tenant's, or the given tenant's; null when neither is said. */
  sync(tenantId?: number): SyncStatus | null;
  /** Whether the database takes writes: the failure's code, or null (a failing store is probed, once a second). */
  storage(): string | null;
  /** Whether the wall clock can be trusted; null when not checked. */
  clock(): ClockState | null;
  /**
   * The site as this box sees it (its tenant's, or the given tenant's), hub addresses without credentials; null on a
   * single box (GATE_SITE_NATS_URLS unset) and for a tenant the site does not share.
   */
  site(tenantId?: number): SiteView | null;
  /** The site CA and the box's certificate (GATE_TLS_DIR); null when the box does not use a site CA. */
  tls(): SiteTlsInfo | null;
  /** Whether the box runs a sync worker (its tenant) and lanes (theirs). */
  readonly syncTenantId: number | undefined;
  readonly lanesTenantId: number | undefined;
  /** The tenant the site shares; undefined on a single box. */
  readonly siteTenantId: number | undefined;
}

export function createBoxStatus({
  db,
  storage,
  clockCheck,
  gates,
  sync,
  site,
  tls,
}: {
  db: Db;
  storage: StorageHealth;
  clockCheck?: ClockCheck | undefined;
  gates?: GatesInfo | undefined;
  sync?: SyncInfo | undefined;
  site?: TenantSite | undefined;
  tls?: (() => SiteTlsInfo) | undefined;
}): BoxStatus {
  return {
    tls: () => tls?.() ?? null,
    site: (tenantId = site?.tenantId) => (site && tenantId === site.tenantId ? publicView(site.view()) : null),
    siteTenantId: site?.tenantId,
    syncTenantId: sync?.tenantId,
    lanesTenantId: gates?.tenantId,
    lanes(tenantId = gates?.tenantId) {
      if (!gates || tenantId !== gates.tenantId) return null;
      return { tenantId, ...gates.gates.status() };
    },
    sync(tenantId = sync?.tenantId) {
      if (tenantId === undefined) return null;
      const configured = sync !== undefined && sync.tenantId === tenantId;
      const s = syncSummary(db, tenantId, { every: false, syncRuns: configured });
      const holds = configured ? sync!.holds?.() : undefined;
      return {
        configured,
        online: configured ? sync!.state.online() : null,
        lastPullAt: s.state?.last_pull_ok_at ?? null,
        lastPushAt: s.state?.last_push_ok_at ?? null,
        lastError: s.state?.last_error ?? null,
        waiting: eventsWaiting(s, configured),
        oldestWaitingAt: s.queue?.oldest ?? null,
        heldForSite: holds?.count ?? 0,
        heldUntil: holds?.last ?? null,
        conflicts: Object.fromEntries(
          CONFLICT_KINDS.map((kind) => [
            kind,
            (s.localConflicts.find((c) => c.kind === kind) ?? s.byResult.find((b) => b.resultado === kind))?.n ?? 0,
          ]),
        ) as SyncStatus['conflicts'],
        conflictsTotal:
          s.byResult.filter((b) => b.resultado !== 'aceito').reduce((n, b) => n + b.n, 0) +
          s.localConflicts.reduce((n, c) => n + c.n, 0),
      };
    },
    storage: () => storage.probe(),
    clock: () => clockCheck?.state() ?? null,
  };
}
