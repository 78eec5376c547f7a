import type { BoxRoutes } from '../app.js';
import type { Auth } from '../auth/auth.js';
import type { Clock } from '../clock.js';
import type { ClockCheck } from '../clock-check.js';
import type { CloudConfig } from '../config.js';
import type { Db } from '../db/open.js';
import type { Log } from '../lib/log.js';
import type { CloudClient } from './cloud-client.js';
import { syncRoutes } from './sync.routes.js';
import type { SyncConfig, SyncWorker } from './worker.js';

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
 * listens (worker.start()). The client and the worker (undici, node-cron) are loaded only then: a stand-alone box
 * keeps their memory.
 */
export async function startSync({
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
}): Promise<SyncPart> {
  if (!cloud) return { worker: undefined, client: undefined, routes: routesOf({ db, clock, auth }), close: undefined };
  const [{ createCloudClient }, { createSyncWorker }] = await Promise.all([
    import('./cloud-client.js'),
    import('./worker.js'),
  ]);
  const { url, apiKey, integrationKey, timeoutMs } = cloud;
  const client = createCloudClient({ url, apiKey, integrationKey, timeoutMs });
  const worker = createSyncWorker({ db, clock, log, config: cloud, client, tenantId: tenantId! });
  // The cloud's clock, as its answers' Date headers tell it: whether the box's own can be trusted.
  worker.onCloudDate(clockCheck.cloudDate);
  return {
    worker,
    client,
    routes: routesOf({ db, clock, auth }, worker),
    close: async () => {
      await worker.stop();
      await client.close();
    },
  };
}

/** /api/local/sync, /conflicts, /eventos: the local state, with or without a worker. */
const routesOf = (deps: { db: Db; clock: Clock; auth: Auth }, worker?: SyncWorker): BoxRoutes => ({
  local: [syncRoutes({ ...deps, sync: worker })],
});
