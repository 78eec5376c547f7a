import type { App } from './app.js';
import { describeClock, type ClockCheck } from './clock-check.js';
import type { Db } from './db/open.js';
import { demoWarning } from './demo/retire.js';
import type { Log } from './lib/log.js';
import type { SystemdLink } from './systemd-notify.js';

// What src/box.ts says and does around listening: the start line, the stop line (docs/operations.md, "Logs"), and
// the HTTP server's close.

/** In-flight requests get a grace period; sockets that never sent a request must not hold the stop. */
export async function closeApp(app: App) {
  const force = setTimeout(() => app.server.closeAllConnections(), 2000);
  try {
    await app.close();
  } finally {
    clearTimeout(force);
  }
}

export async function listen(app: App, at: { host: string; port: number }): Promise<string> {
  // The OpenAPI document is built once, here, not on the event loop of a box already taking scans
  // (about 40 ms, by the first GET /docs).
  app.swagger();
  return app.listen(at);
}

/** One line per start (docs/operations.md, "Logs"), and what the operator must see at once. */
/** One line per start (docs/operations.md, "Logs"), with the clock's state, and what the operator must see at once. */
export function logStart(log: Log, line: Record<string, unknown>, clockCheck: ClockCheck, db: Db) {
  const relogio = clockCheck.state();
  log.info({ ...line, relogio }, 'gate appliance listening');
  const leftoverDemo = demoWarning(db);
  if (leftoverDemo) log.warn({}, leftoverDemo);
  if (relogio.suspeito)
    log.warn(
      { relogio },
      `RELÓGIO SUSPEITO: ${describeClock(relogio)}; a caixa segue funcionando e marca os eventos (docs/operations.md, "Clock")`,
    );
}

/** The stop line (how long the box was up, how many events it recorded), then STOPPING=1. */
export function stopLine(db: Db, log: Log, systemd: Pick<SystemdLink, 'stopping'> | undefined) {
  const startedAt = Date.now();
  const eventsSoFar = () => (db.statement('SELECT coalesce(max(id), 0) AS n FROM events').get() as { n: number }).n;
  const eventsAtStart = eventsSoFar();
  return async (reason: string) => {
    log.info(
      {
        motivo: reason,
        segundosNoAr: Math.round((Date.now() - startedAt) / 1000),
        eventos: eventsSoFar() - eventsAtStart,
      },
      'gate appliance stopping',
    );
    await systemd?.stopping(reason);
  };
}
