import { z } from 'zod';
import { errorEnvelopeSchema } from '../http/error-envelope.js';
import {
  checkinPedidoSchema,
  comboPedidoSchema,
  orderModePedidoSchema,
  reversedPersonSchema,
} from '../orders/order.answers.js';
import { MAX_BATCH_CODES } from './rules/index.js';

// The check-in and reversal answers (4.1, 4.2 and docs/api.md): the one description of what
// checkin.payload.ts builds, read by its types, by the recorded answers' test and by /docs.

const count = z.number().int().min(0);
const adicionalUnidades = z.strictObject({
  nome: z.string(),
  quantidade: z.number().int().min(1),
  unidades_utilizadas: count,
  unidades_restantes: count,
});

const personData = z
  .strictObject({ message: z.string(), qr_code: z.string(), checkin_em: z.string(), pedido: checkinPedidoSchema })
  .describe('QR de pessoa');
const comboData = z
  .strictObject({
    message: z.string(),
    combo_qr_code: z.string(),
    total_checkins: count.describe('Pessoas que entraram agora'),
    total_pessoas: count,
    pedido: comboPedidoSchema,
  })
  .describe('QR de combo (grupo)');
const orderData = z
  .strictObject({
    message: z.string(),
    numero_pedido: z.string(),
    total_checkins: count,
    total_pessoas: count,
    pedido: orderModePedidoSchema,
  })
  .describe('Pedido (numero_pedido)');
const additionalData = z
  .strictObject({
    message: z.string(),
    qr_code: z.string(),
    checkin_em: z.string(),
    adicional: adicionalUnidades,
    pedido: checkinPedidoSchema,
  })
  .describe('QR de adicional');

const reversalPerson = z
  .strictObject({
    message: z.string(),
    pedido: z.strictObject({ numero_pedido: z.string(), pessoa: reversedPersonSchema }),
  })
  .describe('QR de pessoa');
const reversalGroup = z.strictObject({ numero_pedido: z.string(), pessoas: z.array(reversedPersonSchema) });
const reversalCombo = z
  .strictObject({
    message: z.string(),
    combo_qr_code: z.string(),
    total_estornados: count,
    total_pessoas: count,
    pedido: reversalGroup,
  })
  .describe('QR de combo (grupo)');
const reversalOrder = z
  .strictObject({
    message: z.string(),
    numero_pedido: z.string(),
    total_estornados: count,
    total_pessoas: count,
    pedido: reversalGroup,
  })
  .describe('Pedido (numero_pedido)');
const reversalAdditional = z
  .strictObject({
    message: z.string(),
    qr_code: z.string(),
    adicional: adicionalUnidades,
    pedido: z.strictObject({
      numero_pedido: z.string(),
      estornado_em: z.string(),
      estorno_dispositivo: z.string().nullable(),
      estorno_operador: z.string().nullable(),
    }),
  })
  .describe('QR de adicional');

const itemDone = { success: z.literal(true), status: z.literal(200) };
/**
 * A batch: one item per distinct code, each the single-code `data` plus qr_code, success and status, or the code's
 * error.
 */
const batchOf = (singles: z.ZodObject[]) =>
  z
    .strictObject({
      message: z.string().describe('Resumo com as contagens de sucessos e falhas'),
      total_enviados: count.describe('Códigos distintos recebidos'),
      total_sucesso: count,
      total_falha: count,
      resultados: z.array(
        z.union([
          ...singles.map((s) => s.extend({ qr_code: z.string(), ...itemDone })),
          z.strictObject({
            qr_code: z.string(),
            success: z.literal(false),
            status: z.number().int().describe('O status HTTP do erro'),
            error: errorEnvelopeSchema.shape.error,
          }),
        ]),
      ),
    })
    .describe(`Lote: dois ou mais códigos separados por vírgula (até ${MAX_BATCH_CODES})`);

const ok = <T extends z.ZodType>(data: T) => z.strictObject({ success: z.literal(true), data });

/** The 200 of POST /api-qrcode-checkin: one of the five shapes. */
export const checkinAnswerSchema = ok(
  z.union([personData, comboData, orderData, additionalData, batchOf([personData, comboData, additionalData])]),
);
/** The 200 of PATCH /api-qrcode-checkin. */
export const reversalAnswerSchema = ok(
  z.union([
    reversalPerson,
    reversalCombo,
    reversalOrder,
    reversalAdditional,
    batchOf([reversalPerson, reversalCombo, reversalAdditional]),
  ]),
);

type DataOf<T extends z.ZodType> = z.output<T>;
export type PersonCheckin = DataOf<typeof personData>;
export type ComboCheckin = DataOf<typeof comboData>;
export type OrderCheckin = DataOf<typeof orderData>;
export type AdditionalCheckin = DataOf<typeof additionalData>;
export type ReversalData =
  | DataOf<typeof reversalPerson>
  | DataOf<typeof reversalCombo>
  | DataOf<typeof reversalOrder>
  | DataOf<typeof reversalAdditional>;
