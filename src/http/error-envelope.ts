import { z } from 'zod';
import { errorBodySchema } from './error-body.js';
import { errorCatalogue, type ErrorCode } from './errors.js';

/** The envelope of every error (spec part 7): the one description of what errorEnvelope() sends. */
export const errorEnvelopeSchema = z.strictObject({
  success: z.literal(false),
  error: errorBodySchema.extend({ code: z.enum(Object.keys(errorCatalogue) as [ErrorCode, ...ErrorCode[]]) }),
});
