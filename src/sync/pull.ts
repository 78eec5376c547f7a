import { addDays, type Clock } from '../clock.js';
import type { Db } from '../db/open.js';
import type { Log } from '../lib/log.js';
import type { Pedido } from '../orders/order.schemas.js';
import { OrderConflictError, upsertOrder } from '../orders/orders.repo.js';
import type { CloudClient, Rejected, VoucherPage } from './cloud-client.js';
import { recordRejects } from './rejects.js';
import type { SyncState } from './state.js';

export interface PullTuning {
  /** Orders per page of the incremental pull and of the refreshes (the cloud's maximum is 1000). */
  pageSize: number;
  /** Safety stop for one incremental run, should the cloud not mark what it returns. */
  maxPages: number;
}

export const DEFAULT_PULL: PullTuning = { pageSize: 1000, maxPages: 10_000 };

/** What the pull and the push both work with. */
export interface SyncStepDeps {
  db: Db;
  clock: Clock;
  log: Log;
  client: CloudClient;
  tenantId: number;
  state: SyncState;
}

export type PullDeps = SyncStepDeps & { tuning: PullTuning };

/**
 * Longest a piece of a page may hold the event loop and the write lock: a scan waits at most this long.
 * Measured with `npm run bench:sync`: 2 ms gave a turnstile p99 of 15–19 ms, 1 ms 13–17 ms but under
 * 5,000 orders/s some runs, 1.5 ms 13–16 ms at 6,500–7,300 orders/s.
 */
const SLICE_MS = 1.5;
const BACKGROUND = { background: true };

/**
 * Orders from the cloud. The incremental pull reads `sincronizado=false` with marking on, so the
 * cloud forgets a page the moment it answers: each such page is first kept as received (sync_inbox,
 * one short transaction) and then stored; a crash in between resumes from the inbox. The refreshes
 * read with `marcar_sincronizado=false` and so can always be repeated: the use dates that matter at
 * start, on a schedule and after any failed incremental call, and everything at night (docs/sync.md).
 * A page is stored in pieces of at most SLICE_MS, each committed through a write queue like the
 * check-ins' (the fsync off the event loop), so check-ins get their turn between pieces: a check-in
 * never waits behind a page.
 */
