import type { Db } from '../db/open.js';
import { loadOrders } from '../orders/order.payload.js';
import { createPedidoCache } from '../orders/pedido-cache.js';
import type { OrderReader } from './checkin.payload.js';

// The HTTP door's reading of a granted result's order (checkin.payload.ts), for the caller's API key.
// Used inside the service's `view` callback, so it reads in the transaction of the change.

export interface OrderReaders {
  forKey(apiKeyId: number | null): OrderReader;
}

export function createOrderReaders(db: Db): OrderReaders {
  // What the answers repeat of an order, kept between its people's scans (orders/pedido-cache.ts).
  const pedidos = createPedidoCache();
  return {
    forKey: (apiKeyId) => ({
      record: (orderId) => loadOrders(db, [orderId], apiKeyId)[0]!,
      checkinPedidoJson: (orderId) => pedidos.checkinPedidoJson(db, orderId, apiKeyId),
    }),
  };
}
