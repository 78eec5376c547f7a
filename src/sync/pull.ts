import type { FastifyBaseLogger } from 'fastify';
import { addDays, type Clock } from '../clock.js';
import type { Db } from '../db/open.js';
import type { Pedido } from '../orders/order.schemas.js';
import { OrderConflictError, upsertOrder } from '../orders/orders.repo.js';
import type { CloudClient, Page, Rejected } from './cloud-client.js';
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
  log: FastifyBaseLogger;
  client: CloudClient;
  tenantId: number;
  state: SyncState;
}

export type PullDeps = SyncStepDeps & { tuning: PullTuning };


/**
 * Orders from the cloud. The incremental pull reads `sincronizado=false` with marking on, so the
 * cloud forgets a page the moment it answers: a reply lost on the way, or a crash before the commit,
 * would lose it. The refreshes read with `marcar_sincronizado=false` and so can always be repeated:
 * the use dates that matter at start, on a schedule and after any failed incremental call, and
 * everything at night (docs/sync.md).
 */
export function createOrderPuller({ db, clock, log, client, tenantId, state, tuning }: PullDeps) {
  const { sqlite, kysely: k } = db;
  const savepoint = sqlite.transaction((work: () => void) => work());

  /** One page, one transaction: every order of it lands, or none. Orders that do not fit are set aside. */
  function store(page: Page<Pedido>, activity: 'pull' | 'refresh' | 'full'): number {
    const now = clock.nowIso();
    return sqlite.transaction(() => {
      const rejected: Rejected[] = [...page.rejected];
      let stored = 0;
      for (const p of page.items) {
        try {
          savepoint(() => upsertOrder(sqlite, k, tenantId, p, now));
          stored++;
        } catch (error) {
          if (!(error instanceof OrderConflictError)) throw error;
          rejected.push({ ref: p.numero_pedido, reason: error.message });
        }
      }
      recordRejects(sqlite, k, tenantId, 'pedido', rejected, page.items.map((p) => p.numero_pedido), now);
      state.succeeded(activity);
      return stored;
    }).immediate();
  }

  return {
    /** sincronizado=false with marking, from offset 0 until an empty page; the next page is fetched while this one is stored. */
    async incremental(signal: AbortSignal): Promise<number> {
      const fetchPage = () => client.listVouchers({ sincronizado: false, marcar: true, limit: tuning.pageSize, offset: 0 }, signal);
      let stored = 0;
      let previous = '';
      let next = fetchPage();
      for (let i = 0; i < tuning.maxPages; i++) {
        const page = await next;
        if (page.received === 0) {
          state.succeeded('pull');
          return stored;
        }
        const keys = [...page.items.map((p) => p.numero_pedido), ...page.rejected.map((r) => r.ref)].join(',');
        // The same page twice: the cloud is not marking. Stop instead of looping; the refresh covers it.
        if (keys === previous) {
          log.warn({ orders: page.items.length }, 'sync: a nuvem devolveu a mesma página duas vezes; marcação não aplicada?');
          stored += store(page, 'pull');
          return stored;
        }
        previous = keys;
        next = fetchPage();
        // A failure of the page in flight is only seen when it is awaited; keep it from being "unhandled" meanwhile.
        next.catch(() => undefined);
        stored += store(page, 'pull');
      }
      // Out of pages for this run: the page in flight is marked already, so it is stored too.
      const last = await next;
      return stored + store(last, 'pull');
    },

    /** marcar_sincronizado=false, paged with limit/offset: for each date given, or everything when `dates` is null. */
    async refresh(dates: readonly string[] | null, signal: AbortSignal): Promise<number> {
      let stored = 0;
      for (const data_uso of dates ?? [undefined]) {
        for (let offset = 0; ; ) {
          const page = await client.listVouchers({ marcar: false, ...(data_uso ? { data_uso } : {}), limit: tuning.pageSize, offset }, signal);
          stored += store(page, dates ? 'refresh' : 'full');
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