export function createOrderPuller({ db, clock, log, client, tenantId, state, tuning }: PullDeps) {
  const { sqlite, writes } = db;
  const savepoint = sqlite.transaction((work: () => void) => work());
  const keep = db.statement('INSERT INTO sync_inbox (tenant_id, body, received_at) VALUES (?, ?, ?)');
  const progress = db.statement('UPDATE sync_inbox SET applied = ? WHERE id = ?');
  const done = db.statement('DELETE FROM sync_inbox WHERE id = ?');
  const kept = db.statement('SELECT id, body, applied FROM sync_inbox WHERE tenant_id = ? ORDER BY id');

  /**
   * One piece of a page, one commit: orders that do not fit are set aside; resolves with where it stopped and how many
   * were stored.
   */
  function storePiece(page: VoucherPage, from: number, activity: 'pull' | 'refresh' | 'full', inboxId: number | null) {
    return writes.run(() => {
      const started = performance.now();
      const now = clock.nowIso();
      const rejected: Rejected[] = [];
      const storedRefs: string[] = [];
      let i = from;
      for (; i < page.items.length && (i === from || performance.now() - started < SLICE_MS); i++) {
        const ref = page.refs[i]!;
        const reason = page.reasons[i];
        if (reason) {
          rejected.push({ ref, reason });
          continue;
        }
        // Validated by pedidoSchema off the event loop (page-splitter.ts): this is its output.
        const order = JSON.parse(page.items.at(i)) as Pedido;
        try {
          savepoint(() => upsertOrder(db, tenantId, order, now));
          storedRefs.push(ref);
        } catch (error) {
          if (!(error instanceof OrderConflictError)) throw error;
          rejected.push({ ref, reason: error.message });
        }
      }
      recordRejects(db, tenantId, 'pedido', rejected, storedRefs, now);
      const finished = i >= page.items.length;
      if (inboxId !== null) {
        if (finished) done.run(inboxId);
        else progress.run(i, inboxId);
      }
      if (finished) state.succeeded(activity);
      return { next: i, stored: storedRefs.length };
    }, BACKGROUND);
  }

  /** Every order of the page, piece by piece, from `from` on; returns the orders stored. */
  async function store(
    page: VoucherPage,
    activity: 'pull' | 'refresh' | 'full',
    inboxId: number | null = null,
    from = 0,
  ): Promise<number> {
    let stored = 0;
    let at = from;
    do {
      const piece = await storePiece(page, at, activity, inboxId);
      at = piece.next;
      stored += piece.stored;
    } while (at < page.items.length);
    return stored;
  }

  /** A marked page is kept before anything else: from here on a crash no longer loses it. */
  const keepPage = async (page: VoucherPage) => ({
    page,
    inboxId:
      page.received === 0
        ? null
        : await writes.run(
            () => Number(keep.run(tenantId, page.packed ?? page.body, clock.nowIso()).lastInsertRowid),
            BACKGROUND,
          ),
  });

  /** Pages kept by an earlier run that did not finish storing them (a crash, a power cut, a full disk). */
  async function resumeKept(): Promise<number> {
    let stored = 0;
    for (const row of kept.all(tenantId) as { id: number; body: Buffer | string; applied: number }[]) {
      const page = await client.readVoucherPage(row.body);
      log.info({ orders: page.items.length - row.applied }, 'sync: retomando página já marcada pela nuvem');
      stored += await store(page, 'pull', row.id, row.applied);
    }
    return stored;
  }

  return {
    /**
     * sincronizado=false with marking, from offset 0 until an empty page; the next page is fetched (and kept) while
     * this one is stored.
     */
    async incremental(signal: AbortSignal): Promise<number> {
      const fetchPage = () =>
        client
          .listVouchers({ sincronizado: false, marcar: true, limit: tuning.pageSize, offset: 0 }, signal)
          .then(keepPage);
      let stored = await resumeKept();
      let previous = '';
      let next = fetchPage();
      for (let i = 0; i < tuning.maxPages; i++) {
        const { page, inboxId } = await next;
        if (page.received === 0) {
          state.succeeded('pull');
          return stored;
        }
        const keys = page.refs.join(',');
        // The same page twice: the cloud is not marking. Stop instead of looping; the refresh covers it.
        if (keys === previous) {
          log.warn(
            { orders: page.received },
            'sync: a nuvem devolveu a mesma página duas vezes; marcação não aplicada?',
          );
          return stored + (await store(page, 'pull', inboxId));
        }
        previous = keys;
        next = fetchPage();
        // A failure of the page in flight is only seen when it is awaited; keep it from being "unhandled" meanwhile.
        next.catch(() => undefined);
        stored += await store(page, 'pull', inboxId);
      }
      // Out of pages for this run: the page in flight is marked already, so it is stored too.
      const last = await next;
      return stored + (await store(last.page, 'pull', last.inboxId));
    },

    /** marcar_sincronizado=false, paged with limit/offset: for each date given, or everything when `dates` is null. */
    async refresh(dates: readonly string[] | null, signal: AbortSignal): Promise<number> {
      let stored = 0;
      for (const data_uso of dates ?? [undefined]) {
        for (let offset = 0; ;) {
          const page = await client.listVouchers(
            { marcar: false, ...(data_uso ? { data_uso } : {}), limit: tuning.pageSize, offset },
            signal,
          );
          stored += await store(page, dates ? 'refresh' : 'full');
          if (page.received < tuning.pageSize) break;
          offset += page.received;
        }
      }
      return stored;
    },

    /** Today and the next `days` days in the tenant's time zone. */
    window(days: number): string[] {
      const today = clock.today();
      return Array.from({ length: days + 1 }, (_, i) => addDays(today, i));
    },
  };
}

export type OrderPuller = ReturnType<typeof createOrderPuller>;
