import type { RouteRegistrar } from '../app.js';
import type { Clock } from '../clock.js';
import type { Sqlite } from '../db/open.js';
import { CANNOT_RECORD, type StorageHealth } from '../db/storage.js';
import { VERSION } from '../version.js';
import { AppError } from './errors.js';

/**
 * GET /health: for systemd watchdogs and the IT lead's monitoring; no key needed, no data exposed.
 * Fails (503) while the database cannot be read, or cannot be written (a full disk, a read-only file).
 */
export const healthRoutes = ({ sqlite, clock, storage }: { sqlite: Sqlite; clock: Clock; storage: StorageHealth }): RouteRegistrar => (app) => {
  app.get('/health', { schema: { tags: ['box'] } }, async () => {
    try {
      sqlite.prepare('select 1').get();
    } catch {
      throw new AppError('SERVICE_UNAVAILABLE', { banco: 'indisponivel' }, 'Banco de dados indisponível.');
    }
    const failing = storage.probe();
    if (failing) throw new AppError('SERVICE_UNAVAILABLE', { banco: 'sem_gravacao', motivo: failing }, CANNOT_RECORD);
    return { success: true, data: { status: 'ok', banco: 'ok', versao: VERSION, agora: clock.nowIso(), fuso_horario: clock.timeZone } };
  });
};
