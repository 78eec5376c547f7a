import { setImmediate as yieldToLoop } from 'node:timers/promises';
import { AppError } from '../http/errors.js';
import { slotWriter, type ByteSlots, type Bytes } from '../lib/byte-slots.js';
import { comboPedido, orderModePedido, reversedPerson, type OrderRecord } from '../orders/order.payload.js';
import type { AdditionalCheckin, ComboCheckin, OrderCheckin, ReversalData } from './checkin.answers.js';
import type { CheckinResult, Granted, Reversed, ReversalResult } from './result.js';

/** The batch answer's summary sentence (4.1: counts of successes and failures). */
export const batchMessage = (ok: number, failed: number, verb: string) =>
  `${ok + failed} código(s) processado(s): ${ok} ${verb} com sucesso, ${failed} com falha.`;

// The HTTP door's words for the check-in service's results: the spec's `data` (4.1, 4.2), built
// in the transaction of the change, so a batch shows each code's order as it was right after it.
// Typed by checkin.answers.ts; the JSON text parts (person, additional) are checked by test/http/answer-schemas.

/** The order of a granted result, read in the transaction of the change, for the caller's API key. */
export interface OrderReader {
  record(orderId: number): OrderRecord;
  /** JSON text of voucherPedido(record(orderId), true), made from what changed (orders/pedido-cache.ts). */
  checkinPedidoJson(orderId: number): string;
}

/** A granted check-in's `data` (4.1) as JSON text. */
export function checkinJson(g: Granted, order: OrderReader): DataJson {
  const text = JSON.stringify;
  switch (g.target) {
    case 'person': {
      const qrCode = g.people[0]!.qrCode;
      return {
        json: `{"message":${text('Check-in realizado com sucesso.')},"qr_code":${text(qrCode)},"checkin_em":${text(g.at)},"pedido":${order.checkinPedidoJson(g.orderId!)}}`,
        qrCode,
      };
    }
    case 'group':
      return asJson<ComboCheckin>({
        message: `Check-in do combo realizado: ${g.people.length} de ${g.totalPessoas} pessoa(s).`,
        combo_qr_code: g.code,
        total_checkins: g.people.length,
        total_pessoas: g.totalPessoas,
        pedido: comboPedido(order.record(g.orderId!)),
      });
    case 'order':
      return asJson<OrderCheckin>({
        message: `Check-in do pedido realizado: ${g.people.length} de ${g.totalPessoas} pessoa(s).`,
        numero_pedido: g.code,
        total_checkins: g.people.length,
        total_pessoas: g.totalPessoas,
        pedido: orderModePedido(order.record(g.orderId!)),
      });
    default: {
      const a = g.additional!;
      const adicional: AdditionalCheckin['adicional'] = {
        nome: a.nome,
        quantidade: a.quantidade,
        unidades_utilizadas: a.used,
        unidades_restantes: a.quantidade - a.used,
      };
      return {
        json: `{"message":${text(`Adicional utilizado: unidade ${a.used} de ${a.quantidade}.`)},"qr_code":${text(g.code)},"checkin_em":${text(g.at)},"adicional":${text(adicional)},"pedido":${order.checkinPedidoJson(g.orderId!)}}`,
        qrCode: g.code,
      };
    }
  }
}

