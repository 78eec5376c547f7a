import { z } from 'zod';
import { nullableEnum } from '../lib/wire.js';

// The site as the box sees it (docs/site.md): the one description of GET /api/local/site, the console's site panel
// and banner, and the gate_site_* metrics. The site link (site-link.ts) builds it; each reader words it its way.

export const SITE_MODES = ['site', 'local', 'desligado'] as const;

/** Why the box decides without the site (mode 'local'); null in the other modes. */
export const LOCAL_REASONS = [
  'conectando',
  'hub_inalcancavel',
  'falhas_seguidas',
  'publicando_pendentes',
  'certificado_do_hub',
  'credenciais_recusadas',
] as const;

export const SITE_REJECT_REASONS = [
  'nao_json',
  'grande_demais',
  'esquema',
  'versao',
  'outro_tenant',
  'caixa_desconhecida',
  'acao_desconhecida',
  'origem_forjada',
] as const;

export const siteBoxSchema = z.strictObject({
  caixa: z.string().describe('Nome da caixa no site (GATE_SITE_BOX)'),
  esta_caixa: z.boolean(),
  visto_em: z.string().nullable().describe('Última vez que a caixa se anunciou no hub, ISO 8601'),
  versao: z.string().nullable(),
  sequencia_aplicada: z.number().int().nullable().describe('Última mensagem do hub que a caixa aplicou'),
  atraso: z.number().int().nullable().describe('Mensagens do hub que a caixa ainda não aplicou'),
  pendentes: z.number().int().nullable().describe('Movimentos da caixa ainda não publicados no hub'),
});

export const siteAnswerSchema = z.strictObject({
  success: z.literal(true),
  data: z.strictObject({
    modo: z.enum(SITE_MODES).describe('site: decide com o hub; local: decide sozinha; desligado: sem site'),
    motivo: nullableEnum(LOCAL_REASONS).describe('Por que decide sozinha (modo local); null nos outros modos'),
    desde: z.string().nullable().describe('Desde quando está neste modo'),
    caixa: z.string().nullable(),
    hub: z.strictObject({
      urls: z.array(z.string()).describe('Endereços do hub, sem senha'),
      conectado: z.boolean(),
      replicas: z.number().int(),
    }),
    sequencia_aplicada: z.number().int(),
    ultima_sequencia: z.number().int().nullable().describe('Última mensagem do hub conhecida'),
    atraso: z.number().int().describe('Mensagens do hub ainda não aplicadas nesta caixa'),
    pendentes: z.number().int().describe('Movimentos desta caixa ainda não publicados no hub'),
    estacionadas: z.number().int().describe('Movimentos de outras caixas de QR ainda desconhecido aqui'),
    decisoes_sem_site_hoje: z.number().int(),
    conflitos: z.number().int().describe('Conflitos duplo_no_site'),
    chave_nuvem_repetida: z
      .array(z.string())
      .describe('Outras caixas que anunciam a mesma chave da nuvem que esta: alarme, e a caixa fica não pronta'),
    rejeitadas: z.record(z.enum(SITE_REJECT_REASONS), z.number().int()),
    caixas: z.array(siteBoxSchema),
  }),
});

export type SiteAnswer = z.output<typeof siteAnswerSchema>;
export type SiteView = SiteAnswer['data'];
export type SiteBox = z.output<typeof siteBoxSchema>;
export type SiteMode = (typeof SITE_MODES)[number];
export type LocalReason = (typeof LOCAL_REASONS)[number];
export type SiteRejectReason = (typeof SITE_REJECT_REASONS)[number];

/** Every rejection reason at 0: the view always names them all. */
export const noRejections = () =>
  Object.fromEntries(SITE_REJECT_REASONS.map((r) => [r, 0])) as Record<SiteRejectReason, number>;

/** What the rest of the box reads of the site link: the status and metrics read `view()` at request time. */
export interface SiteInfo {
  view(): SiteView;
  /** Claim round trips (publish to ack), ms, since the last call: the metrics' histogram drains it. */
  drainClaimMs(): number[];
}

/**
 * The site link's SiteInfo with the tenant whose movements it shares (the box's, GATE_TENANT), as site.start.ts hands
 * it to the box: keys and console sessions of another tenant see no site.
 */
export interface TenantSite extends SiteInfo {
  readonly tenantId: number;
}
