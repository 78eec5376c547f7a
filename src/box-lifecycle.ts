import type { Writable } from 'node:stream';
import type { Logger } from 'pino';
import { assembleBox, type LaneServices } from './box.js';
import { createClock } from './clock.js';
import { describeClock } from './clock-check.js';
import { ConfigError, type Config } from './config.js';
import { holdDatabase, openOrRelease } from './db/holder.js';
import { migrateToLatest, migrationState, openDatabase, type Db } from './db/open.js';
import { isEmptyBox, printDemoBanner, seedDemoWithOperator } from './demo/demo.js';
import { demoWarning } from './demo/retire.js';
import { loadLaneConfig } from './gate/lanes/lanes-file.js';
import { startLanes } from './gate/register.js';
import { loadTls } from './http/tls.js';
import { createClosers } from './lib/closers.js';
import { createCloudSync } from './sync/cloud-sync.js';
import { resolveTenant, tenantSlugs } from './tenants/tenants.repo.js';
import { databaseWriteProbe, linkToSystemd } from './systemd-notify.js';
import { VERSION } from './version.js';

export interface Box {
  /**
   * Opens everything in order and listens; when a step fails, closes what it had opened (newest first) and rethrows.
   */
  start(): Promise<{ url: string }>;
  /** The stop line and STOPPING, then everything start() opened, newest first, each once. Idempotent. */
  close(reason?: string): Promise<void>;
}

export interface BoxRunDeps {
  logger: Logger;
  /** Where the demo banner goes: straight to stdout, never the logger (it carries keys). */
  out: Writable;
  /** Read for systemd's NOTIFY_SOCKET and WATCHDOG_USEC. */
  env: NodeJS.ProcessEnv;
}

/**
 * The box's tenant, resolved once for the lanes and the sync worker: GATE_TENANT, which must name a
 * tenant made with `gate tenants create` (a typo stops the start, naming the known ones); without it,
 * the lanes take the box's only tenant (the demo park on a fresh box). With several tenants and no
 * GATE_TENANT the box cannot guess: it refuses to start.
 */
export function boxTenant(db: Db, slug: string | undefined, lanes: boolean): number | undefined {
  if (slug !== undefined) return resolveTenant(db, slug, 'GATE_TENANT').id;
  if (!lanes) return undefined;
  const slugs = tenantSlugs(db);
  if (slugs.length === 1) return resolveTenant(db, slugs[0]!).id;
  throw new ConfigError(
    slugs.length === 0
      ? 'GATE_CONFIG: as pistas precisam de um tenant; defina GATE_TENANT ou importe os dados do parque (gate import).'
      : 'GATE_CONFIG: há mais de um tenant neste banco; defina GATE_TENANT com o tenant das pistas.',
  );
}

const message = (error: unknown) => (error instanceof Error ? error.message : String(error));

/**
 * The running box: lanes file → TLS → systemd → db + migrate → demo seed → tenant → sync →
 * lanes and routes (assembleBox) → listen → start line → sync start → READY. Each thing opened
 * pushes its closer, so a failed start and the stop close the same things in reverse order.
 */
