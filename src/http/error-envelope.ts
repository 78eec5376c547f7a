import { z } from 'zod';
import { errorCatalogue, type ErrorCode } from './errors.js';

/** The envelope of every error (spec part 7): the one description of what errorEnvelope() sends. */
export const errorEnvelopeSchema = z.strictObject({
  success: z.literal(false),
  error: z.strictObject({
    code: z.enum(Object.keys(errorCatalogue) as [ErrorCode, ...ErrorCode[]]),
    message: z.string().describe('Texto em português para quem lê; a mensagem do catálogo ou uma mais específica'),
    details: z.record(z.string(), z.unknown()).optional().describe('Dados do caso, quando o código os tem'),
  }),
});
