import { z } from 'zod';
import type { OperationDocs } from '../http/openapi.js';

// The lanes as the gate technician sees them (docs/lanes.md), for the OpenAPI at /docs; shapes of
// gates.routes.ts.

const count = z.number().int().min(0);

/** One lane (gates.routes.ts lanePayload). */
export const laneSchema = z.object({
  nome: z.string(),
  direcao: z.enum(['entrada', 'saida']),
  area: z.string(),
  operador: z.string().describe('Nome gravado como operador nos check-ins da pista'),
  sensor_passagem: z.boolean(),
  falha_segura: z.boolean().describe('false para placas LCUS, que só recebem comandos'),
  rele: z.object({
    driver: z.enum(['bridge', 'lcus', 'osdp']),
    porta: z.string(),
    online: z.boolean(),
    passagem_livre: z.boolean(),
    visto_em: z.string().nullable(),
    problema: z.string().nullable(),
    dispositivo: z
      .record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()]))
      .describe('Dados do driver: firmware, endereço OSDP, canal LCUS'),
  }),
  leitores: z.array(
    z.object({
      porta: z.string(),
      conectado: z.boolean(),
      desde: z.string().nullable(),
      reconexoes: count,
      ultimo_erro: z.string().nullable(),
    }),
  ),
  ultima_leitura: z.object({ codigo: z.string(), em: z.string() }).nullable(),
  ultimo_resultado: z
    .object({
      tipo: z.string(),
      em: z.string(),
      codigo: z.string().nullable(),
      detalhes: z.record(z.string(), z.unknown()).nullable(),
    })
    .nullable(),
  liberacoes_aguardando_passagem: count,
  contadores: z.object({
    leituras: count,
    ignoradas: count,
    liberadas: count,
    negadas: count,
    passagens: count,
    nao_passaram: count,
    caronas: count,
    erros: count,
  }),
});

const area = z.object({
  area: z.string(),
  dentro: count,
  capacidade: z.number().int().nullable(),
  livres: count.nullable(),
});
export const fireAlarmSchema = z
  .object({ ativo: z.boolean(), desde: z.string().nullable(), origens: z.array(z.string()) })
  .nullable();

export const gatesAnswerSchema = z.object({
  success: z.literal(true),
  data: z.object({
    configurado: z.boolean().describe('false: nenhuma pista (GATE_CONFIG) para o tenant da chave'),
    alarme_incendio: fireAlarmSchema,
    ocupacao: z.array(area).optional().describe('Só com pistas configuradas'),
    pistas: z.array(laneSchema),
    mensagem: z.string().optional(),
  }),
});

export const laneEventsAnswerSchema = z.object({
  success: z.literal(true),
  data: z.object({
    eventos: z.array(
      z.object({
        id: z.number().int(),
        ocorrido_em: z.string(),
        pista: z.string(),
        tipo: z.string(),
        codigo: z.string().nullable(),
        detalhes: z.record(z.string(), z.unknown()).nullable(),
      }),
    ),
    total: count.describe('Eventos nesta página'),
    mensagem: z.string().optional(),
  }),
});

const exampleLane = {
  nome: 'entrada-1',
  direcao: 'entrada',
  area: 'parque',
  operador: 'pista entrada-1',
  sensor_passagem: true,
  falha_segura: true,
  rele: {
    driver: 'bridge',
    porta: '/dev/ttyUSB0',
    online: true,
    passagem_livre: false,
    visto_em: '2026-11-21T12:59:59.000Z',
    problema: null,
    dispositivo: { firmware: '1.4.0' },
  },
  leitores: [
    { porta: '/dev/ttyACM0', conectado: true, desde: '2026-11-21T08:00:02.000Z', reconexoes: 0, ultimo_erro: null },
  ],
  ultima_leitura: { codigo: 'a1b2c3d4-0000-4000-8000-000000000001', em: '2026-11-21T12:31:07.000Z' },
  ultimo_resultado: {
    tipo: 'passagem',
    em: '2026-11-21T12:31:09.000Z',
    codigo: 'a1b2c3d4-0000-4000-8000-000000000001',
    detalhes: null,
  },
  liberacoes_aguardando_passagem: 0,
  contadores: {
    leituras: 812,
    ignoradas: 3,
    liberadas: 790,
    negadas: 19,
    passagens: 788,
    nao_passaram: 2,
    caronas: 1,
    erros: 0,
  },
};

export const gatesDocs: OperationDocs = {
  description:
    'As pistas desta caixa para o tenant da chave: cada relé e leitor com seu estado (online, conectado, último problema), a última leitura e o último resultado, os contadores, a ocupação das áreas e o alarme de incêndio. Sem pistas configuradas para o tenant, `configurado` é false e a lista vem vazia.',
  permissions: ['local:read'],
  ok: {
    description: 'As pistas.',
    schema: gatesAnswerSchema,
    examples: {
      pistas: {
        summary: 'Uma pista',
        value: {
          success: true,
          data: {
            configurado: true,
            alarme_incendio: { ativo: false, desde: null, origens: [] },
            ocupacao: [{ area: 'parque', dentro: 312, capacidade: null, livres: null }],
            pistas: [exampleLane],
          },
        },
      },
      sem_pistas: {
        summary: 'Nenhuma pista configurada',
        value: {
          success: true,
          data: {
            configurado: false,
            alarme_incendio: null,
            pistas: [],
            mensagem: 'Nenhuma pista configurada (GATE_CONFIG) para este tenant.',
          },
        },
      },
    },
  },
};

export const laneEventsDocs: OperationDocs = {
  description:
    'Os eventos das pistas (liberada, negada, passagem, não passou, carona, início e fim de incêndio, dispositivo offline e online), em ordem de id. Para acompanhar, envie `apos_id` com o último id recebido; filtros por `pista` e `tipo`. Página: `limit` padrão 100, no máximo 1000.',
  permissions: ['local:read'],
  ok: {
    description: 'Uma página de eventos de pista.',
    schema: laneEventsAnswerSchema,
    examples: {
      eventos: {
        summary: 'Uma passagem',
        value: {
          success: true,
          data: {
            eventos: [
              {
                id: 5012,
                ocorrido_em: '2026-11-21T12:31:09.000Z',
                pista: 'entrada-1',
                tipo: 'passagem',
                codigo: 'a1b2c3d4-0000-4000-8000-000000000001',
                detalhes: null,
              },
            ],
            total: 1,
          },
        },
      },
    },
  },
};
