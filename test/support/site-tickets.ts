import type { PedidoInput } from '../../src/orders/order.schemas.js';
import { makeOrder } from './fixtures.js';

// The tickets every box of a test site holds: one import file, the same on every box, valid today in the park's
// time zone (the boxes run on the real clock).

export const SITE_TZ = 'America/Sao_Paulo';

/** Today in the park's time zone, YYYY-MM-DD. */
export const parkToday = (timeZone = SITE_TZ, now = new Date()) => now.toLocaleDateString('en-CA', { timeZone });

export interface SiteTickets {
  /** The day they are valid (today in the park's time zone when the boxes were made). */
  day: string;
  /** Every order: its number (also its group QR) and its people's QRs. */
  orders: { numero: string; qrs: string[] }[];
  /** Every person QR, in order. */
  qrs: string[];
  /** A person QR no earlier call returned (from the end of `qrs`): tests sharing the boxes never collide. */
  fresh(): string;
  /** The order number (group QR) of a whole order no earlier call returned, with its people. */
  freshOrder(): { numero: string; qrs: string[] };
}

export interface SiteDataset {
  /** What `gate import` loads on every box (and a fake cloud's addOrders takes). */
  pedidos: PedidoInput[];
  tickets: SiteTickets;
}

/** The shared dataset: `orders` paid orders of `people` people each, for `day` (default: today in the park). */
export function siteTickets(opts: { orders: number; people: number; day?: string }): SiteDataset {
  const day = opts.day ?? parkToday();
  const compact = day.replaceAll('-', '');
  const pedidos = Array.from({ length: opts.orders }, (_, i) => {
    const numero = `${compact}-${String(i + 1).padStart(4, '0')}`;
    return makeOrder({ numero, dataUso: day, people: opts.people, prefix: `ST${compact}${i + 1}` });
  });
  const orders = pedidos.map((p) => ({
    numero: p.numero_pedido,
    qrs: p.lotes.flatMap((l) => l.dados.map((d) => String(d.qr_code))),
  }));
  // Whole orders are handed out from the start, single people from the end: they meet only when all are used.
  let nextOrder = 0;
  const taken = new Set<string>();
  const qrs = orders.flatMap((o) => o.qrs);
  const tickets: SiteTickets = {
    day: day,
    orders,
    qrs,
    fresh() {
      for (let i = qrs.length - 1; i >= 0; i--)
        if (!taken.has(qrs[i]!)) {
          taken.add(qrs[i]!);
          return qrs[i]!;
        }
      throw new Error('no fresh ticket left: give startBoxes more orders');
    },
    freshOrder() {
      const order = orders[nextOrder++];
      if (!order || order.qrs.some((q) => taken.has(q))) throw new Error('no fresh order left');
      for (const q of order.qrs) taken.add(q);
      return order;
    },
  };
  return { pedidos, tickets };
}
