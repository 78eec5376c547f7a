import type { Clock } from '../clock.js';
import type { CloudConfig } from '../config.js';
import type { Db } from '../db/open.js';
import type { Log } from '../lib/log.js';
import { createCloudClient } from './cloud-client.js';
import { createSyncWorker, type SyncWorker } from './worker.js';

export interface CloudSync {
  worker: SyncWorker;
  /** Stops the worker, then closes the connections to the cloud. */
  stop(): Promise<void>;
}

/** The sync worker and its cloud client, built from the configuration (src/box-lifecycle.ts). */
export function createCloudSync({
  db,
  clock,
  log,
  cloud,
  tenantId,
}: {
  db: Db;
  clock: Clock;
  log: Log & { child(fields: { modulo: string }): Log };
  cloud: CloudConfig;
  tenantId: number;
}): CloudSync {
  const client = createCloudClient({
    url: cloud.url,
    apiKey: cloud.apiKey,
    integrationKey: cloud.integrationKey,
    timeoutMs: cloud.timeoutMs,
  });
  const worker = createSyncWorker({ db, clock, log: log.child({ modulo: 'sync' }), config: cloud, client, tenantId });
  return {
    worker,
    async stop() {
      await worker.stop();
      await client.close();
    },
  };
}
