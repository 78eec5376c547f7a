import { z } from 'zod';

// The wire's shared shapes (spec part 2): dates, instants and money as the cloud and the box's answers write them,
// read by every feature that takes one in (import, sync, listings' filters, combos, clients, the CLI).

export const dateString = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, 'use o formato YYYY-MM-DD')
  .refine(
    (s) => !Number.isNaN(Date.parse(`${s}T00:00:00Z`)) && new Date(`${s}T00:00:00Z`).toISOString().startsWith(s),
    'data inexistente',
  );
export const timestamp = z
  .string()
  .refine((s) => /^\d{4}-\d{2}-\d{2}T/.test(s) && !Number.isNaN(Date.parse(s)), 'timestamp ISO 8601 inválido');
/** Stored as UTC ISO (`...Z`), whatever offset the cloud sent, so timestamps compare and sort as text. */
export const utcTimestamp = timestamp.transform((s) => new Date(s).toISOString());
export const money = z.number().finite().min(0, 'valor monetário não pode ser negativo');

/**
 * A nullable enum whose OpenAPI 3.0 `enum` lists null as well: `nullable: true` does not add null to an enum's values
 * (OpenAPI 3.0.3, "nullable"), so validators such as Spectral's refuse a null example or answer without it.
 */
export const nullableEnum = <T extends readonly [string, ...string[]]>(values: T) =>
  z
    .enum(values)
    .nullable()
    .meta({ enum: [...values, null] });
