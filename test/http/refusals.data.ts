import { createTestBox, type TestBox } from '../support/box.js';
import { makeOrder } from '../support/fixtures.js';
import { checkin, reverse } from '../support/http.js';

/**
 * A box on 2026-11-20 where every refusal of spec part 7 can be reached: a used ticket (USED-1), one
 * of yesterday (PAST-1), one of the day after tomorrow (SOON-1), a cancelled order (CANC-1), an
 * order without people (20261119-0005), a check-in to reverse another day (YEST-1), a reversed one
 * (REV-1), and another tenant's order (ALIEN-1).
 */
export async function refusalsBox(): Promise<TestBox> {
  const box = await createTestBox({ now: '2026-11-20T13:00:00.000Z' });
  box.importOrders([
    makeOrder({ numero: '20261119-0001', prefix: 'USED', dataUso: '2026-11-20' }),
    makeOrder({ numero: '20261119-0002', prefix: 'PAST', dataUso: '2026-11-19' }),
    makeOrder({ numero: '20261119-0003', prefix: 'SOON', dataUso: '2026-11-22' }),
    makeOrder({ numero: '20261119-0004', prefix: 'CANC', status: 'cancelado', dataUso: '2026-11-20' }),
    makeOrder({ numero: '20261119-0005', people: 0 }),
    makeOrder({ numero: '20261119-0006', prefix: 'YEST', dataUso: '2026-11-20' }),
    makeOrder({ numero: '20261119-0007', prefix: 'REV', dataUso: '2026-11-20' }),
  ]);
  box.importOrders([makeOrder({ numero: '20261119-0008', prefix: 'ALIEN' })], box.otherTenantId);
  for (const qr_code of ['USED-1', 'YEST-1', 'REV-1']) await checkin(box, { qr_code });
  await reverse(box, { qr_code: 'REV-1' });
  return box;
}
