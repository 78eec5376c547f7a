import { routeKey, type OperationDocs } from '../http/openapi.js';
import { SITE_REJECT_REASONS } from '../site/site.answers.js';
import { REJECT_REASON_TEXT } from '../site/site.view.js';
import { consoleAnswers, type PainelSite } from './console.answers.js';

// The console's site routes (site.panel.ts) for /docs, beside the console's other docs (console.start.ts).

const session = [{ consoleSession: [] }];
const single = (summary: string, value: unknown) => ({ exemplo: { summary, value: { success: true, data: value } } });

const painel: PainelSite = {
  modo: 'local',
  motivo: 'o hub não responde',
  desde: '2026-11-21T12:41:10.000Z',
  pendentes: 37,
  caixa: 'norte',
  hub: { enderecos: ['hub.parque.lan:4222'], conectado: false },
  atraso: 0,
  estacionadas: 0,
  decisoes_sem_site_hoje: 52,
  conflitos: 1,
  rejeitadas: SITE_REJECT_REASONS.map((motivo) => ({ motivo, descricao: REJECT_REASON_TEXT[motivo], total: 0 })),
  chave_nuvem_repetida: [],
  alarme_chave: null,
  caixas: [
    {
      caixa: 'norte',
      esta_caixa: true,
      visto_em: '2026-11-21T12:41:09.000Z',
      versao: '1.23.0',
      sequencia_aplicada: 18234,
      atraso: 0,
      pendentes: 37,
    },
  ],
};

export const siteConsoleDocs: Record<string, OperationDocs> = {
  [routeKey('GET', '/api/console/site/modo')]: {
    security: session,
    description:
      'O modo do site para a faixa que todo operador vê: `local` quando esta caixa decide sem as outras entradas (com o motivo em palavras, desde quando e quantos movimentos esperam ser publicados no hub), `site` com o hub, `desligado` numa caixa única ou para um tenant sem site.',
    ok: {
      description: 'O modo.',
      schema: consoleAnswers.modoSite,
      examples: single('Modo local', {
        modo: 'local',
        motivo: 'o hub não responde',
        desde: '2026-11-21T12:41:10.000Z',
        pendentes: 37,
      }),
    },
  },
  [routeKey('GET', '/api/console/site')]: {
    security: session,
    description:
      'O painel do site: o modo, o hub (host:porta, sem senha), cada caixa (última vez vista, versão, sequência aplicada, atraso, pendentes), decisões de hoje sem o site, conflitos duplo_no_site, mensagens do hub recusadas por motivo e o alarme de chave da nuvem repetida. Só supervisores (PAPEL_INSUFICIENTE para atendentes).',
    ok: { description: 'O painel.', schema: consoleAnswers.site, examples: single('Modo local', painel) },
    errors: ['PAPEL_INSUFICIENTE'],
  },
};
