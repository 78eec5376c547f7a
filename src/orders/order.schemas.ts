import { z } from 'zod';
import { dateString, money, utcTimestamp } from '../lib/wire.js';
import { paymentTotals, toCents } from './money.js';

// The cloud's shapes (spec part 2), read by `gate import` and the sync worker and written by the
// listings and check-in responses. Fields that are per API key or derived (sincronizado, totals,
// check-in summaries) are optional on the way in: they are recomputed by the box.

export const numeroPedido = z.string().regex(/^\d{8}-\d{4}$/, 'use o formato YYYYMMDD-NNNN');
const digits = z.string().transform((s) => s.replace(/\D/g, ''));
const text = z
  .string()
  .nullish()
  .transform((s) => s ?? '');
const id = z.string().min(1);

export const orderStatus = z.enum(['pago', 'cancelado', 'reembolsado']);
export const ticketType = z.enum(['dayuse', 'evento', 'dayuse_sem_data', 'dia_unico']);

export const promotionDiscountSchema = z.object({
  nome: z.string(),
  tipo: z.enum(['BUY_N_GET_M', 'TIERED_QUANTITY', 'PERCENTAGE', 'FIXED']),
  detalhes: text,
  valor: money,
});

export const paymentAdjustmentSchema = z.object({
  nome: z.string().nullable(),
  forma: z.string().regex(/^(pix|cartao_debito|cartao_credito_\d+x)$/, 'forma de pagamento desconhecida'),
  percentual: z.number().finite(),
  valor: money,
});

export const valoresSchema = z
  .object({
    total_bruto: money,
    total_desconto: z.number().finite().optional(),
    total_pago: z.number().finite().optional(),
    desconto_promocao: promotionDiscountSchema.nullable().default(null),
    subtotal: z.number().finite().optional(),
    desconto_pagamento: paymentAdjustmentSchema.nullable().default(null),
    acrescimo_pagamento: paymentAdjustmentSchema.nullable().default(null),
    valor_estornado: money.default(0),
  })
  .superRefine((v, ctx) => {
    if (v.desconto_pagamento && v.acrescimo_pagamento) {
      ctx.addIssue({
        code: 'custom',
        path: ['acrescimo_pagamento'],
        message: 'desconto_pagamento e acrescimo_pagamento são mutuamente exclusivos',
      });
      return;
    }
    const totals = paymentTotals({
      totalBruto: toCents(v.total_bruto),
      descontoPromocao: toCents(v.desconto_promocao?.valor ?? 0),
      descontoPagamento: toCents(v.desconto_pagamento?.valor ?? 0),
      acrescimoPagamento: toCents(v.acrescimo_pagamento?.valor ?? 0),
      valorEstornado: toCents(v.valor_estornado),
    });
    const check = (field: 'subtotal' | 'total_desconto' | 'total_pago', cents: number) => {
      const given = v[field];
      if (given !== undefined && toCents(given) !== cents)
        ctx.addIssue({
          code: 'custom',
          path: [field],
          message: `não confere com as regras de 2.2: esperado ${(cents / 100).toFixed(2)}`,
        });
    };
    check('subtotal', totals.subtotal);
    check('total_desconto', totals.totalDesconto);
    check('total_pago', totals.totalPago);
  });

export const enderecoSchema = z.object({
  cep: text,
  rua: text,
  numero: text,
  complemento: text,
  bairro: text,
  cidade: text,
  estado: text,
});

export const clienteSchema = z.object({
  nome: z.string(),
  sobrenome: text,
  email: text,
  cpf: digits.nullish().transform((s) => s ?? ''),
  data_nascimento: z
    .union([dateString, z.literal(''), z.null()])
    .optional()
    .transform((s) => s || ''),
  telefone: digits.nullish().transform((s) => s ?? ''),
  whatsapp: digits.nullish().transform((s) => s ?? ''),
  endereco: enderecoSchema.nullish().transform((e) => e ?? enderecoSchema.parse({})),
});

/** lote.dados[]: qr_code plus one key per filled-in form label. */
export const personDataSchema = z
  .object({ qr_code: z.string().trim().min(1, 'qr_code vazio').max(200) })
  .catchall(z.union([z.string(), z.number(), z.boolean(), z.null()]));

export const loteSchema = z.object({
  ingresso_id: id,
  lote_mestre_id: id,
  categoria: z.enum(['adulto', 'infantil', 'outros']),
  nome_ingresso: z.string(),
  nome_lote: z.string(),
  tipo_ingresso: ticketType,
  data_uso: dateString,
  valor_unitario: money,
  sincronizado: z.boolean().optional(),
  sincronizado_em: utcTimestamp.nullish(),
  checkin_realizado: z.boolean().optional(),
  checkin_em: utcTimestamp.nullish(),
  dados: z.array(personDataSchema),
});

export const adicionalSchema = z.object({
  adicional_id: id,
  nome: z.string(),
  quantidade: z.number().int().min(1),
  preco_unitario: money,
  subtotal: money,
  pessoa_ingresso_id: z
    .string()
    .nullish()
    .transform((s) => s ?? null),
  combo_id: z
    .string()
    .nullish()
    .transform((s) => s ?? null),
  combo_item_id: z
    .string()
    .nullish()
    .transform((s) => s ?? null),
  is_brinde: z.boolean().default(false),
  codigo_integracao: text,
  adicional_qr_code: z
    .string()
    .length(14, 'o QR de um adicional tem 14 caracteres')
    .nullish()
    .transform((s) => s ?? null),
});

export const pedidoSchema = z
  .object({
    numero_pedido: numeroPedido,
    status: orderStatus,
    pago_em: utcTimestamp.nullable(),
    origem: z.enum(['online', 'balcao', 'central', 'afiliado_pdv']),
    pagamento: z.object({ valores: valoresSchema }),
    cupom: z
      .object({ codigo: z.string(), nome: z.string() })
      .nullish()
      .transform((c) => c ?? null),
    cliente: clienteSchema,
    lotes: z.array(loteSchema),
    total_pessoas: z.number().int().min(0).optional(),
    total_lotes: z.number().int().min(0).optional(),
    sincronizado: z.boolean().optional(),
    adicionais: z.array(adicionalSchema).optional(),
    /** Not in the spec's payload: when present, the cloud's creation time (used by order_by=created_at). */
    created_at: utcTimestamp.optional(),
  })
  .superRefine((p, ctx) => {
    const people = p.lotes.reduce((n, l) => n + l.dados.length, 0);
    if (p.total_pessoas !== undefined && p.total_pessoas !== people)
      ctx.addIssue({
        code: 'custom',
        path: ['total_pessoas'],
        message: `não confere com as pessoas dos lotes (${people})`,
      });
    if (p.total_lotes !== undefined && p.total_lotes !== p.lotes.length)
      ctx.addIssue({ code: 'custom', path: ['total_lotes'], message: `não confere com os lotes (${p.lotes.length})` });
    const seen = new Map<string, string>();
    p.lotes.forEach((l, li) =>
      l.dados.forEach((d, di) => {
        if (seen.has(d.qr_code))
          ctx.addIssue({
            code: 'custom',
            path: ['lotes', li, 'dados', di, 'qr_code'],
            message: `qr_code repetido no pedido (${seen.get(d.qr_code)})`,
          });
        seen.set(d.qr_code, `lotes.${li}.dados.${di}`);
      }),
    );
  });

export type Pedido = z.output<typeof pedidoSchema>;
export type PedidoInput = z.input<typeof pedidoSchema>;
export type Lote = z.output<typeof loteSchema>;
export type Adicional = z.output<typeof adicionalSchema>;
