import type { BoxRoutes } from '../app.js';
import type { Auth } from '../auth/auth.js';
import type { CheckinService } from '../checkin/checkin.service.js';
import type { Clock } from '../clock.js';
import type { Db } from '../db/open.js';
import type { StorageHealth } from '../db/storage.js';
import type { Log } from '../lib/log.js';
import type { GateDevices, GatesInfo } from './lanes/gates.js';
import { gatesRoutes } from './gates.routes.js';
import type { LaneConfigFile } from './lanes/lane-config.js';

/** The lanes the box runs: the lanes file (GATE_CONFIG) and, in tests, the devices behind its ports. */
export interface GateSpec {
  config: LaneConfigFile;
  devices?: GateDevices | undefined;
}

export interface GatePart {
  /** The running lanes; undefined without a lanes file. */
  gates: GatesInfo | undefined;
  /** /api/local/gates (which says "no lanes" when there are none). */
  routes: BoxRoutes;
  /** Closes every lane's ports; undefined when there are none. */
  close: (() => Promise<void>) | undefined;
}

/**
 * The gate (src/box.ts starts it after the check-in core): the lanes on the box's one check-in service. The drivers
 * (serialport's native bindings among them) are loaded only on a box with lanes: a box without keeps their memory.
 */
export async function startGate({
  lanes,
  db,
  clock,
  auth,
  checkin,
  tenantId,
  storage,
  log,
  onGrant,
}: {
  lanes: GateSpec | undefined;
  db: Db;
  clock: Clock;
  auth: Auth;
  checkin: CheckinService;
  /** The box's tenant (required with lanes: src/box.ts resolves it). */
  tenantId: number | undefined;
  storage: StorageHealth;
  log: Log;
  onGrant: (lane: string, seconds: number) => void;
}): Promise<GatePart> {
  const gates =
    lanes &&
    (await import('./register.js')).startLanes({
      config: lanes.config,
      ...(lanes.devices ? { devices: lanes.devices } : {}),
      db,
      clock,
      checkin,
      tenantId: tenantId!,
      storage,
      log,
      onGrant,
    });
  return {
    gates,
    routes: { local: [gatesRoutes({ auth, gates, checkin })] },
    close: gates && (() => gates.gates.close()),
  };
}
