import type { BoxRoutes } from '../app.js';
import type { CheckinService } from '../checkin/checkin.service.js';
import type { Clock } from '../clock.js';
import type { ConsoleGuard } from '../console/sessions.js';
import type { Db } from '../db/open.js';
import type { OperationDocs } from '../http/openapi.js';
import { handheldConsoleRoutes } from './handheld.console.js';
import { handheldConsoleDocs } from './handheld.docs.js';
import { handheldRoutes } from './handheld.routes.js';
import { createHandheldService } from './handheld.service.js';

/** GATE_HANDHELD*: the handhelds' part, on only when the box serves HTTPS (src/config.ts refuses it otherwise). */
export interface HandheldSpec {
  /** GATE_HANDHELD_TIMEOUT_MS: a scan's bound, its result on screen within it, decided on the device if need be. */
  timeoutMs: number;
  /** GATE_HANDHELD_NOMES: people's names go to the devices' day data. */
  names: boolean;
}

/** The handhelds' endpoints and the console's handhelds screen; nothing without a spec. */
export function startHandheld(deps: {
  db: Db;
  clock: Clock;
  checkin: CheckinService;
  consoleGuard: ConsoleGuard;
  spec: HandheldSpec | undefined;
}): { routes: BoxRoutes; docs: Record<string, OperationDocs> } {
  const { db, clock, checkin, spec } = deps;
  if (!spec) return { routes: {}, docs: {} };
  const service = createHandheldService({ db, clock, checkin, names: spec.names });
  return {
    docs: handheldConsoleDocs,
    routes: {
      local: [
        handheldRoutes({ db, clock, service, names: spec.names }),
        handheldConsoleRoutes({ db, clock, guard: deps.consoleGuard }),
      ],
    },
  };
}
