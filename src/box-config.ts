import type { Writable } from 'node:stream';
import type { Logger } from 'pino';
import { createBox, type Box } from './box.js';
import { createClock } from './clock.js';
import type { Config } from './config.js';
import { loadLaneConfig } from './gate/lanes/lanes-file.js';
import tls from 'node:tls';
import { loadTls } from './http/tls.js';
import { createSiteTls } from './tls/site-tls.js';
import { linkToSystemd } from './systemd-notify.js';

export interface BoxRunDeps {
  logger: Logger;
  /** Where the demo banner goes: straight to stdout, never the logger (it carries keys). */
  out: Writable;
  /** Read for systemd's NOTIFY_SOCKET and WATCHDOG_USEC. */
  env: NodeJS.ProcessEnv;
}

/**
 * The running box's parts from its configuration (src/box.ts starts them). The files are read first, before
 * anything is opened: a bad lanes file, certificate or key stops the start with every problem named.
 */
export function createBoxFromConfig(config: Config, { logger, out, env }: BoxRunDeps): Box {
  const lanesFile = config.laneConfigFile === undefined ? undefined : loadLaneConfig(config.laneConfigFile);
  for (const warning of lanesFile?.warnings ?? []) logger.warn(warning);
  const siteTls =
    config.siteTls &&
    createSiteTls({
      dir: config.siteTls.dir,
      log: logger.child({ modulo: 'tls' }),
      createSecureContext: tls.createSecureContext,
    });
  const https = siteTls?.https ?? (config.tls && loadTls(config.tls));
  return createBox({
    database: config.databaseFile,
    clock: createClock(config.timeZone),
    logger,
    tenant: config.tenant,
    lanes: lanesFile && { config: lanesFile.config },
    cloud: config.cloud,
    siteLink: config.site,
    handheld: config.handheld,
    listen: { host: config.host, port: config.port },
    https,
    siteTls: siteTls && config.siteTls && { tls: siteTls, caPort: config.siteTls.caPort || undefined },
    consoleIdleMinutes: config.consoleIdleMinutes,
    // Type=notify (systemd/gate.service): READY once listening, a watchdog while healthy, STOPPING.
    systemd: linkToSystemd({ env, log: logger }),
    demoBannerTo: out,
  });
}
