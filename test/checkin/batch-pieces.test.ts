import { afterEach, beforeEach, expect, it } from 'vitest';
import { createCheckinService } from '../../src/checkin/checkin.service.js';
import type { WritePriority } from '../../src/db/write-queue.js';
import { createTestBox, type TestBox } from '../support/box.js';
import { makeOrder } from '../support/fixtures.js';

// A large batch is written in slices, each its own commit, so a scan at a turnstile waits for one slice at most.
// A slice ends after 10 codes or once it has taken BATCH_PIECE_MS, whichever comes first (issue 25: slices of 10
// cold orders held the event loop 50–95 ms in `npm run bench:heavy`).

let box: TestBox;
beforeEach(async () => {
  box = await createTestBox();
});
afterEach(() => box.close());

const caller = () => ({ tenantId: box.tenantId, apiKeyId: null, keyName: 'erp', source: 'api' });

function countCommits() {
  const commits: { priority: WritePriority; units: number }[] = [];
  box.db.writes.observe({
    committed: (priority, units) => commits.push({ priority, units }),
    synced: () => undefined,
    failed: () => undefined,
  });
  return commits;
}

it('ends a slice of a batch once it has taken its time, not only after 10 codes', async () => {
  box.importOrders([makeOrder({ prefix: 'L', people: 24 })]);
  const codes = Array.from({ length: 24 }, (_, i) => `L-${i + 1}`);
  // No time at all: every code is a slice of its own.
  const checkin = createCheckinService({ db: box.db, clock: box.clock, batchPieceMs: 0 });
  const commits = countCommits();
  const reply = await checkin.checkIn({ code: codes.join(','), terminal: 'erp' }, caller());
  expect(reply.batch && reply.items.map((i) => i.result.ok)).toEqual(codes.map(() => true));
  expect(commits).toEqual(codes.map(() => ({ priority: 'background', units: 1 })));
});

it('still puts at most 10 codes in a slice when they are quick', async () => {
  box.importOrders([makeOrder({ prefix: 'Q', people: 24 })]);
  const codes = Array.from({ length: 24 }, (_, i) => `Q-${i + 1}`);
  const checkin = createCheckinService({ db: box.db, clock: box.clock, batchPieceMs: 60_000 });
  const commits = countCommits();
  const reply = await checkin.checkIn({ code: codes.join(','), terminal: 'erp' }, caller());
  expect(reply.batch && reply.items.map((i) => i.code)).toEqual(codes);
  // The write queue counts one unit per slice; each slice is one background commit: 10 + 10 + 4 codes.
  expect(commits).toEqual([1, 1, 1].map((units) => ({ priority: 'background', units })));
  const checked = box.db.sqlite
    .prepare(`SELECT count(*) FROM people WHERE qr_code LIKE 'Q-%' AND checkin_em IS NOT NULL`)
    .pluck()
    .get();
  expect(checked).toBe(24);
});
