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

  app.get('/api-vouchers', { onRequest, schema: { querystring: querySchema, tags: ['vouchers'], security: [{ apiKey: [] }] } }, async (request) => {
    const caller = callerOf(request);
    const q = request.query;
    // Select, mark and read in one transaction: the page shows the marks this call made (as clients do).
    const pedidos = sqlite.transaction(() => {
      const ids = findOrderIds(sqlite, kysely, { ...q, tenantId: caller.tenantId, apiKeyId: caller.apiKeyId });
      if (q.marcar_sincronizado) markVouchers(sqlite, kysely, caller.apiKeyId, ids, clock.nowIso());
      return loadOrders(sqlite, kysely, ids, caller.apiKeyId).map((r) => voucherPedido(r));
    }).immediate();
    const data: Record<string, unknown> = { pedidos, total: pedidos.length };
    if (pedidos.length === 0)
      data.mensagem = q.sincronizado === false ? 'Nenhum voucher novo para sincronizar com esta chave.' : 'Nenhum pedido encontrado para os filtros informados.';
    return { success: true, data };
  });
};
