import { createHash } from 'node:crypto';
import type { Auth } from '../auth/auth.js';
import type { CheckinService } from '../checkin/checkin.service.js';
import type { Clock } from '../clock.js';
import type { Db } from '../db/open.js';
import type { Log } from '../lib/log.js';
import type { SiteConfig } from '../site-config.js';
import type { BoxRoutes } from '../app.js';
import type { SiteInfo, TenantSite } from './site.answers.js';
import { siteRoutes } from './site.routes.js';

export { siteRoutes } from './site.routes.js';

export interface SitePart {
  /** What status, metrics and the console read; undefined on a single box. */
  info: TenantSite | undefined;
  /** GET /api/local/site, on a single box too (it answers `desligado`). */
  routes: BoxRoutes;
  /** Publishes nothing more, drains what is in flight, closes the connection to the hub. */
  close: (() => Promise<void>) | undefined;
}

/**
 * The site link (src/box.ts starts it after the sync): only when GATE_SITE_NATS_URLS is set, and then its NATS
 * client is loaded; a single box opens nothing. The box never waits for the hub: the link connects in the
 * background and the check-in core decides alone until the hub answers.
 */
export async function startSiteLink(deps: {
  link: SiteConfig | undefined;
  db: Db;
  clock: Clock;
  auth: Auth;
  checkin: CheckinService;
  tenantId: number | undefined;
  /** Fingerprint of this box's cloud key (the sync's), announced to the other boxes; undefined without a cloud. */
  cloudKey: string | undefined;
  log: Log;
}): Promise<SitePart> {
  if (!deps.link)
    return { info: undefined, routes: { local: [siteRoutes({ auth: deps.auth, site: undefined })] }, close: undefined };
  if (deps.tenantId === undefined)
    throw new Error('o site precisa do tenant da caixa: defina GATE_TENANT (há mais de um tenant neste banco)');
  const { startLink } = await import('./site-link.js');
  const link = await startLink({ ...deps, link: deps.link, tenantId: deps.tenantId });
  const info = tenantSite(link.info, deps.tenantId);
  return { info, routes: { local: [siteRoutes({ auth: deps.auth, site: info })] }, close: () => link.close() };
}

/**
 * What the box announces of its cloud key: enough to tell two boxes pulling with one key (sync marks are per key,
 * so they would split the pages between them), nothing to recover the key from. Of the key alone: the cloud knows a
 * box by its key, whatever address the box reaches it by (an IP, a name, a trailing slash), so two boxes with one
 * key must announce one print. The label keeps the print apart from any other hash of the same key.
 */
export const cloudKeyPrint = (cloud: { apiKey: string } | undefined): string | undefined =>
  cloud && createHash('sha256').update(`gate-cloud-key\n${cloud.apiKey}`).digest('hex').slice(0, 16);

/** The link's view, said to be the box's tenant's. */
const tenantSite = (info: SiteInfo, tenantId: number): TenantSite => ({
  tenantId,
  view: () => info.view(),
  drainClaimMs: () => info.drainClaimMs(),
});