export function createBox(config: Config, { logger, out, env }: BoxRunDeps): Box {
  const closers = createClosers({
    onClosed: (name) => logger.debug({ recurso: name }, 'closed'),
    onError: (name, error) => logger.error({ recurso: name, err: message(error) }, 'closing failed'),
  });
  let starting: Promise<{ url: string }> | undefined;
  let closing: Promise<void> | undefined;
  /** Set once the box is up: the stop line and STOPPING=1 (which also stops the watchdog's probe writes). */
  let announceStop: ((reason: string) => Promise<void>) | undefined;
  /** Created for this start; its keys are shown only once, so a failed start shows them anyway. */
  let demo: Awaited<ReturnType<typeof seedDemoWithOperator>> | undefined;
  let https: { cert: Buffer; key: Buffer } | undefined;

  async function open(): Promise<{ url: string }> {
    // A bad lanes file stops the start before anything is opened, with every problem named.
    const lanesFile = config.laneConfigFile === undefined ? undefined : loadLaneConfig(config.laneConfigFile);
    for (const warning of lanesFile?.warnings ?? []) logger.warn(warning);
    // Likewise an unreadable certificate or key (GATE_TLS_CERT, GATE_TLS_KEY).
    https = config.tls && loadTls(config.tls);
    // Type=notify (systemd/gate.service): READY once listening, a watchdog while healthy, STOPPING.
    const systemd = linkToSystemd({ env, log: logger });
    // Held while the box runs, released with the database: `gate restore` is refused meanwhile (src/db/holder.ts).
    const hold = holdDatabase(config.databaseFile);
    const db = openOrRelease(hold, () => openDatabase(config.databaseFile));
    closers.push('banco', () => {
      db.close();
      hold.release();
    });
    await systemd.migrating(migrationState(db.sqlite).pending.length);
    await migrateToLatest(db);
    const clock = createClock(config.timeZone);
    // A fresh box with no park configured starts as the demo park, so `npm start` shows something.
    if (config.tenant === undefined && isEmptyBox(db)) demo = await seedDemoWithOperator(db, clock);
    const tenantId = boxTenant(db, config.tenant, lanesFile !== undefined);
    // Only when the cloud is configured (GATE_TENANT is then required: config.ts); it runs beside the
    // check-in service, which never waits on it.
    const sync = config.cloud
      ? createCloudSync({ db, clock, log: logger, cloud: config.cloud, tenantId: tenantId! })
      : undefined;
    if (sync) closers.push('nuvem', () => sync.stop());
    const lanes =
      lanesFile &&
      ((services: LaneServices) => {
        const started = startLanes({
          config: lanesFile.config,
          db,
          clock,
          ...services,
          tenantId: tenantId!,
          log: logger.child({ modulo: 'pistas' }),
        });
        closers.push('pistas', () => started.gates.close());
        return started;
      });
    const { app, clockCheck } = await assembleBox({
      db,
      clock,
      logger,
      sync: sync?.worker,
      lanes,
      https,
      consoleIdleMinutes: config.consoleIdleMinutes,
    });
    closers.push('http', async () => {
      // In-flight requests get a grace period; sockets that never sent a request must not hold the stop.
      const force = setTimeout(() => app.server.closeAllConnections(), 2000);
      try {
        await app.close();
      } finally {
        clearTimeout(force);
      }
    });
    // The OpenAPI document is built once, here, not on the event loop of a box already taking scans
    // (about 40 ms, by the first GET /docs).
    await app.ready();
    app.swagger();
    const url = await app.listen({ host: config.host, port: config.port });

    const relogio = clockCheck.state();
    const startedAt = Date.now();
    const eventsSoFar = () => (db.statement('SELECT coalesce(max(id), 0) AS n FROM events').get() as { n: number }).n;
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
    const leftoverDemo = demoWarning(db);
    if (leftoverDemo) logger.warn(leftoverDemo);
    if (relogio.suspeito)
      logger.warn(
        { relogio },
        `RELÓGIO SUSPEITO: ${describeClock(relogio)}; a caixa segue funcionando e marca os eventos (docs/operations.md, "Clock")`,
      );
    if (sync) {
      closers.push('sincronizador', () => sync.worker.stop());
      sync.worker.start();
    }
    // Straight to stdout, not the logger: no log line ever carries a key.
    if (demo) printDemoBanner(out, { url, ...demo });
    await systemd.ready(
      `atendendo em ${url}`,
      databaseWriteProbe(db, () => clock.nowIso()),
    );
    announceStop = (reason) => {
      logger.info(
        {
          motivo: reason,
          segundosNoAr: Math.round((Date.now() - startedAt) / 1000),
          eventos: eventsSoFar() - eventsAtStart,
        },
        'gate appliance stopping',
      );
      return systemd.stopping(reason);
    };
    return { url };
  }

  return {
    start() {
      if (starting || closing)
        return Promise.reject(new Error(starting ? 'a caixa já foi iniciada' : 'a caixa já foi encerrada'));
      starting = open().catch(async (error: unknown) => {
        await closers.close().catch(() => undefined); // each failure already logged by onError
        if (demo) {
          out.write(`\nA caixa não iniciou (${message(error)}), mas o parque de demonstração já foi criado:\n`);
          printDemoBanner(out, { url: `${https ? 'https' : 'http'}://${config.host}:${config.port}`, ...demo });
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
