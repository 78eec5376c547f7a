import type { CheckinService } from '../checkin/checkin.service.js';
import type { Clock } from '../clock.js';
import { ConfigError } from '../config.js';
import type { Db } from '../db/open.js';
import { resolveTenant } from '../tenants/tenants.repo.js';
import { serialDevices } from './devices.js';
import { listSerialPorts } from './serial-link.js';
import { startGates, type GateDevices } from './gates.js';
import type { GatesInfo } from './gates.routes.js';
import type { LaneConfigFile } from './lane-config.js';
import { createLaneEventLog } from './lane-events.js';
import type { StorageHealth } from '../db/storage.js';
import type { DriverLog } from './relay.js';

/**
 * The tenant the lanes check in for: GATE_TENANT, or the box's only tenant (the demo park on a
 * fresh box). With several tenants and no GATE_TENANT the box cannot guess: it refuses to start.
 */
export function laneTenant(db: Db, slug: string | undefined): number {
  if (slug !== undefined) return resolveTenant(db.sqlite, db.kysely, slug, 'GATE_TENANT').id;
  const tenants = db.sqlite.prepare('select id from tenants order by id limit 2').pluck().all() as number[];
  if (tenants.length === 1) return tenants[0]!;
  throw new ConfigError(
    tenants.length === 0
      ? 'GATE_CONFIG: as pistas precisam de um tenant; defina GATE_TENANT ou importe os dados do parque (gate import).'
      : 'GATE_CONFIG: há mais de um tenant neste banco; defina GATE_TENANT com o tenant das pistas.',
  );
}

export interface StartLanesDeps {
  config: LaneConfigFile;
  db: Db;
  clock: Clock;
  checkin: CheckinService;
  tenantId: number;
  log: DriverLog;
  /** A database that cannot be written is logged once there, not once per lane event. */
  storage?: StorageHealth | undefined;
  devices?: GateDevices;
  onGrant?: ((lane: string, seconds: number) => void) | undefined;
}

/** Opens the lanes' ports and starts them; what /api/local/gates shows. */
export function startLanes({ config, db, clock, checkin, storage, tenantId, log, devices = serialDevices(log), onGrant }: StartLanesDeps): GatesInfo {
  // For the technician: what the box sees. Without udev (containers) this is an empty list and a warning.
  void listSerialPorts(log).then((ports) => log.info({ portas: ports.map((p) => p.pnpId ?? p.path) }, 'serial ports seen by the box'));
  const events = createLaneEventLog({ sqlite: db.sqlite, kysely: db.kysely, writes: db.writes, tenantId, log, storage });
  const gates = startGates({ config, checkin, tenantId, clock, log, events, devices, onGrant });
  return { tenantId, gates, events, settings: config };
}
