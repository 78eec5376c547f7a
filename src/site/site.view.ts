import { noRejections, type LocalReason, type SiteRejectReason, type SiteView } from './site.answers.js';

// How the box words the site (docs/site.md, "O que a caixa mostra"): GET /api/local/site, readiness and the
// console read the link's view through these, never its raw URLs.

/** A single box (no GATE_SITE_NATS_URLS), or a tenant the site does not share: nothing of a site, all zeros. */
export const siteOff = (): SiteView => ({
  modo: 'desligado',
  motivo: null,
  desde: null,
  caixa: null,
  hub: { urls: [], conectado: false, replicas: 0 },
  sequencia_aplicada: 0,
  ultima_sequencia: null,
  atraso: 0,
  pendentes: 0,
  estacionadas: 0,
  decisoes_sem_site_hoje: 0,
  conflitos: 0,
  chave_nuvem_repetida: [],
  rejeitadas: noRejections(),
  caixas: [],
});

/**
 * A hub address without user or password: nats://gate-norte:senha@hub:4222 → nats://hub:4222, and the same without
 * a scheme (gate-norte:senha@hub:4222 → hub:4222, which nats.js accepts and URL would read as a scheme).
 */
export function hubAddress(url: string): string {
  const at = url.lastIndexOf('@');
  if (at < 0) return url;
  const scheme = /^[a-z][a-z0-9+.-]*:\/\//i.exec(url)?.[0] ?? '';
  return scheme + url.slice(at + 1);
}

/** The view as it may leave the box: hub addresses without credentials, every rejection reason present. */
export const publicView = (v: SiteView): SiteView => ({
  ...v,
  hub: { ...v.hub, urls: v.hub.urls.map(hubAddress) },
  rejeitadas: { ...siteOff().rejeitadas, ...v.rejeitadas },
});

export const LOCAL_REASON_TEXT: Record<LocalReason, string> = {
  conectando: 'conectando ao hub',
  hub_inalcancavel: 'o hub não responde',
  falhas_seguidas: 'falhas seguidas ao falar com o hub',
  publicando_pendentes: 'publicando no hub os movimentos feitos sem ele',
  certificado_do_hub: 'a caixa recusou o certificado do hub (GATE_SITE_NATS_CA, nome ou validade)',
  credenciais_recusadas: 'o hub recusou o usuário ou a senha desta caixa (GATE_SITE_NATS_PASSWORD_FILE)',
};

export const LOCAL_MODE_TITLE = 'Modo local: esta caixa decide sem as outras entradas';

/** The cloud-key alarm in one sentence naming the other boxes; null without it. */
export function cloudKeyAlarm(v: SiteView): string | null {
  const others = v.chave_nuvem_repetida;
  if (others.length === 0) return null;
  const names = others.length === 1 ? `a caixa ${others[0]}` : `as caixas ${others.join(', ')}`;
  return `a chave da nuvem desta caixa é a mesma que ${names} anuncia${others.length === 1 ? '' : 'm'} no site: cada caixa precisa da sua própria chave (GATE_CLOUD_API_KEY), ou as páginas da nuvem se dividem entre elas`;
}

export const REJECT_REASON_TEXT: Record<SiteRejectReason, string> = {
  nao_json: 'não é JSON',
  grande_demais: 'maior que 8 KB',
  esquema: 'campos inválidos',
  versao: 'versão desconhecida',
  outro_tenant: 'de outro tenant',
  caixa_desconhecida: 'caixa fora de GATE_SITE_BOXES',
  acao_desconhecida: 'ação desconhecida',
  origem_forjada: 'origem forjada',
};
