import type { CheckinService } from '../checkin/checkin.service.js';
import type { Clock } from '../clock.js';
import type { Db } from '../db/open.js';
import { serialDevices } from './devices.js';
import { listSerialPorts } from './serial/serial-port.js';
import { startGates, type GateDevices, type GatesInfo } from './lanes/gates.js';
import type { LaneConfigFile } from './lanes/lane-config.js';
import { createLaneEventLog } from './lanes/lane-events.js';
import type { StorageHealth } from '../db/storage.js';
import type { Log } from '../lib/log.js';

export interface StartLanesDeps {
  config: LaneConfigFile;
  db: Db;
  clock: Clock;
  checkin: CheckinService;
  /** The box's tenant, resolved once at start (boxTenant, src/tenants/box-tenant.ts). */
  tenantId: number;
  log: Log;
  /** A database that cannot be written is logged once there, not once per lane event. */
  storage?: StorageHealth | undefined;
  devices?: GateDevices;
  onGrant?: ((lane: string, seconds: number) => void) | undefined;
}

/** Opens the lanes' ports and starts them; what /api/local/gates shows. */
export function startLanes({
  config,
  db,
  clock,
  checkin,
  storage,
  tenantId,
  log,
  devices = serialDevices(log),
  onGrant,
}: StartLanesDeps): GatesInfo {
  // For the technician: what the box sees. Without udev (containers) this is an empty list and a warning.
  void listSerialPorts(log).then((ports) =>
    log.info({ portas: ports.map((p) => p.pnpId ?? p.path) }, 'serial ports seen by the box'),
  );
  const events = createLaneEventLog({ db, tenantId, log, storage });
  const gates = startGates({ config, checkin, tenantId, clock, log, events, devices, onGrant });
  return { tenantId, gates, events, settings: config };
}
