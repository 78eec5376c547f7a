import { z } from 'zod';

// Health (docs/operations.md): the one description of what health.routes.ts builds, read by its types, the
// routes' response schemas and /docs.

export const readyPartSchema = z
  .strictObject({ ok: z.boolean(), motivo: z.string().optional() })
  .catchall(z.unknown())
  .describe('Uma parte da prontidão e, quando falha, o motivo');

export const healthAnswerSchema = z.strictObject({
  success: z.literal(true),
  data: z.strictObject({
    status: z.literal('ok'),
    banco: z.literal('ok'),
    versao: z.string(),
    agora: z.string().describe('Hora da caixa, ISO 8601'),
    fuso_horario: z.string(),
  }),
});
export const liveAnswerSchema = z.strictObject({
  success: z.literal(true),
  data: z.strictObject({ status: z.literal('ok'), versao: z.string() }),
});
export const readyAnswerSchema = z.strictObject({
  success: z.literal(true),
  data: z.strictObject({
    status: z.literal('ok'),
    versao: z.string(),
    partes: z
      .record(z.string(), readyPartSchema)
      .describe('banco, migracoes e, quando configurados, pistas, sincronizacao, relogio, site e tls'),
    avisos: z
      .array(z.string())
      .optional()
      .describe(
        'Partes que falham sem tirar a caixa do ar (o relógio, o site em modo local, o certificado perto do fim)',
      ),
  }),
});

export type HealthAnswer = z.output<typeof healthAnswerSchema>;
export type LiveAnswer = z.output<typeof liveAnswerSchema>;
export type ReadyAnswer = z.output<typeof readyAnswerSchema>;
export type ReadyPart = z.output<typeof readyPartSchema>;
