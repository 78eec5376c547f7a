import { z } from 'zod';
import { dateString, money } from '../lib/wire.js';

// The cloud's combo shapes (2.8 and the `data` of 4.5), read by `gate import` and the sync worker.
// Values the box can derive (economia, total_ingressos, itens_resumo, available, min_stock) are
// optional on the way in.

const id = z.string().trim().min(1, 'identificador vazio');
const text = z
  .string()
  .nullish()
  .transform((s) => s ?? '');
const round2 = (n: number) => Math.round(n * 100) / 100;

export const comboItemSchema = z.object({
  tipo_ingresso_id: id,
  tipo_ingresso_nome: z.string(),
  lote_nome: text,
  categoria_lote_id: id,
  quantidade: z.number().int('deve ser um número inteiro').min(1, 'deve ser ao menos 1'),
  preco_unitario: money,
});

export const comboSchema = z
  .object({
    id,
    nome: z.string().trim().min(1, 'nome vazio'),
    slug: z.string().trim().min(1, 'slug vazio').max(200),
    descricao: text,
    preco_combo: money,
    preco_original: money,
    economia: z.object({ valor: z.number().finite(), percentual: z.number().finite().min(0).max(100) }).optional(),
    tipo_desconto: z.enum(['preco_fixo', 'percentual']),
    // Older combos predate the QR modes; they behave as one QR per person.
    modo_qrcode: z
      .enum(['por_pessoa', 'unico'])
      .nullish()
      .transform((m) => m ?? 'por_pessoa'),
    requer_data: z.boolean().default(false),
    destaque: z.boolean().default(false),
    max_por_pedido: z
      .number()
      .int()
      .min(1)
      .nullish()
      .transform((n) => n ?? null),
    total_ingressos: z.number().int().min(0).optional(),
    itens_resumo: z.string().nullish(),
    itens: z.array(comboItemSchema),
    /** Not in 2.8 (the cloud lists only active combos): lets an import or pull retire a combo. */
    ativo: z.boolean().default(true),
  })
  .transform((c) => ({
    ...c,
    economia: c.economia ?? {
      valor: round2(c.preco_original - c.preco_combo),
      percentual: c.preco_original > 0 ? round2(((c.preco_original - c.preco_combo) / c.preco_original) * 100) : 0,
    },
    total_ingressos: c.total_ingressos ?? c.itens.reduce((n, i) => n + i.quantidade, 0),
    itens_resumo:
      c.itens_resumo ??
      c.itens
        .map((i) => `${i.quantidade}x ${i.tipo_ingresso_nome}${i.lote_nome ? ` (${i.lote_nome})` : ''}`)
        .join(' + '),
  }));

export const itemAvailabilitySchema = z.object({
  tipo_ingresso_nome: z.string(),
  lote_nome: text,
  quantidade_necessaria: z.number().int().min(1, 'deve ser ao menos 1'),
  estoque_disponivel: z.number().int('deve ser um número inteiro'),
});

export const availabilitySchema = z
  .object({
    combo_id: id,
    combo_nome: z.string().optional(),
    modo_qrcode: z.enum(['por_pessoa', 'unico']).nullish(),
    total_ingressos: z.number().int().min(0).optional(),
    requer_data: z.boolean().optional(),
    dates: z.array(
      z.object({
        date: dateString,
        available: z.boolean().optional(),
        min_stock: z.number().optional(),
        items_availability: z.array(itemAvailabilitySchema),
      }),
    ),
  })
  .superRefine((a, ctx) => {
    const seen = new Set<string>();
    a.dates.forEach((d, i) => {
      if (seen.has(d.date))
        ctx.addIssue({ code: 'custom', path: ['dates', i, 'date'], message: `data repetida (${d.date})` });
      seen.add(d.date);
    });
  });

export type Combo = z.output<typeof comboSchema>;
export type ComboInput = z.input<typeof comboSchema>;
export type ComboAvailability = z.output<typeof availabilitySchema>;
export type ComboAvailabilityInput = z.input<typeof availabilitySchema>;
