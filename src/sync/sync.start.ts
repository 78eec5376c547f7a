import type { BoxRoutes } from '../app.js';
import type { Auth } from '../auth/auth.js';
import type { Clock } from '../clock.js';
import type { ClockCheck } from '../clock-check.js';
import type { CloudConfig } from '../config.js';
import type { Db } from '../db/open.js';
import type { Log } from '../lib/log.js';
import { createCloudClient, type CloudClient } from './cloud-client.js';
import { syncRoutes } from './sync.routes.js';
import { createSyncWorker, type SyncConfig, type SyncWorker } from './worker.js';

/** The cloud the box syncs with (GATE_CLOUD_*); tests shrink the intervals through `tuning`. */
export type SyncSpec = CloudConfig & Pick<SyncConfig, 'tuning'>;

export interface SyncPart {
  /** The sync worker and its cloud client; undefined on a stand-alone box. */
  worker: SyncWorker | undefined;
  client: CloudClient | undefined;
  /** /api/local/sync, /conflicts, /eventos (the local state even without a worker). */
  routes: BoxRoutes;
  /** Stops the worker, then closes the connections to the cloud; undefined on a stand-alone box. */
  close: (() => Promise<void>) | undefined;
}

/**
 * The sync (src/box.ts starts it after the gate): built only when the cloud is configured (GATE_TENANT is then
 * required: config.ts), beside the check-in service, which never waits on it. Its schedules start once the box
 * listens (worker.start()).
 */
export function startSync({
  cloud,
  db,
  clock,
  log,
  auth,
  tenantId,
  clockCheck,
}: {
  cloud: SyncSpec | undefined;
  db: Db;
  clock: Clock;
  log: Log;
  auth: Auth;
  tenantId: number | undefined;
  clockCheck: ClockCheck;
}): SyncPart {
  const client =
    cloud &&
    createCloudClient({
      url: cloud.url,
      apiKey: cloud.apiKey,
      integrationKey: cloud.integrationKey,
      timeoutMs: cloud.timeoutMs,
    });
  const worker = cloud && client && createSyncWorker({ db, clock, log, config: cloud, client, tenantId: tenantId! });
  // The cloud's clock, as its answers' Date headers tell it: whether the box's own can be trusted.
  worker?.onCloudDate(clockCheck.cloudDate);
  return {
    worker,
    client,
    routes: { local: [syncRoutes({ db, clock, auth, sync: worker })] },
    close:
      worker &&
      (async () => {
        await worker.stop();
        await client?.close();
      }),
  };
}
