import { z } from 'zod';
import type { RouteRegistrar } from '../app.js';
import { CHECKIN_PERMISSIONS, type Auth } from '../auth/auth.js';
import { guard } from '../auth/guard.js';
import type { Db } from '../db/open.js';
import { JSON_TYPE, sendJsonBytes } from '../http/send-bytes.js';
import type { ByteSlots } from '../lib/byte-slots.js';
import { checkinDocs, reversalDocs } from './checkin.docs.js';
import { asHttp } from './checkin.errors.js';
import { asJson, batchAnswer, checkinJson, reversalData, singleJson } from './checkin.payload.js';
import type { CheckinInput, CheckinService } from './checkin.service.js';
import { createOrderReaders } from './order-reader.js';
import { MAX_BATCH_CODES } from './rules/index.js';

// A POST with no body arrives as null: it is an empty request (MISSING_FIELD), not a malformed one.
// qr_code is long enough for a batch of MAX_BATCH_CODES codes; the rules count them.
const bodySchema = z.preprocess(
  (b) => b ?? {},
  z.object({
    qr_code: z
      .string()
      .max(100_000)
      .nullish()
      .describe(
        `QR de pessoa, QR de combo (YYYYMMDD-NNNN), QR de adicional (14 caracteres) ou até ${MAX_BATCH_CODES} separados por vírgula`,
      ),
    numero_pedido: z.string().max(2000).nullish().describe('Número do pedido (exclusivo com qr_code)'),
    terminal: z.string().max(200).nullish().describe('Identificador do dispositivo/catraca'),
    operador: z.string().max(200).nullish().describe('Nome do operador'),
  }),
);

type Body = z.infer<typeof bodySchema>;

/** The spec's field names, in the service's words. */
const inputOf = (b: Body): CheckinInput => ({
  code: b.qr_code,
  orderNumber: b.numero_pedido,
  terminal: b.terminal,
  operator: b.operador,
});

export const checkinRoutes =
  ({ auth, checkin, slots, db }: { auth: Auth; checkin: CheckinService; slots: ByteSlots; db: Db }): RouteRegistrar =>
  (app) => {
    const { onRequest, callerOf } = guard((request) => auth.apiKey(request, CHECKIN_PERMISSIONS));
    const orders = createOrderReaders(db);
    const callerInfo = (c: ReturnType<typeof callerOf>) => ({
      tenantId: c.tenantId,
      apiKeyId: c.apiKeyId,
      keyName: c.keyName,
      source: 'api',
    });

    app.post(
      '/api-qrcode-checkin',
      {
        onRequest,
        schema: {
          body: bodySchema,
          tags: ['check-in'],
          summary: 'Check-in por QR code, combo, lote de códigos ou pedido',
          security: [{ apiKey: [] }],
          docs: checkinDocs,
        },
      },
      async (request, res) => {
        const caller = callerInfo(callerOf(request));
        const order = orders.forKey(caller.apiKeyId);
        const reply = await asHttp(
          checkin.checkIn(inputOf(request.body), caller, { view: (g) => checkinJson(g, order) }),
        );
        if (reply.batch) return sendJsonBytes(res, await batchAnswer(reply.items, 'check-in(s)', slots));
        return res.type(JSON_TYPE).send(singleJson(reply.result, reply.view));
      },
    );

    app.patch(
      '/api-qrcode-checkin',
      {
        onRequest,
        schema: {
          body: bodySchema,
          tags: ['check-in'],
          summary: 'Estorno de check-in no mesmo dia',
          security: [{ apiKey: [] }],
          docs: reversalDocs,
        },
      },
      async (request, res) => {
        const reply = await asHttp(
          checkin.reverse(inputOf(request.body), callerInfo(callerOf(request)), {
            view: (r) => asJson(reversalData(r)),
          }),
        );
        if (reply.batch) return sendJsonBytes(res, await batchAnswer(reply.items, 'estorno(s)', slots));
        return res.type(JSON_TYPE).send(singleJson(reply.result, reply.view));
      },
    );
  };
