import type { RouteRegistrar } from '../app.js';
import type { Auth } from '../auth/auth.js';
import { guard } from '../auth/guard.js';
import { siteDocs } from './site.docs.js';
import type { SiteAnswer, TenantSite } from './site.answers.js';
import { publicView, siteOff } from './site.view.js';

/**
 * GET /api/local/site (docs/site.md, "O que a caixa mostra"): the site as this box sees it, for a key with
 * `local:read` (as GET /api/local/sync). A single box, and a key of a tenant the site does not share, get
 * `modo: 'desligado'` with zeros. Mounted by the site part: startSiteLink with the link off, the link itself on.
 */
export const siteRoutes =
  ({ auth, site }: { auth: Auth; site: TenantSite | undefined }): RouteRegistrar =>
  (app) => {
    const { onRequest, callerOf } = guard((request) => auth.apiKey(request, ['local:read']));
    app.get(
      '/api/local/site',
      {
        onRequest,
        schema: {
          tags: ['local'],
          security: [{ apiKey: [] }],
          summary: 'O site: modo, hub, caixas, pendências e alarmes',
          docs: siteDocs,
        },
      },
      async (request): Promise<SiteAnswer> => {
        const mine = site !== undefined && callerOf(request).tenantId === site.tenantId;
        return { success: true, data: mine ? publicView(site.view()) : siteOff() };
      },
    );
  };
