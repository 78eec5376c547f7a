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

type Activity = 'pull' | 'refresh' | 'full';

/** The puller's deps and its prepared statements: what each step below works with. */
function pullerOf(deps: PullDeps) {
  const { db } = deps;
  return {
    ...deps,
    savepoint: db.sqlite.transaction((work: () => void) => work()),
    keep: db.statement('INSERT INTO sync_inbox (tenant_id, body, received_at) VALUES (?, ?, ?)'),
    progress: db.statement('UPDATE sync_inbox SET applied = ? WHERE id = ?'),
    done: db.statement('DELETE FROM sync_inbox WHERE id = ?'),
    kept: db.statement('SELECT id, body, applied FROM sync_inbox WHERE tenant_id = ? ORDER BY id'),
  };
}
type Puller = ReturnType<typeof pullerOf>;

/**
 * One piece of a page, one commit: orders that do not fit are set aside; resolves with where it stopped and how many
 * were stored.
 */
function storePiece(p: Puller, page: VoucherPage, from: number, activity: Activity, inboxId: number | null) {
  const { db, tenantId } = p;
  return db.writes.run(() => {
    const started = performance.now();
    const now = p.clock.nowIso();
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
        p.savepoint(() => upsertOrder(db, tenantId, order, now));
        storedRefs.push(ref);
      } catch (error) {
        if (!(error instanceof OrderConflictError)) throw error;
        rejected.push({ ref, reason: error.message });
      }
    }
    recordRejects(db, tenantId, 'pedido', rejected, storedRefs, now);
    const finished = i >= page.items.length;
    if (inboxId !== null) {
      if (finished) p.done.run(inboxId);
      else p.progress.run(i, inboxId);
    }
    if (finished) p.state.succeeded(activity);
    return { next: i, stored: storedRefs.length };
  }, BACKGROUND);
}

/** Every order of the page, piece by piece, from `from` on; returns the orders stored. */
async function store(
  p: Puller,
  page: VoucherPage,
  activity: Activity,
  inboxId: number | null = null,
  from = 0,
): Promise<number> {
  let stored = 0;
  let at = from;
  do {
    const piece = await storePiece(p, page, at, activity, inboxId);
    at = piece.next;
    stored += piece.stored;
  } while (at < page.items.length);
  return stored;
}

/** A marked page is kept before anything else: from here on a crash no longer loses it. */
const keepPage = async (p: Puller, page: VoucherPage) => ({
  page,
  inboxId:
    page.received === 0
      ? null
      : await p.db.writes.run(
          () => Number(p.keep.run(p.tenantId, page.packed ?? page.body, p.clock.nowIso()).lastInsertRowid),
          BACKGROUND,
        ),
});

/** Pages kept by an earlier run that did not finish storing them (a crash, a power cut, a full disk). */
async function resumeKept(p: Puller): Promise<number> {
  let stored = 0;
  for (const row of p.kept.all(p.tenantId) as { id: number; body: Buffer | string; applied: number }[]) {
    const page = await p.client.readVoucherPage(row.body);
    p.log.info({ orders: page.items.length - row.applied }, 'sync: retomando página já marcada pela nuvem');
    stored += await store(p, page, 'pull', row.id, row.applied);
  }
  return stored;
}

/**
 * sincronizado=false with marking, from offset 0 until an empty page; the next page is fetched (and kept) while this
 * one is stored.
 */
async function incremental(p: Puller, signal: AbortSignal): Promise<number> {
  const fetchPage = () =>
    p.client
      .listVouchers({ sincronizado: false, marcar: true, limit: p.tuning.pageSize, offset: 0 }, signal)
      .then((page) => keepPage(p, page));
  let stored = await resumeKept(p);
  let previous = '';
  let next = fetchPage();
  for (let i = 0; i < p.tuning.maxPages; i++) {
    const { page, inboxId } = await next;
    if (page.received === 0) {
      p.state.succeeded('pull');
      return stored;
    }
    const keys = page.refs.join(',');
    // The same page twice: the cloud is not marking. Stop instead of looping; the refresh covers it.
    if (keys === previous) {
      p.log.warn({ orders: page.received }, 'sync: a nuvem devolveu a mesma página duas vezes; marcação não aplicada?');
      return stored + (await store(p, page, 'pull', inboxId));
    }
    previous = keys;
    next = fetchPage();
    // A failure of the page in flight is only seen when it is awaited; keep it from being "unhandled" meanwhile.
    next.catch(() => undefined);
    stored += await store(p, page, 'pull', inboxId);
  }
  // Out of pages for this run: the page in flight is marked already, so it is stored too.
  const last = await next;
  return stored + (await store(p, last.page, 'pull', last.inboxId));
}

/** marcar_sincronizado=false, paged with limit/offset: for each date given, or everything when `dates` is null. */
async function refresh(p: Puller, dates: readonly string[] | null, signal: AbortSignal): Promise<number> {
  let stored = 0;
  for (const data_uso of dates ?? [undefined]) {
    for (let offset = 0; ;) {
      const page = await p.client.listVouchers(
        { marcar: false, ...(data_uso ? { data_uso } : {}), limit: p.tuning.pageSize, offset },
        signal,
      );
      stored += await store(p, page, dates ? 'refresh' : 'full');
      if (page.received < p.tuning.pageSize) break;
      offset += page.received;
    }
  }
  return stored;
}

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
export function createOrderPuller(deps: PullDeps) {
  const p = pullerOf(deps);
  return {
    incremental: (signal: AbortSignal) => incremental(p, signal),
    refresh: (dates: readonly string[] | null, signal: AbortSignal) => refresh(p, dates, signal),

    /** Today and the next `days` days in the tenant's time zone. */
    window(days: number): string[] {
      const today = deps.clock.today();
      return Array.from({ length: days + 1 }, (_, i) => addDays(today, i));
    },
  };
}

export type OrderPuller = ReturnType<typeof createOrderPuller>;
