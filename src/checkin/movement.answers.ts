import { z } from 'zod';

// The movement doors' answers (docs/api.md, "Movements"): the one description of what movement.routes.ts and
// occupancy.payload.ts build, read by their types, the routes' response schemas and /docs.

export const exitAnswerSchema = z.strictObject({
  success: z.literal(true),
  data: z.strictObject({
    message: z.string(),
    movimento: z.literal('saida'),
    sem_entrada: z.boolean().describe('true: ninguém deste código estava dentro e a política saidaSemEntrada liberou'),
    area: z.string(),
    em: z.string().describe('Hora da saída, ISO 8601'),
    numero_pedido: z.string().nullable(),
    pessoas: z
      .array(z.strictObject({ qr_code: z.string(), nome: z.string() }))
      .describe('Quem saiu; vazio numa saída sem entrada'),
  }),
});

export const occupancyAnswerSchema = z.strictObject({
  success: z.literal(true),
  data: z.strictObject({
    areas: z.array(
      z.strictObject({
        area: z.string(),
        dentro: z.number().int().min(0).describe('Pessoas dentro agora (hoje, fuso do parque)'),
        capacidade: z.number().int().nullable().describe('null: sem capacidade configurada'),
        livres: z.number().int().min(0).nullable(),
      }),
    ),
  }),
});
export type Occupancy = z.output<typeof occupancyAnswerSchema>['data']['areas'][number];
export type ExitData = z.output<typeof exitAnswerSchema>['data'];
