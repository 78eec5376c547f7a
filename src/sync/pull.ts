import { addDays, type Clock } from '../clock.js';
import type { Db } from '../db/open.js';
import { RESUMABLE_PIECE } from '../db/write-queue.js';
import type { Log } from '../lib/log.js';
import type { Pedido } from '../orders/order.schemas.js';
import { OrderConflictError, upsertOrder } from '../orders/orders.repo.js';
import type { CloudClient, Rejected, VoucherPage, VoucherQuery } from './cloud-client.js';
import { recordRejects } from './rejects.js';
import type { SyncState } from './state.js';

export interface PullTuning {
  /** Orders per page of the incremental pull and of the refreshes (the cloud's maximum is 1000). */
  pageSize: number;
  /** Safety stop for one incremental run, should the cloud not mark what it returns. */
  maxPages: number;
  /** Longest a piece of a page may take before the next order: a scan waits at most about this long. */
  sliceMs: number;
  /** Most rows (an order, its lots, people and additionals) a piece writes; an order larger than this goes alone. */
  sliceRows: number;
}

/**
 * sliceMs measured with `npm run bench:sync`: 2 ms gave a turnstile p99 of 15–19 ms, 1 ms 13–17 ms but under
 * 5,000 orders/s some runs, 1.5 ms 13–16 ms at 6,500–7,300 orders/s (before the search index, migration 0008, about
 * doubled the cost of an order). sliceRows: 256 rows are 64 orders of two people, about 6 ms here (90–110 µs of CPU
 * per order, the search index's triggers included), so the time bound ends pieces first on this box; the row bound
 * holds where a faster core would fit many more orders into sliceMs.
 */
export const DEFAULT_PULL: PullTuning = { pageSize: 1000, maxPages: 10_000, sliceMs: 1.5, sliceRows: 256 };

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

/** Rows an order writes: itself, its lots, their people and its additionals. */
const rowsOf = (order: Pedido) =>
  order.lotes.reduce((n, lote) => n + 1 + lote.dados.length, 1) + (order.adicionais?.length ?? 0);

/**
 * One piece of a page, one commit: orders from `from` on until the piece has taken sliceMs or the next order would
 * take it past sliceRows (an order is never split). Orders that do not fit are set aside. Resolves with where it
 * stopped and how many were stored.
 */
function storePiece(p: Puller, page: VoucherPage, from: number, activity: Activity, inboxId: number | null) {
  const { db, tenantId } = p;
  const { sliceMs, sliceRows } = p.tuning;
  // A RESUMABLE_PIECE: it records how far the page got (sync_inbox.applied) in its own commit, so a power cut loses
  // the last pieces and their progress together, and the page resumes where the disk says it stopped.
  return db.writes.run(() => {
    const started = performance.now();
    const now = p.clock.nowIso();
    const rejected: Rejected[] = [];
    const storedRefs: string[] = [];
    let rows = 0;
    let i = from;
    for (; i < page.items.length && (i === from || performance.now() - started < sliceMs); i++) {
      const ref = page.refs[i]!;
      const reason = page.reasons[i];
      if (reason) {
        rejected.push({ ref, reason });
        continue;
      }
      // Validated by pedidoSchema off the event loop (page-splitter.ts): this is its output.
      const order = JSON.parse(page.items.at(i)) as Pedido;
      rows += rowsOf(order);
      if (rows > sliceRows && i > from) break;
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
  }, RESUMABLE_PIECE);
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

/**
 * A marked page is kept before anything else, durably: from here on a crash no longer loses it. Its bytes are not
 * needed any more (the orders are in page.items): they are let go rather than held while the page is stored.
 */
async function keepPage(p: Puller, page: VoucherPage) {
  const kept = page.packed ?? page.body;
  page.packed = null;
  page.body = EMPTY;
  const inboxId =
    page.received === 0
      ? null
      : await p.db.writes.run(() => Number(p.keep.run(p.tenantId, kept, p.clock.nowIso()).lastInsertRowid), BACKGROUND);
  return { page, inboxId };
}
const EMPTY = Buffer.alloc(0);

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

const samePage = (a: readonly string[], b: readonly string[]) =>
  a.length === b.length && a.every((ref, i) => ref === b[i]);

/** The incremental pull's listing: what is new for this box's key, marked as it is answered, always from offset 0. */
export const incrementalQuery = (pageSize: number): VoucherQuery => ({
  sincronizado: false,
  marcar: true,
  limit: pageSize,
  offset: 0,
});

/** incrementalQuery() until an empty page; the next page is fetched (and kept) while this one is stored. */
async function incremental(p: Puller, signal: AbortSignal): Promise<number> {
  const fetchPage = () =>
    p.client.listVouchers(incrementalQuery(p.tuning.pageSize), signal).then((page) => keepPage(p, page));
  let stored = await resumeKept(p);
  let previous: readonly string[] = [];
  let next = fetchPage();
  for (let i = 0; i < p.tuning.maxPages; i++) {
    const { page, inboxId } = await next;
    if (page.received === 0) {
      p.state.succeeded('pull');
      return stored;
    }
    // The same page twice: the cloud is not marking. Stop instead of looping; the refresh covers it.
    if (samePage(page.refs, previous)) {
      p.log.warn({ orders: page.received }, 'sync: a nuvem devolveu a mesma página duas vezes; marcação não aplicada?');
      return stored + (await store(p, page, 'pull', inboxId));
    }
    previous = page.refs;
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
 * A page is stored in pieces of at most sliceMs and sliceRows, each committed through a write queue like the
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