export function reversalData(r: Reversed): ReversalData {
  const pessoas = r.people.map((p) =>
    reversedPerson({
      qr_code: p.qrCode,
      nome: p.nome,
      estornado_em: r.at,
      estorno_dispositivo: r.terminal,
      estorno_operador: r.operador,
    }),
  );
  const totals = { total_estornados: pessoas.length, total_pessoas: r.totalPessoas };
  switch (r.target) {
    case 'person':
      return {
        message: 'Check-in estornado com sucesso.',
        pedido: { numero_pedido: r.numeroPedido, pessoa: pessoas[0]! },
      };
    case 'group':
      return {
        message: `Estorno do combo realizado: ${pessoas.length} pessoa(s).`,
        combo_qr_code: r.code,
        ...totals,
        pedido: { numero_pedido: r.numeroPedido, pessoas },
      };
    case 'order':
      return {
        message: `Estorno do pedido realizado: ${pessoas.length} pessoa(s).`,
        numero_pedido: r.code,
        ...totals,
        pedido: { numero_pedido: r.numeroPedido, pessoas },
      };
    default: {
      const a = r.additional!;
      return {
        message: 'Unidade do adicional estornada com sucesso.',
        qr_code: r.code,
        adicional: {
          nome: a.nome,
          quantidade: a.quantidade,
          unidades_utilizadas: a.used,
          unidades_restantes: a.quantidade - a.used,
        },
        pedido: {
          numero_pedido: r.numeroPedido,
          estornado_em: r.at,
          estorno_dispositivo: r.terminal,
          estorno_operador: r.operador,
        },
      };
    }
  }
}

/**
 * A granted answer's `data` as JSON text, made in the transaction of the change: a batch of 1,000
 * codes then keeps 1,000 strings until it is answered, not the objects of 1,000 orders, which the
 * garbage collector would copy and promote while every scan waits (issue 11). `qrCode` is the data's
 * own top-level qr_code, for the batch item.
 */
export interface DataJson {
  json: string;
  qrCode: unknown;
}

export const asJson = <T extends Record<string, unknown>>(data: T): DataJson => ({
  json: JSON.stringify(data),
  qrCode: data.qr_code,
});

/**
 * One code's answer: the spec's `{ success, data }` as JSON text, or the refusal as the AppError the error handler
 * words.
 */
export function singleJson(result: CheckinResult | ReversalResult, data: DataJson | undefined): string {
  if (!result.ok) throw new AppError(result.code, result.details);
  return `{"success":true,"data":${data!.json}}`;
}

type BatchItem = { code: string; result: CheckinResult | ReversalResult; view?: DataJson | undefined };

/** The JSON text of `{ ...data, qr_code: code, success: true, status: 200 }`, or of the refusal's item. */
function batchItem({ code, result, view }: BatchItem): string {
  if (!result.ok) {
    const error = new AppError(result.code, result.details);
    return JSON.stringify({ qr_code: code, success: false, status: error.status, error: error.toBody() });
  }
  const done = '"success":true,"status":200}';
  // The data's own qr_code (a person's, an additional's) is the code itself and keeps its place.
  if (view!.qrCode === code) return `${view!.json.slice(0, -1)},${done}`;
  if (view!.qrCode === undefined) return `${view!.json.slice(0, -1)},"qr_code":${JSON.stringify(code)},${done}`;
  return JSON.stringify({ ...JSON.parse(view!.json), qr_code: code, success: true, status: 200 });
}

/** Items serialised per turn of the event loop: a batch of 1,000 answers is over a megabyte of JSON. */
const SERIALISE_SLICE = 50;

/**
 * Batch (4.1 rule 3): HTTP 200 with one result per code, as the bytes of the JSON text
 * JSON.stringify of { success, data } gives, written in slices into an answer slot
 * (lib/byte-slots.ts): a batch of 1,000 answers is over a megabyte, and building it as one string
 * made several copies of it for the garbage collector.
 */
export async function batchAnswer(items: BatchItem[], verb: string, slots: ByteSlots): Promise<Bytes> {
  const ok = items.filter((i) => i.result.ok).length;
  const head = JSON.stringify({
    message: batchMessage(ok, items.length - ok, verb),
    total_enviados: items.length,
    total_sucesso: ok,
    total_falha: items.length - ok,
  }).slice(0, -1);
  const out = slotWriter(slots);
  out.write(`{"success":true,"data":${head},"resultados":[`);
  for (let from = 0; from < items.length; from += SERIALISE_SLICE) {
    if (from > 0) await yieldToLoop();
    out.write(
      (from > 0 ? ',' : '') +
        items
          .slice(from, from + SERIALISE_SLICE)
          .map(batchItem)
          .join(','),
    );
  }
  out.write(']}}');
  return out.finish();
}
