import type { OperationDocs } from '../http/openapi.js';
import { siteAnswerSchema, type SiteAnswer } from './site.answers.js';
import { siteOff } from './site.view.js';

// GET /api/local/site (docs/site.md) for the OpenAPI at /docs; the shape of site.routes.ts.

const box = (caixa: string, esta: boolean, seq: number, atraso: number) => ({
  caixa,
  esta_caixa: esta,
  visto_em: '2026-11-21T12:59:58.000Z',
  versao: '1.23.0',
  sequencia_aplicada: seq,
  atraso,
  pendentes: 0,
});

const inSite: SiteAnswer = {
  success: true,
  data: {
    ...siteOff(),
    modo: 'site',
    desde: '2026-11-21T08:00:03.000Z',
    caixa: 'norte',
    hub: { urls: ['nats://hub.parque.lan:4222'], conectado: true, replicas: 1 },
    sequencia_aplicada: 18234,
    ultima_sequencia: 18236,
    atraso: 2,
    decisoes_sem_site_hoje: 14,
    conflitos: 1,
    rejeitadas: { ...siteOff().rejeitadas, esquema: 1 },
    caixas: [box('norte', true, 18234, 2), box('sul', false, 18236, 0)],
  },
};

const local: SiteAnswer = {
  success: true,
  data: {
    ...inSite.data,
    modo: 'local',
    motivo: 'hub_inalcancavel',
    desde: '2026-11-21T12:41:10.000Z',
    hub: { ...inSite.data.hub, conectado: false },
    pendentes: 37,
  },
};

/** A box never seen on the hub: nothing heard of any box, its own included. */
const unseen = (caixa: string, esta: boolean) => ({
  ...box(caixa, esta, 0, 0),
  visto_em: null,
  versao: null,
  sequencia_aplicada: null,
  atraso: null,
  pendentes: null,
});

const refused: SiteAnswer = {
  success: true,
  data: {
    ...local.data,
    motivo: 'credenciais_recusadas',
    desde: '2026-11-21T08:00:01.000Z',
    sequencia_aplicada: 0,
    ultima_sequencia: null,
    atraso: 0,
    pendentes: 212,
    decisoes_sem_site_hoje: 212,
    conflitos: 0,
    rejeitadas: siteOff().rejeitadas,
    caixas: [unseen('norte', true), unseen('sul', false)],
  },
};

export const siteDocs: OperationDocs = {
  description:
    'O site desta caixa (várias caixas de um parque compartilhando os movimentos por um hub NATS, docs/site.md): o modo (`site`: decide com o hub; `local`: decide sozinha, com `motivo` e `desde`; `desligado`: caixa única), o hub (endereços sem senha), cada caixa com a última vez que se anunciou, a versão, a sequência aplicada e o atraso, os movimentos desta caixa ainda não publicados (`pendentes`), os de outras caixas à espera de um QR desconhecido aqui (`estacionadas`), as decisões de hoje tomadas sem o site, os conflitos `duplo_no_site`, as mensagens do hub recusadas por motivo e o alarme de chave da nuvem repetida (`chave_nuvem_repetida`: outras caixas com a mesma chave da nuvem; a caixa fica não pronta). Sem site (GATE_SITE_NATS_URLS vazio), ou para uma chave de outro tenant, responde `modo: desligado` com listas vazias e zeros.',
  permissions: ['local:read'],
  ok: {
    description: 'O site como esta caixa o vê.',
    schema: siteAnswerSchema,
    examples: {
      site: { summary: 'Decidindo com o hub', value: inSite },
      local: { summary: 'Hub inalcançável: decidindo sozinha', value: local },
      credenciais: { summary: 'O hub recusou a senha desta caixa: decidindo sozinha', value: refused },
      desligado: { summary: 'Caixa única', value: { success: true, data: siteOff() } },
    },
  },
};
