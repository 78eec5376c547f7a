import { z } from 'zod';
import { dateString, utcTimestamp } from '../lib/wire.js';
import { enderecoSchema } from '../orders/order.schemas.js';

// The client record (2.9 leaves it open; fields decided in docs/api-listings.md), read by
// `gate import` and the sync worker. Missing or null strings become '' as in the order's cliente.

const text = z
  .string()
  .nullish()
  .transform((s) => (s ?? '').trim());
const digits = z
  .union([z.string(), z.number()])
  .nullish()
  .transform((s) => String(s ?? '').replace(/\D/g, ''));

export const clienteRecordSchema = z.object({
  /** The cloud's id of the client; numeric ids are kept as text. */
  id: z.union([z.string().trim().min(1, 'id vazio'), z.number().int()]).transform(String),
  nome: text,
  sobrenome: text,
  email: text,
  cpf: digits,
  // A full timestamp is cut to its date: some exports send birthdays as midnight timestamps.
  data_nascimento: z
    .union([z.string(), z.null()])
    .optional()
    .transform((s) => (s && /^\d{4}-\d{2}-\d{2}T/.test(s) ? s.slice(0, 10) : (s ?? '')))
    .pipe(z.union([dateString, z.literal('')])),
  telefone: digits,
  whatsapp: digits,
  endereco: enderecoSchema.nullish().transform((e) => e ?? enderecoSchema.parse({})),
  /** Optional on the way in: a record without it is taken as created when first stored. */
  created_at: utcTimestamp.optional(),
  ultimo_login: utcTimestamp.nullish().transform((s) => s ?? null),
});

export type ClienteRecord = z.output<typeof clienteRecordSchema>;
export type ClienteRecordInput = z.input<typeof clienteRecordSchema>;
