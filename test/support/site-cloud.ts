import { createApiKey } from '../../src/auth/api-keys.js';
import { createClock } from '../../src/clock.js';
import { startFakeCloud, type FakeCloud } from './fake-cloud.js';
import { SITE_TZ, startSite, type SiteDataset } from './site-boxes.js';

// A test site's boxes and the fake cloud (test/support/fake-cloud.ts): each box pulls and pushes with its own
// cloud key, as docs/site.md asks (sync marks are per key). Give `apiKey` to make two boxes share one, the mistake
// the site must catch.

/** What a box of the site the boxes sync with needs in its environment; its own cloud key unless `apiKey`. */
export function cloudEnv(
  cloud: FakeCloud,
  box: string,
  opts: { apiKey?: string; pullSeconds?: number; pushSeconds?: number } = {},
): NodeJS.ProcessEnv {
  const apiKey =
    opts.apiKey ??
    createApiKey(cloud.db, {
      tenantId: cloud.tenantId,
      name: `caixa-${box}`,
      permissions: ['vouchers:read', 'vouchers:checkin', 'clientes:read'],
      nowIso: new Date().toISOString(),
    }).key;
  return {
    GATE_CLOUD_URL: cloud.url,
    GATE_CLOUD_API_KEY: apiKey,
    GATE_CLOUD_INTEGRATION_KEY: cloud.keys.integration,
    GATE_SYNC_PULL_SECONDS: String(opts.pullSeconds ?? 1),
    GATE_SYNC_PUSH_SECONDS: String(opts.pushSeconds ?? 0.2),
  };
}

/** A site of boxes on a hub, each with its own key on one fake cloud holding the dataset's orders, all on the site. */
export async function startSiteWithCloud(names: string[], dataset: SiteDataset) {
  const cloud = await startFakeCloud({ clock: createClock(SITE_TZ), recordRequests: false });
  cloud.addOrders(dataset.pedidos);
  try {
    const site = await startSite({ names, dataset, env: (name) => cloudEnv(cloud, name) });
    for (const b of site.boxes) await b.untilMode('site');
    return { site, cloud };
  } catch (error) {
    await cloud.close();
    throw error;
  }
}
