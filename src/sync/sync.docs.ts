import { z } from 'zod';
import type { OperationDocs } from '../http/openapi.js';
import { CONFLICT_KINDS, PUSH_RESULTS } from './sync.repo.js';

// The central office's routes (docs/sync.md) for the OpenAPI at /docs; shapes of sync.routes.ts.

const when = z.string().nullable();
const count = z.number().int().min(0);
const PERMISSIONS = ['local:read'];

export const syncStatusAnswerSchema = z.object({
  success: z.literal(true),
  data: z.object({
    nuvem_configurada: z.boolean().describe('Esta caixa sincroniza o tenant da chave'),
    online: z.boolean().nullable().describe('A nuvem respondeu à última chamada; null sem nuvem configurada'),
    ultima_comunicacao_em: when,
    ultimo_pull_ok_em: when,
    ultimo_push_ok_em: when,
    ultima_atualizacao_em: when,
    ultima_atualizacao_completa_em: when,
    ultimo_erro: z.object({ mensagem: z.string(), em: when }).nullable(),
    fila: z.object({
      pendentes: count,
      em_nova_tentativa: count,
      evento_mais_antigo_em: when,
      proxima_tentativa_em: when,
    }),
    resultados: z
      .record(z.enum(PUSH_RESULTS as [string, ...string[]]), count)
      .describe('Eventos por resultado na nuvem'),
    registros_rejeitados: z.object({
      total: count,
      recentes: z.array(z.object({ tipo: z.string(), referencia: z.string(), motivo: z.string(), em: z.string() })),
    }),
  }),
});

const conflictSchema = z.object({
  evento_id: z.number().int(),
  ocorrido_em: z.string(),
  data_local: z.string().describe('Dia do evento no fuso do parque'),
  acao: z.string(),
  modo: z.string(),
  codigo: z.string(),
  qr_code: z.string().nullable(),
  numero_pedido: z.string().nullable(),
  terminal: z.string().nullable(),
  operador: z.string().nullable(),
  chave_api: z.string().nullable(),
  tipo: z.enum(CONFLICT_KINDS as [string, ...string[]]).nullable(),
  codigo_nuvem: z.string().nullable(),
  mensagem_nuvem: z.string().nullable(),
  em_nuvem: z.string().nullable(),
  enviado_em: z.string().nullable(),
  resolvido_em: z.string().nullable(),
  tentativas: count,
});

export const conflictsAnswerSchema = z.object({
  success: z.literal(true),
  data: z.object({
    conflitos: z.array(conflictSchema),
    total: count.describe('Conflitos que atendem aos filtros, em todas as páginas'),
    mensagem: z.string().optional(),
  }),
});

const eventSchema = z.object({
  id: z.number().int(),
  ocorrido_em: z.string(),
  acao: z.string().describe('checkin, estorno, entrada, reentrada, saida...'),
  modo: z.string(),
  codigo: z.string(),
  qr_code: z.string().nullable(),
  numero_pedido: z.string().nullable(),
  resultado: z.string().describe('ok ou o código de erro'),
  chave_api: z.string().nullable(),
  terminal: z.string().nullable(),
  operador: z.string().nullable(),
  origem: z.string().describe('api, pista ou console'),
  detalhes: z.record(z.string(), z.unknown()).nullable(),
  relogio_suspeito: z
    .string()
    .nullable()
    .describe('Por que o relógio da caixa era suspeito quando o evento foi gravado'),
  nuvem: z.object({
    situacao: z.string().describe('pendente, um resultado da nuvem, nao_enviado ou somente_local'),
    tentativas: count,
    enviado_em: when,
    resolvido_em: when,
    codigo: z.string().nullable(),
    mensagem: z.string().nullable(),
    em: when,
  }),
  sincronizado: z.boolean(),
  sincronizado_em: when,
});

export const eventsAnswerSchema = z.object({
  success: z.literal(true),
  data: z.object({
    eventos: z.array(eventSchema),
    total: count.describe('Eventos nesta página'),
    mensagem: z.string().optional(),
  }),
});

