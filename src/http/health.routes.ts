import type { RouteRegistrar } from '../app.js';
import type { Clock } from '../clock.js';
import type { Sqlite } from '../db/open.js';
import { AppError } from './errors.js';

/** GET /health: for systemd watchdogs and the IT lead's monitoring; no key needed, no data exposed. */
export const healthRoutes = ({ sqlite, clock }: { sqlite: Sqlite; clock: Clock }): RouteRegistrar => (app) => {
  app.get('/health', { schema: { tags: ['box'] } }, async () => {
    try {
      sqlite.prepare('select 1').get();
      return { success: true, data: { status: 'ok', banco: 'ok', agora: clock.nowIso(), fuso_horario: clock.timeZone } };
    } catch {
      throw new AppError('SERVICE_UNAVAILABLE', undefined, 'Banco de dados indisponível.');
    }
  });
};
