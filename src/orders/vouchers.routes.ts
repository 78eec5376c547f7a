import { setImmediate as yieldToLoop } from 'node:timers/promises';
import type { Kysely } from 'kysely';
import { z } from 'zod';
import type { RouteRegistrar } from '../app.js';
import type { Auth } from '../auth/auth.js';
import { guard } from '../auth/guard.js';
import type { Clock } from '../clock.js';
import type { Sqlite } from '../db/open.js';
import type { DB } from '../db/schema.js';
import { pageLimit, pageOffset, queryBoolean, sortOrder } from '../http/validation.js';
import { loadOrders, voucherPedido } from './order.payload.js';
import { dateString } from './order.schemas.js';
import { findOrderIds, markVouchers } from './vouchers.repo.js';

/** Orders read, shaped and serialised per turn of the event loop: about a millisecond or two. */
const READ_SLICE = 10;

const querySchema = z.object({
  numero_pedido: z.string().trim().min(1).optional(),
  sincronizado: queryBoolean.optional(),
  data_uso: dateString.optional(),
  checkin_realizado: queryBoolean.optional(),
  marcar_sincronizado: queryBoolean.default(true),
  limit: pageLimit(1000, 100),
  offset: pageOffset,
  order_by: z.enum(['pago_em', 'created_at'], { message: 'use pago_em ou created_at' }).default('created_at'),
  order: sortOrder.default('asc'),
});

export const voucherRoutes = ({ sqlite, kysely, clock, auth }: { sqlite: Sqlite; kysely: Kysely<DB>; clock: Clock; auth: Auth }): RouteRegistrar => (app) => {
  const { onRequest, callerOf } = guard((request) => auth.apiKey(request, ['vouchers:read']));

  app.get('/api-vouchers', { onRequest, schema: { querystring: querySchema, tags: ['vouchers'], security: [{ apiKey: [] }] } }, async (request, reply) => {
    const caller = callerOf(request);
    const q = request.query;
    // Select and mark in one short transaction; the page, read after it, shows the marks this call made.
    const ids = sqlite.transaction(() => {
      const found = findOrderIds(sqlite, kysely, { ...q, tenantId: caller.tenantId, apiKeyId: caller.apiKeyId });
      if (q.marcar_sincronizado) markVouchers(sqlite, kysely, caller.apiKeyId, found, clock.nowIso());
      return found;
    }).immediate();
    if (ids.length === 0) {
      const mensagem = q.sincronizado === false ? 'Nenhum voucher novo para sincronizar com esta chave.' : 'Nenhum pedido encontrado para os filtros informados.';
      return { success: true, data: { pedidos: [], total: 0, mensagem } };
    }
    // A page of 1,000 orders is tens of milliseconds of reading, shaping and serialising: done in
    // slices, giving the event loop back between them, so a scan at a turnstile does not wait.
    const parts: string[] = [];
    let total = 0;
    for (let from = 0; from < ids.length; from += READ_SLICE) {
      if (from > 0) await yieldToLoop();
      const slice = loadOrders(sqlite, kysely, ids.slice(from, from + READ_SLICE), caller.apiKeyId);
      total += slice.length;
      if (slice.length > 0) parts.push(JSON.stringify(slice.map((r) => voucherPedido(r))).slice(1, -1));
    }
    // The same bytes JSON.stringify of { success, data: { pedidos, total } } gives.
    return reply.type('application/json; charset=utf-8').send(`{"success":true,"data":{"pedidos":[${parts.join(',')}],"total":${total}}}`);
  });
};
