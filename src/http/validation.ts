import { z } from 'zod';

// Query-string helpers shared by the listings: booleans and numbers arrive as text.
// Case-insensitive: .NET sends `True`/`False`, other clients `TRUE`, `DESC`.
const lower = (v: unknown) => (typeof v === 'string' ? v.trim().toLowerCase() : v);

// The pattern is written case by case (no `i` flag) because /docs shows the pattern and JSON Schema has no flags:
// the document then accepts what the box accepts (`True`, `FALSE`, ` 1 `).
const BOOLEAN_TEXT = /^\s*(?:[Tt][Rr][Uu][Ee]|[Ff][Aa][Ll][Ss][Ee]|1|0)\s*$/;
export const queryBoolean = z
  .string({ message: 'use true ou false' })
  .regex(BOOLEAN_TEXT, { message: 'use true ou false' })
  .transform((v) => ['true', '1'].includes(lower(v) as string))
  .meta({ description: 'true, false, 1 ou 0, em qualquer caixa' });

// Whole decimal numbers of any size (zod's int() refuses those beyond 2^53): a huge limit is still a
// limit. Only decimal digits: Number() would also read 0x10, 1e3 or an empty string.
const decimal = (v: unknown) => (typeof v === 'string' && /^\s*[+-]?\d+\s*$/.test(v) ? Number(v) : v);
const wholeNumber = z.preprocess(
  decimal,
  z.number({ message: 'deve ser um número inteiro decimal' }).refine(Number.isInteger, 'deve ser um número inteiro'),
);

/** A page size: a non-negative integer, clamped to `max` (values above it are served as `max`). */
export const pageLimit = (max: number, fallback: number) =>
  wholeNumber
    .refine((n) => n >= 1, 'deve ser ao menos 1')
    .default(fallback)
    .transform((n) => Math.min(n, max));

/** Rows to skip; past the end is an empty page. */
export const pageOffset = wholeNumber
  .refine((n) => n >= 0, 'não pode ser negativo')
  .default(0)
  .transform((n) => Math.min(n, Number.MAX_SAFE_INTEGER));

export const sortOrder = z.preprocess(lower, z.enum(['asc', 'desc'], { message: 'use asc ou desc' }));
