import { buildApp } from '../../src/app.js';
import { startConsole } from '../../src/console/console.start.js';
import { createStorageHealth } from '../../src/db/storage.js';
import { createListeners } from '../../src/lib/listeners.js';
import { createOperator } from '../../src/operators/operators.repo.js';
import { createBoxStatus } from '../../src/status/box-status.js';
import { createTestBox } from './box.js';
import { ATTENDANT, SUPERVISOR, type ConsoleBox } from './console-browser.js';
import { fakeSite, type FakeSite } from './site-info.js';

/**
 * The staff console of a box in a site, in a real browser: the real console part (sessions, panels, live stream,
 * static files) on a real test box's database and check-in service, with the box's status reading a SiteInfo made
 * in the test (the box itself has no seam for one: the site link builds it). Run `npm run build` first.
 */
export async function startSiteConsoleBox(): Promise<ConsoleBox & { site: FakeSite }> {
  const box = await createTestBox();
  const { db, clock } = box;
  const site = fakeSite(box.tenantId);
  const status = createBoxStatus({ db, storage: createStorageHealth({ sqlite: db.sqlite }), site });
  const staff = startConsole({ db, clock, checkin: box.checkin, status, scans: createListeners() });
  const app = await buildApp({ logger: false, routeDocs: staff.docs, local: staff.routes.local });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  if (!address || typeof address === 'string') throw new Error('no port');
  const addOperator = async (nome: string, segredo: string, papel: 'atendente' | 'supervisor') => {
    await createOperator(db, { tenantId: box.tenantId, nome, papel, segredo, nowIso: clock.nowIso() });
  };
  await addOperator(SUPERVISOR.nome, SUPERVISOR.segredo, 'supervisor');
  await addOperator(ATTENDANT.nome, ATTENDANT.segredo, 'atendente');
  const unsupported = () => Promise.reject(new Error('not in the site console box'));
  return {
    box,
    site,
    origin: `http://127.0.0.1:${address.port}`,
    port: address.port,
    goAway: unsupported,
    comeBack: unsupported,
    addOperator,
    async close() {
      staff.close();
      app.server.closeAllConnections();
      await app.close();
      await box.close();
    },
  };
}
