import { z } from 'zod';
import { money, timestamp } from '../lib/wire.js';
import { adicionalSchema, clienteSchema, loteSchema, pedidoSchema, personDataSchema } from './order.schemas.js';

// The orders as the box serves them: the one description of what order.payload.ts builds, read by its
// builders' types, by the answers' response schemas and by /docs. Built from the cloud's schemas of
// order.schemas.ts (the one set), with the fields the box always fills made required; an object the box
// builds is strict, so a field the builder adds or drops fails the answer's check (docs/architecture.md).

const count = z.number().int().min(0);
const { created_at: _createdAt, ...orderFields } = pedidoSchema.shape;

/** A lot as served: its synchronisation (for the calling key) and check-in summary always present. */
export const servedLoteSchema = z.strictObject({
  ...loteSchema.shape,
  sincronizado: z.boolean().describe('Todos os vouchers do lote sincronizados para a chave que chama'),
  sincronizado_em: timestamp.nullable().describe('Marcação mais recente entre as pessoas; null quando nenhuma'),
  checkin_realizado: z.boolean().describe('Todas as pessoas do lote com check-in'),
  checkin_em: timestamp.nullable().describe('Check-in mais recente entre as pessoas; null quando ninguém entrou'),
});

/** The check-in fields a lot carries in check-in answers (2.5). */
const checkinLotFields = {
  checkin_dispositivo: z.string().nullable().describe('`terminal` do check-in mais recente do lote'),
  checkin_operador: z.string().nullable().describe('`operador` do check-in mais recente do lote'),
  quantidade: count.describe('Pessoas do lote'),
  subtotal: money.describe('valor_unitario × quantidade'),
};
const checkinLoteSchema = servedLoteSchema.extend(checkinLotFields);
const clienteCurto = z.strictObject(clienteSchema.pick({ nome: true, email: true }).shape);

/** The order of the vouchers listing (2.1–2.7). */
export const listedPedidoSchema = z.strictObject({
  ...orderFields,
  lotes: z.array(servedLoteSchema),
  total_pessoas: count,
  total_lotes: count,
  sincronizado: z.boolean().describe('Todos os vouchers do pedido sincronizados para a chave que chama'),
});
export type ListedPedido = z.output<typeof listedPedidoSchema>;

/** The order of a single-QR check-in: the listing's, with the short cliente and the lots' check-in fields. */
export const checkinPedidoSchema = listedPedidoSchema.extend({
  cliente: clienteCurto,
  lotes: z.array(checkinLoteSchema),
});
export type CheckinPedido = z.output<typeof checkinPedidoSchema>;

/** The order of a combo (group QR) check-in: lots with pessoas[], short additionals, `total`. */
export const comboPedidoSchema = z.strictObject({
  numero_pedido: orderFields.numero_pedido,
  status: orderFields.status,
  pago_em: orderFields.pago_em,
  origem: orderFields.origem,
  total: money.describe('Total pago do pedido'),
  cliente: clienteCurto,
  lotes: z.array(
    servedLoteSchema.omit({ dados: true }).extend({
      ...checkinLotFields,
      pessoas: z.array(
        z.strictObject({
          qr_code: personDataSchema.shape.qr_code,
          nome: z.string(),
          checkin_realizado: z.boolean(),
          checkin_em: timestamp.nullable(),
          checkin_dispositivo: z.string().nullable(),
          checkin_operador: z.string().nullable(),
        }),
      ),
    }),
  ),
  total_pessoas: count,
  adicionais: z.array(
    z.strictObject(adicionalSchema.pick({ nome: true, quantidade: true, preco_unitario: true, subtotal: true }).shape),
  ),
});
export type ComboPedido = z.output<typeof comboPedidoSchema>;

/** The order of an order-mode check-in (4.1). */
export const orderModePedidoSchema = z.strictObject({
  numero_pedido: orderFields.numero_pedido,
  status: orderFields.status,
  cliente: clienteCurto,
  lotes: z.array(checkinLoteSchema),
});
export type OrderModePedido = z.output<typeof orderModePedidoSchema>;

/** A person in a reversal answer (4.2). */
export const reversedPersonSchema = z.strictObject({
  qr_code: personDataSchema.shape.qr_code,
  nome: z.string(),
  estornado_em: timestamp,
  estorno_dispositivo: z.string().nullable().describe('`terminal` do estorno'),
  estorno_operador: z.string().nullable().describe('`operador` do estorno'),
});
export type ReversedPerson = z.output<typeof reversedPersonSchema>;

/** GET /api/v1/api-vouchers (envelope: docs/api.md, "Listings"). */
export const vouchersAnswerSchema = z.strictObject({
  success: z.literal(true),
  data: z.strictObject({
    pedidos: z.array(listedPedidoSchema),
    total: count.describe('Pedidos nesta página'),
    mensagem: z.string().optional().describe('Só numa página vazia: por que ela está vazia'),
  }),
});
