import { afterEach, expect, it, vi } from 'vitest';
import { createConsolePanels } from '../../src/console/console.panels.js';
import { createFeed } from '../../src/console/feed.js';
import { startMonitor } from '../../src/console/live.js';
import { createTestBox, type TestBox } from '../support/box.js';

// The consoles' monitor samples lanes, alarms and sync once a second from a timer. A sample that
// throws (the database busy, or closed under it) must not become an uncaught exception: in the box
// that would end the process, gates and all.

let box: TestBox;
afterEach(async () => {
  vi.useRealTimers();
  await box?.close();
});

it('a failing sample is skipped and said once per failing stretch; sampling goes on', async () => {
  box = await createTestBox();
  vi.useFakeTimers();
  const feed = createFeed();
  const seen: string[] = [];
  feed.subscribe((m) => void seen.push(m.kind));
  const panels = createConsolePanels({ db: box.db, clock: box.clock, status: box.status });
  let busy = false;
  const flaky = {
    ...panels,
    sync: (t: number) => {
      if (busy) throw new Error('SQLITE_BUSY: database is locked');
      return panels.sync(t);
    },
  };
  const failures: unknown[] = [];
  const monitor = startMonitor({
    feed,
    panels: flaky,
    tenants: () => [box.tenantId],
    onError: (e) => failures.push(e),
  });
  vi.advanceTimersByTime(1_000);
  expect(seen).toContain('sync');
  busy = true;
  expect(() => vi.advanceTimersByTime(3_000)).not.toThrow();
  expect(failures.map(String)).toEqual(['Error: SQLITE_BUSY: database is locked']);
  busy = false;
  vi.advanceTimersByTime(1_000);
  // A database closed under it (the box stopping in the wrong order) is no crash either.
  box.db.sqlite.close();
  expect(() => vi.advanceTimersByTime(2_000)).not.toThrow();
  expect(failures).toHaveLength(2);
  expect(String(failures[1])).toMatch(/not open/);
  monitor.stop();
});