export const syncStatusDocs: OperationDocs = {
  description:
    'O estado da sincronização desta caixa com a nuvem para o tenant da chave: última comunicação, último pull e push bem-sucedidos, o último erro, a fila de eventos a enviar, os eventos por resultado na nuvem e os registros que a nuvem mandou e a caixa rejeitou. Sem nuvem configurada a caixa segue funcionando e o estado diz isso.',
  permissions: PERMISSIONS,
  ok: {
    description: 'O estado da sincronização.',
    schema: syncStatusAnswerSchema,
    examples: {
      online: {
        summary: 'Nuvem respondendo',
        value: {
          success: true,
          data: {
            nuvem_configurada: true,
            online: true,
            ultima_comunicacao_em: '2026-11-21T12:59:30.000Z',
            ultimo_pull_ok_em: '2026-11-21T12:59:30.000Z',
            ultimo_push_ok_em: '2026-11-21T12:59:31.000Z',
            ultima_atualizacao_em: '2026-11-21T12:00:00.000Z',
            ultima_atualizacao_completa_em: '2026-11-21T06:00:00.000Z',
            ultimo_erro: null,
            fila: { pendentes: 0, em_nova_tentativa: 0, evento_mais_antigo_em: null, proxima_tentativa_em: null },
            resultados: { aceito: 1210, ja_utilizado_na_nuvem: 2, fora_do_prazo: 0, cancelado_na_nuvem: 1, outro: 0 },
            registros_rejeitados: { total: 0, recentes: [] },
          },
        },
      },
    },
  },
};

const conflict = {
  evento_id: 912,
  ocorrido_em: '2026-11-21T12:31:07.000Z',
  data_local: '2026-11-21',
  acao: 'checkin',
  modo: 'qr',
  codigo: 'a1b2c3d4-0000-4000-8000-000000000001',
  qr_code: 'a1b2c3d4-0000-4000-8000-000000000001',
  numero_pedido: '20261121-0042',
  terminal: 'catraca-1',
  operador: 'Joana',
  chave_api: 'catraca-1',
  tipo: 'ja_utilizado_na_nuvem',
  codigo_nuvem: 'TICKET_ALREADY_USED',
  mensagem_nuvem: 'Ingresso já utilizado.',
  em_nuvem: '2026-11-21T12:30:55.000Z',
  enviado_em: '2026-11-21T12:31:09.000Z',
  resolvido_em: '2026-11-21T12:31:09.000Z',
  tentativas: 1,
};

export const conflictsDocs: OperationDocs = {
  description:
    'Os eventos que a nuvem não aceitou (já usado na nuvem, fora do prazo, cancelado na nuvem, outro), para a central resolver. Filtros por dia local (`desde`, `ate`, inclusive) e por `tipo`. Em CSV com `format=csv` ou `Accept: text/csv` (com `X-Total-Count`), uma linha por conflito com as mesmas colunas do JSON. `ate` antes de `desde` é VALIDATION_ERROR.',
  permissions: PERMISSIONS,
  ok: {
    description: 'Os conflitos, em JSON ou CSV.',
    schema: conflictsAnswerSchema,
    examples: {
      conflitos: { summary: 'Um conflito', value: { success: true, data: { conflitos: [conflict], total: 1 } } },
    },
    other: {
      'text/csv': { example: `${Object.keys(conflict).join(',')}\n${Object.values(conflict).join(',')}\n` },
    },
    headers: { 'X-Total-Count': 'Só em CSV: conflitos que atendem aos filtros' },
  },
  details: {
    VALIDATION_ERROR: [
      { details: { campos: [{ campo: 'querystring.ate', mensagem: 'deve ser igual ou posterior a desde' }] } },
    ],
  },
};

export const eventsDocs: OperationDocs = {
  description:
    'O log de eventos da caixa (check-ins, estornos, movimentos e recusas, de todas as portas), cada um com a sua situação na nuvem, e com marcação por chave como nas listagens: por padrão a página devolvida é marcada para a chave que chama; `sincronizado=false` traz só o que esta chave ainda não recebeu; `marcar_sincronizado=false` apenas lê. Página: `limit` padrão 100, no máximo 1000.',
  permissions: PERMISSIONS,
  ok: {
    description: 'Uma página de eventos.',
    schema: eventsAnswerSchema,
    examples: {
      pagina: {
        summary: 'Um evento',
        value: {
          success: true,
          data: {
            eventos: [
              {
                id: 912,
                ocorrido_em: '2026-11-21T12:31:07.000Z',
                acao: 'checkin',
                modo: 'qr',
                codigo: 'a1b2c3d4-0000-4000-8000-000000000001',
                qr_code: 'a1b2c3d4-0000-4000-8000-000000000001',
                numero_pedido: '20261121-0042',
                resultado: 'ok',
                chave_api: 'catraca-1',
                terminal: 'catraca-1',
                operador: 'Joana',
                origem: 'api',
                detalhes: null,
                relogio_suspeito: null,
                nuvem: {
                  situacao: 'aceito',
                  tentativas: 1,
                  enviado_em: '2026-11-21T12:31:09.000Z',
                  resolvido_em: '2026-11-21T12:31:09.000Z',
                  codigo: null,
                  mensagem: null,
                  em: null,
                },
                sincronizado: true,
                sincronizado_em: '2026-11-21T13:00:00.000Z',
              },
            ],
            total: 1,
          },
        },
      },
    },
  },
};
