import type { BoxRoutes } from '../app.js';
import type { Auth } from '../auth/auth.js';
import type { Clock } from '../clock.js';
import type { ClockCheck } from '../clock-check.js';
import type { Db } from '../db/open.js';
import type { StorageHealth } from '../db/storage.js';
import type { ByteSlots } from '../lib/byte-slots.js';
import type { Log } from '../lib/log.js';
import { checkinRoutes } from './checkin.routes.js';
import { createCheckinService, type CheckinService, type ScanNotice } from './checkin.service.js';
import { movementRoutes } from './movement.routes.js';
import { DEFAULT_MOVEMENT_SETTINGS, type MovementSettings } from './movement.settings.js';

export interface CheckinPart {
  /** The box's one check-in service: every door calls it. */
  service: CheckinService;
  routes: BoxRoutes;
}

/**
 * The check-in core (src/box.ts starts it): the service and its HTTP door (check-in, reversal, movements). Nothing
 * of its own stays open (its writes go through the connection's write queue, closed with the database): no close.
 * The lanes file's movement settings are the tenant's (policies, areas); other tenants get the defaults.
 */
export function startCheckin({
  db,
  clock,
  log,
  auth,
  storage,
  clockCheck,
  slots,
  movement,
  onResult,
}: {
  db: Db;
  clock: Clock;
  log?: Log | undefined;
  auth: Auth;
  storage: StorageHealth;
  clockCheck: ClockCheck;
  slots: ByteSlots;
  movement?: { tenantId: number; settings: MovementSettings } | undefined;
  onResult: (notice: ScanNotice) => void;
}): CheckinPart {
  const service = createCheckinService({ db, clock, storage, onResult, clockCheck, ...(log ? { log } : {}) });
  const settingsOf = (tenantId: number) =>
    movement?.tenantId === tenantId ? movement.settings : DEFAULT_MOVEMENT_SETTINGS;
  return {
    service,
    routes: {
      v1: [checkinRoutes({ auth, checkin: service, slots, db })],
      local: [movementRoutes({ auth, checkin: service, settingsOf })],
    },
  };
}
