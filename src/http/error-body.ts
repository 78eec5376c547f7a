import { z } from 'zod';

/**
 * The `error` of the error envelope (spec part 7), any code: the console's browser code reads it by type, so this
 * file imports nothing but zod (error-envelope.ts narrows `code` to the catalogue's).
 */
export const errorBodySchema = z.strictObject({
  code: z.string(),
  message: z.string().describe('Texto em português para quem lê; a mensagem do catálogo ou uma mais específica'),
  details: z.record(z.string(), z.unknown()).optional().describe('Dados do caso, quando o código os tem'),
});
export type ApiErrorBody = z.output<typeof errorBodySchema>;
