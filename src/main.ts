import type { Writable } from 'node:stream';
import pino from 'pino';
import { assembleBox } from './box.js';
import { createClock } from './clock.js';
import { VERSION } from './version.js';
import { loadConfig, type Config } from './config.js';
import { migrateToLatest, openDatabase } from './db/open.js';
import { isEmptyBox, printDemoBanner, seedDemoWithOperator } from './demo/demo.js';
import { createCloudSync } from './sync/cloud-sync.js';
import type { CheckinService } from './checkin/checkin.service.js';
import type { StorageHealth } from './db/storage.js';
import { loadLaneConfig } from './gate/lane-config.js';
import { laneTenant, startLanes } from './gate/register.js';

export interface RunningBox {
  url: string;
  close(): Promise<void>;
}

/** Composition root: config → logger → lanes file → db + migrate → services → lanes → app → listen → sync. */
export async function main(config: Config = loadConfig(), out: Writable = process.stdout): Promise<RunningBox> {
  const logger = pino({
    level: config.logLevel,
    ...(process.stdout.isTTY ? { transport: { target: 'pino-pretty', options: { translateTime: 'SYS:standard' } } } : {}),
  });
  // A bad lanes file stops the start before anything is opened, with every problem named.
  const lanesFile = config.laneConfigFile === undefined ? undefined : loadLaneConfig(config.laneConfigFile);
  for (const warning of lanesFile?.warnings ?? []) logger.warn(warning);
  const db = openDatabase(config.databaseFile);
  await migrateToLatest(db);
  const clock = createClock(config.timeZone);
  // A fresh box with no park configured starts as the demo park, so `npm start` shows something.
  const demo = config.tenant === undefined && isEmptyBox(db.sqlite, db.kysely) ? await seedDemoWithOperator(db, clock) : undefined;
  // Only when the cloud is configured; it runs beside the check-in service, which never waits on it.
  const sync = config.cloud ? createCloudSync({ db, clock, log: logger, cloud: config.cloud }) : undefined;
  let lanesTenant: number | undefined;
  try {
    lanesTenant = lanesFile && laneTenant(db, config.tenant, clock.nowIso());
  } catch (error) {
    db.close();
    throw error;
  }
  const lanes = lanesFile && ((checkin: CheckinService, storage: StorageHealth) =>
    startLanes({ config: lanesFile.config, db, clock, checkin, storage, tenantId: lanesTenant!, log: logger.child({ modulo: 'pistas' }) }));
  const { app, gates } = await assembleBox({ db, clock, logger, sync: sync?.worker, lanes, consoleIdleMinutes: config.consoleIdleMinutes });
  let url: string;
  try {
    url = await app.listen({ host: config.host, port: config.port });
  } catch (error) {
    await gates?.gates.close();
    await sync?.stop();
    await app.close();
    db.close();
    // The demo park was created for this start and its keys are shown only once: show them anyway.
    if (demo) {
      out.write(`\nA caixa não iniciou (${error instanceof Error ? error.message : String(error)}), mas o parque de demonstração já foi criado:\n`);
      printDemoBanner(out, { url: `http://${config.host}:${config.port}`, ...demo });
    }
    throw error;
  }
  logger.info({ versao: VERSION, url, data: config.databaseFile, timeZone: config.timeZone, nuvem: config.cloud ? new URL(config.cloud.url).host : null, pistas: lanesFile?.config.lanes.length ?? 0 }, 'gate appliance listening');
  sync?.worker.start();
  // Straight to stdout, not the logger: no log line ever carries a key.
  if (demo) printDemoBanner(out, { url, ...demo });
  return {
    url,
    async close() {
      // In-flight requests get a grace period; sockets that never sent a request must not hold the stop.
      const force = setTimeout(() => app.server.closeAllConnections(), 2000);
      await gates?.gates.close();
      await sync?.stop();
      await app.close();
      clearTimeout(force);
      db.close();
    },
  };
}
