import type { BoxRoutes } from '../app.js';
import type { Auth } from '../auth/auth.js';
import type { Clock } from '../clock.js';
import type { Db } from '../db/open.js';
import type { ByteSlots } from '../lib/byte-slots.js';
import { createVoucherPages } from './vouchers.page.js';
import { voucherRoutes } from './vouchers.routes.js';

/**
 * The vouchers listing (src/box.ts starts it with the HTTP door): its pages are found and made by a worker thread
 * with its own connection, closed with it.
 */
export function startVouchers({ db, clock, auth, slots }: { db: Db; clock: Clock; auth: Auth; slots: ByteSlots }): {
  routes: BoxRoutes;
  close(): Promise<void>;
} {
  const pages = createVoucherPages(db.sqlite.name, slots);
  return { routes: { v1: [voucherRoutes({ db, clock, auth, pages })] }, close: () => pages.close() };
}
