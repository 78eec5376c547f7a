import { z } from 'zod';

// The lanes as the gate technician sees them (docs/lanes.md): the one description of what gates.payload.ts and
// gates.routes.ts build, read by their types, the routes' response schemas, the console and /docs.

const count = z.number().int().min(0);

/** One lane (gates.routes.ts lanePayload). */
export const laneSchema = z.strictObject({
  nome: z.string(),
  direcao: z.enum(['entrada', 'saida']),
  area: z.string(),
  operador: z.string().describe('Nome gravado como operador nos check-ins da pista'),
  sensor_passagem: z.boolean(),
  falha_segura: z.boolean().describe('false para placas LCUS, que só recebem comandos'),
  rele: z.strictObject({
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
    z.strictObject({
      porta: z.string(),
      conectado: z.boolean(),
      desde: z.string().nullable(),
      reconexoes: count,
      ultimo_erro: z.string().nullable(),
    }),
  ),
  ultima_leitura: z.strictObject({ codigo: z.string(), em: z.string() }).nullable(),
  ultimo_resultado: z
    .strictObject({
      tipo: z.string(),
      em: z.string(),
      codigo: z.string().nullable(),
      detalhes: z.record(z.string(), z.unknown()).nullable(),
    })
    .nullable(),
  liberacoes_aguardando_passagem: count,
  contadores: z.strictObject({
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

const area = z.strictObject({
  area: z.string(),
  dentro: count,
  capacidade: z.number().int().nullable(),
  livres: count.nullable(),
});
export const fireAlarmSchema = z
  .strictObject({ ativo: z.boolean(), desde: z.string().nullable(), origens: z.array(z.string()) })
  .nullable();

export const gatesAnswerSchema = z.strictObject({
  success: z.literal(true),
  data: z.strictObject({
    configurado: z.boolean().describe('false: nenhuma pista (GATE_CONFIG) para o tenant da chave'),
    alarme_incendio: fireAlarmSchema,
    ocupacao: z.array(area).optional().describe('Só com pistas configuradas'),
    pistas: z.array(laneSchema),
    mensagem: z.string().optional(),
  }),
});

export const laneEventsAnswerSchema = z.strictObject({
  success: z.literal(true),
  data: z.strictObject({
    eventos: z.array(
      z.strictObject({
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

export type Lane = z.output<typeof laneSchema>;
export type FireAlarm = z.output<typeof fireAlarmSchema>;
