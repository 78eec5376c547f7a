import type { RouteRegistrar } from '../app.js';
import { SITE_REJECT_REASONS, type SiteView } from '../site/site.answers.js';
import { cloudKeyAlarm, LOCAL_REASON_TEXT, REJECT_REASON_TEXT, siteOff } from '../site/site.view.js';
import type { BoxStatus } from '../status/box-status.js';
import type { ModoSite, PainelSite } from './console.answers.js';
import type { ConsoleGuard } from './sessions.js';

// The site in the console (docs/console.md): the local-mode banner every operator sees and the supervisor's site
// panel, worded from the box's status. Hub addresses go out as host:port only: never a user or a password.

const hostOf = (url: string) => {
  try {
    return new URL(url).host || url;
  } catch {
    return url.slice(url.lastIndexOf('@') + 1);
  }
};

/** The supervisor's panel of the tenant's site; `modo: 'desligado'` for a tenant without one. */
export function sitePanel(status: BoxStatus, tenantId: number): PainelSite {
  const v: SiteView = status.site(tenantId) ?? siteOff();
  return {
    modo: v.modo,
    motivo: v.modo === 'local' && v.motivo ? LOCAL_REASON_TEXT[v.motivo] : null,
    desde: v.desde,
    pendentes: v.pendentes,
    caixa: v.caixa,
    hub: { enderecos: v.hub.urls.map(hostOf), conectado: v.hub.conectado },
    atraso: v.atraso,
    estacionadas: v.estacionadas,
    decisoes_sem_site_hoje: v.decisoes_sem_site_hoje,
    conflitos: v.conflitos,
    rejeitadas: SITE_REJECT_REASONS.map((motivo) => ({
      motivo,
      descricao: REJECT_REASON_TEXT[motivo],
      total: v.rejeitadas[motivo] ?? 0,
    })),
    chave_nuvem_repetida: v.chave_nuvem_repetida,
    alarme_chave: cloudKeyAlarm(v),
    caixas: v.caixas,
  };
}

/** The banner's part of the panel. */
export const siteBanner = (p: PainelSite): ModoSite => ({
  modo: p.modo,
  motivo: p.motivo,
  desde: p.desde,
  pendentes: p.pendentes,
});

/** GET /api/console/site/modo (anyone: the banner) and GET /api/console/site (supervisor: the panel). */
export const siteConsoleRoutes =
  ({ status, guard }: { status: BoxStatus; guard: ConsoleGuard }): RouteRegistrar =>
  (app) => {
    const tags = ['console'];
    app.get(
      '/api/console/site/modo',
      { onRequest: guard.anyone, schema: { tags, summary: 'O modo do site, para a faixa de modo local' } },
      async (request) => ({
        success: true,
        data: siteBanner(sitePanel(status, guard.sessionOf(request).tenantId)),
      }),
    );
    app.get(
      '/api/console/site',
      { onRequest: guard.supervisor, schema: { tags, summary: 'O site: caixas, atraso, conflitos (supervisor)' } },
      async (request) => ({ success: true, data: sitePanel(status, guard.sessionOf(request).tenantId) }),
    );
  };
