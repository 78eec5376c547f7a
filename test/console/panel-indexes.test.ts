import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestBox, type TestBox } from '../support/box.js';
import { queryPlan } from '../support/query-plan.js';

// The supervisor's panels read a day of events and a tenant's alarms among every lane event: by
// index (migration 0007), never by scanning tables that grow by one row per scan.

let box: TestBox;
beforeAll(async () => {
  box = await createTestBox();
});
afterAll(() => box.close());

const plan = (sql: string, ...args: unknown[]) => queryPlan(box.db, sql, ...args);

it('a day of events is found through (tenant_id, occurred_at)', () => {
  expect(
    plan(
      "SELECT count(*) FROM events WHERE tenant_id = ? AND action IN ('checkin', 'entrada', 'reentrada') AND result = 'ok' AND occurred_at >= ? AND occurred_at < ?",
      1,
      'a',
      'b',
    ),
  ).toContain('USING INDEX events_tenant_time (tenant_id=? AND occurred_at>? AND occurred_at<?)');
});

it('a tenant’s alarms are found through the partial index of alarm kinds', () => {
  expect(
    plan(
      "SELECT e.id FROM lane_events e WHERE e.tenant_id = ? AND e.kind IN ('carona', 'incendio_inicio', 'dispositivo_offline') ORDER BY e.id DESC LIMIT 200",
      1,
    ),
  ).toContain('USING INDEX lane_events_alarms');
});
