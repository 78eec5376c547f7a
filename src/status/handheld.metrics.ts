import { Gauge, type Registry } from 'prom-client';
import type { Clock } from '../clock.js';
import type { Db } from '../db/open.js';
import { silentWithQueue, type DeviceRow } from '../handheld/devices.repo.js';

/**
 * The handhelds' gauges (docs/handheld.md, "Parear e acompanhar"): paired devices, the movements they said they hold,
 * and the alarm of a device unseen for 15 minutes with movements queued. Read from the database at scrape time.
 */
export function handheldMetrics(registry: Registry, db: Db, clock: Clock) {
  const read = () => {
    const nowMs = clock.now().getTime();
    const active = db
      .statement('SELECT revoked_at, queued, last_seen_at FROM handheld_devices WHERE revoked_at IS NULL')
      .all() as Pick<DeviceRow, 'revoked_at' | 'queued' | 'last_seen_at'>[];
    return {
      devices: active.length,
      queued: active.reduce((n, d) => n + d.queued, 0),
      silent: active.filter((d) => silentWithQueue(d, nowMs)).length,
    };
  };
  let scraped: ReturnType<typeof read> | null = null;
  const value = () => (scraped ??= read());
  const gauge = (name: string, help: string, pick: (v: ReturnType<typeof read>) => number) =>
    new Gauge({
      name,
      help,
      registers: [registry],
      collect() {
        this.set(pick(value()));
      },
    });
  gauge('gate_handhelds', 'Handhelds paired and not revoked', (v) => v.devices);
  gauge('gate_handheld_queued_movements', 'Movements the handhelds said they hold, not yet uploaded', (v) => v.queued);
  gauge(
    'gate_handhelds_silent_with_queue',
    'Handhelds unseen for 15 minutes that said they hold movements (an alarm)',
    (v) => v.silent,
  );
  return {
    /** A new scrape reads again. */
    reset() {
      scraped = null;
    },
  };
}
