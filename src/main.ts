import type { Writable } from 'node:stream';
import pino from 'pino';
import { assembleBox, type LaneServices } from './box.js';
import { createClock } from './clock.js';
import { describeClock } from './clock-check.js';
import { VERSION } from './version.js';
import { loadConfig, type Config } from './config.js';
import { migrateToLatest, migrationState, openDatabase } from './db/open.js';
import { isEmptyBox, printDemoBanner, seedDemoWithOperator } from './demo/demo.js';
import { demoWarning } from './demo/retire.js';
import { createCloudSync } from './sync/cloud-sync.js';
import { loadLaneConfig } from './gate/lane-config.js';
import { laneTenant, startLanes } from './gate/register.js';
import { resolveTenant } from './tenants/tenants.repo.js';
import { loadTls } from './http/tls.js';
import { databaseWriteProbe, linkToSystemd } from './systemd-notify.js';

export interface RunningBox {
  url: string;
  /** Stops the box; `reason` (the signal) goes into the stop line. */
  close(reason?: string): Promise<void>;
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
  // Likewise an unreadable certificate or key (GATE_TLS_CERT, GATE_TLS_KEY).
  const https = config.tls && loadTls(config.tls);
  // Type=notify (systemd/gate.service): READY once listening, a watchdog while healthy, STOPPING.
  const systemd = linkToSystemd({ env: process.env, log: logger });
  const db = openDatabase(config.databaseFile);
  await systemd.migrating(migrationState(db.sqlite).pending.length);
  await migrateToLatest(db);
  const clock = createClock(config.timeZone);
  // GATE_TENANT names a tenant made with `gate tenants create`: a typo stops the start, naming the known ones.
  try {
    if (config.tenant !== undefined) resolveTenant(db.sqlite, db.kysely, config.tenant, 'GATE_TENANT');
  } catch (error) {
    db.close();
    throw error;
  }
  // A fresh box with no park configured starts as the demo park, so `npm start` shows something.
  const demo = config.tenant === undefined && isEmptyBox(db.sqlite, db.kysely) ? await seedDemoWithOperator(db, clock) : undefined;
  // Only when the cloud is configured; it runs beside the check-in service, which never waits on it.
  const sync = config.cloud ? createCloudSync({ db, clock, log: logger, cloud: config.cloud }) : undefined;
  let lanesTenant: number | undefined;
  try {
    lanesTenant = lanesFile && laneTenant(db, config.tenant);
  } catch (error) {
    db.close();
    throw error;
  }
  const lanes = lanesFile && ((services: LaneServices) =>
    startLanes({ config: lanesFile.config, db, clock, ...services, tenantId: lanesTenant!, log: logger.child({ modulo: 'pistas' }) }));
  const { app, gates, clockCheck } = await assembleBox({ db, clock, logger, sync: sync?.worker, lanes, https, consoleIdleMinutes: config.consoleIdleMinutes });
  let url: string;
  try {
    // The OpenAPI document is built once, here, not on the event loop of a box already taking scans
    // (about 40 ms, by the first GET /docs).
    await app.ready();
    app.swagger();
    url = await app.listen({ host: config.host, port: config.port });
  } catch (error) {
    await gates?.gates.close();
    await sync?.stop();
    await app.close();
    db.close();
    // The demo park was created for this start and its keys are shown only once: show them anyway.
    if (demo) {
      out.write(`\nA caixa não iniciou (${error instanceof Error ? error.message : String(error)}), mas o parque de demonstração já foi criado:\n`);
      printDemoBanner(out, { url: `${https ? 'https' : 'http'}://${config.host}:${config.port}`, ...demo });
    }
    throw error;
  }
  const relogio = clockCheck.state();
  const startedAt = Date.now();
  const eventsSoFar = () => db.sqlite.prepare('SELECT coalesce(max(id), 0) FROM events').pluck().get() as number;
  const eventsAtStart = eventsSoFar();
  // One line per start, one per stop (docs/operations.md, "Logs").
  const startLine = {
    versao: VERSION,
    url,
    tenant: config.tenant ?? demo?.tenantSlug ?? null,
    data: config.databaseFile,
    timeZone: config.timeZone,
    nuvem: config.cloud ? new URL(config.cloud.url).host : null,
    pistas: lanesFile?.config.lanes.length ?? 0,
    watchdogSegundos: systemd.watchdogSeconds,
    relogio,
  };
  logger.info(startLine, 'gate appliance listening');
  const leftoverDemo = demoWarning(db.sqlite, db.kysely);
  if (leftoverDemo) logger.warn(leftoverDemo);
  if (relogio.suspeito) logger.warn({ relogio }, `RELÓGIO SUSPEITO: ${describeClock(relogio)}; a caixa segue funcionando e marca os eventos (docs/operations.md, "Clock")`);
  sync?.worker.start();
  // Straight to stdout, not the logger: no log line ever carries a key.
  if (demo) printDemoBanner(out, { url, ...demo });
  await systemd.ready(`atendendo em ${url}`, databaseWriteProbe(db, () => clock.nowIso()));
  return {
    url,
    async close(reason = 'close') {
      logger.info({ motivo: reason, segundosNoAr: Math.round((Date.now() - startedAt) / 1000), eventos: eventsSoFar() - eventsAtStart }, 'gate appliance stopping');
      const stopping = systemd.stopping(reason);
      // In-flight requests get a grace period; sockets that never sent a request must not hold the stop.
      const force = setTimeout(() => app.server.closeAllConnections(), 2000);
      await gates?.gates.close();
      await sync?.stop();
      await app.close();
      clearTimeout(force);
      db.close();
      await stopping;
    },
  };
}
