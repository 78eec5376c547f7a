import { z } from 'zod';
import { dateString } from '../lib/wire.js';
import { availabilitySchema, comboSchema, itemAvailabilitySchema } from './combo.schemas.js';

// The combo answers (2.8, 4.5; envelopes, defaults and limits: docs/api-listings.md): the one description of
// what combo.payload.ts and combos.routes.ts build, read by their types, the routes' response schemas and /docs.

const { ativo: _ativo, ...comboFields } = comboSchema.in.shape;
const count = z.number().int().min(0);

/** A combo as served (combo.payload.ts): the import shape with what the box derives always present. */
export const servedComboSchema = z.strictObject({
  ...comboFields,
  economia: comboFields.economia.unwrap(),
  modo_qrcode: z
    .enum(['por_pessoa', 'unico'])
    .describe('por_pessoa: um QR por pessoa; unico: um QR de grupo (o número do pedido) mais um por pessoa'),
  requer_data: z.boolean(),
  destaque: z.boolean(),
  max_por_pedido: z.number().int().min(1).nullable().describe('null: sem limite'),
  total_ingressos: count,
  itens_resumo: z.string(),
});

const { dates: _dates, ...availabilityFields } = availabilitySchema.shape;
export const availabilityAnswerSchema = z.strictObject({
  success: z.literal(true),
  data: z.strictObject({
    ...availabilityFields,
    combo_nome: z.string(),
    modo_qrcode: servedComboSchema.shape.modo_qrcode,
    total_ingressos: count,
    requer_data: z.boolean(),
    dates: z.array(
      z.strictObject({
        date: dateString,
        available: z.boolean().describe('min_stock > 0'),
        min_stock: count.describe('Combos que ainda podem ser vendidos nesta data: o limite do item com menos estoque'),
        items_availability: z.array(itemAvailabilitySchema),
      }),
    ),
  }),
  timestamp: z.string().describe('Hora da resposta, ISO 8601'),
});

export const comboListAnswerSchema = z.strictObject({
  success: z.literal(true),
  data: z.strictObject({
    combos: z.array(servedComboSchema),
    total: count.describe('Combos que atendem aos filtros, em todas as páginas'),
    limit: count.describe('O limit usado'),
    offset: count,
  }),
});
export const comboAnswerSchema = z.strictObject({ success: z.literal(true), data: servedComboSchema });

export type ServedCombo = z.output<typeof servedComboSchema>;
export type AvailabilityDate = z.output<typeof availabilityAnswerSchema>['data']['dates'][number];
export type ComboListAnswer = z.output<typeof comboListAnswerSchema>;
export type AvailabilityAnswer = z.output<typeof availabilityAnswerSchema>;
