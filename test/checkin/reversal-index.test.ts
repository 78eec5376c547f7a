import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestBox, type TestBox } from '../support/box.js';
import { queryPlan } from '../support/query-plan.js';

// What runs on the event loop for one scan or one status read goes by index, never by scanning tables that grow by
// one row per scan (issue 25): a reversal leaving every area, the outbox's counts the status reads every second.

let box: TestBox;
beforeAll(async () => {
  box = await createTestBox();
});
afterAll(() => box.close());

const plan = (sql: string, ...args: unknown[]) => queryPlan(box.db, sql, ...args);

it('a reversal finds where the person is inside by person, not by scanning the day’s presence', () => {
  expect(plan('UPDATE presence SET inside = ?, since = ? WHERE person_id = ? AND inside = ?', 0, 'a', 1, 1)).toContain(
    'USING INDEX presence_person (person_id=?)',
  );
});

it('the status reads the outbox by its count row and the index of the rows already tried', () => {
  expect(plan('SELECT n FROM sync_pending_count WHERE tenant_id = ?', 1)).toContain('INTEGER PRIMARY KEY');
  expect(
    plan(
      `SELECT count(*) AS n, min(next_attempt_at) AS next FROM sync_push INDEXED BY sync_push_retrying
       WHERE tenant_id = ? AND status = 'pendente' AND attempts > 0`,
      1,
    ),
  ).toContain('sync_push_retrying');
});
