import { z } from 'zod';
import type { RouteRegistrar } from '../app.js';
import type { Auth } from '../auth/auth.js';
import { guard } from '../auth/guard.js';
import type { Clock } from '../clock.js';
import type { Db } from '../db/open.js';
import { sendJsonBytes } from '../http/send-bytes.js';
import { pageLimit, pageOffset, queryBoolean, sortOrder } from '../http/validation.js';
import { dateString } from '../lib/wire.js';
import { vouchersDocs } from './vouchers.docs.js';
import type { VoucherPages } from './vouchers.page.js';
import { markVouchers } from './vouchers.repo.js';

const querySchema = z.object({
  numero_pedido: z.string().trim().min(1).optional().describe('Número exato do pedido'),
  sincronizado: queryBoolean
    .optional()
    .describe('false: ainda não entregues a esta chave; true: já entregues; ausente: todos'),
  data_uso: dateString.optional().describe('Pedidos com algum lote nesta data de uso (YYYY-MM-DD)'),
  checkin_realizado: queryBoolean.optional().describe('true: todas as pessoas com check-in; false: ao menos uma sem'),
  marcar_sincronizado: queryBoolean
    .default(true)
    .describe('Marca os vouchers devolvidos para esta chave (padrão true); false só lê'),
  limit: pageLimit(1000, 100).describe('Pedidos por página: padrão 100, no máximo 1000'),
  offset: pageOffset.describe('Pedidos a pular'),
  order_by: z.enum(['pago_em', 'created_at'], { message: 'use pago_em ou created_at' }).default('created_at'),
  order: sortOrder.default('asc'),
});

export const voucherRoutes =
  ({ db, clock, auth, pages }: { db: Db; clock: Clock; auth: Auth; pages: VoucherPages }): RouteRegistrar =>
  (app) => {
    const { onRequest, callerOf } = guard((request) => auth.apiKey(request, ['vouchers:read']));
    const markingByKey = new Map<number, Promise<unknown>>();

    /**
     * Calls of one key that mark run one after another, from finding the page to committing its marks,
     * so two of them never hand out the same new vouchers. The marks commit as the write queue's
     * background work: after the scans queued before them, and with the fsync off the event loop.
     */
    function findAndMark(apiKeyId: number, find: () => Promise<number[]>): Promise<number[]> {
      const mark = async () => {
        const ids = await find();
        await db.writes.run(() => markVouchers(db, apiKeyId, ids, clock.nowIso()), { background: true });
        return ids;
      };
      const done = (markingByKey.get(apiKeyId) ?? Promise.resolve()).then(mark, mark);
      const settled = done.catch(() => undefined);
      markingByKey.set(apiKeyId, settled);
      void settled.then(() => markingByKey.get(apiKeyId) === settled && markingByKey.delete(apiKeyId));
      return done;
    }

    app.get(
      '/api-vouchers',
      {
        onRequest,
        schema: {
          querystring: querySchema,
          tags: ['vouchers'],
          summary: 'Pedidos com vouchers e marcação de sincronização por chave',
          security: [{ apiKey: [] }],
          docs: vouchersDocs,
        },
      },
      async (request, reply) => {
        const caller = callerOf(request);
        const q = request.query;
        const find = () => pages.find({ ...q, tenantId: caller.tenantId, apiKeyId: caller.apiKeyId });
        // The page is read after its marks are committed, so it shows the marks this call made.
        const ids = q.marcar_sincronizado ? await findAndMark(caller.apiKeyId, find) : await find();
        if (ids.length === 0) {
          const mensagem =
            q.sincronizado === false
              ? 'Nenhum voucher novo para sincronizar com esta chave.'
              : 'Nenhum pedido encontrado para os filtros informados.';
          return { success: true, data: { pedidos: [], total: 0, mensagem } };
        }
        return sendJsonBytes(reply, await pages.render(ids, caller.apiKeyId));
      },
    );
  };
