import cron, { type ScheduledTask } from 'node-cron';
import type { Clock } from '../clock.js';
import type { CloudConfig } from '../config.js';
import type { Db } from '../db/open.js';
import type { Log } from '../lib/log.js';
import { backoffDelay, DEFAULT_BACKOFF, type BackoffOptions } from './backoff.js';
import { createCatalogPuller } from './catalog.js';
import { CloudUnavailableError, type CloudClient, type CloudDateListener } from './cloud-client.js';
import { createOrderPuller, DEFAULT_PULL, type PullTuning } from './pull.js';
import { createPusher, DEFAULT_PUSH, type PushOutcome, type PushTuning } from './push.js';
import { createSyncState, type SyncState } from './state.js';

export type SyncConfig = Pick<
  CloudConfig,
  'tenant' | 'pullSeconds' | 'pushSeconds' | 'refreshCron' | 'fullRefreshCron' | 'daysAhead'
> & {
  /** Retry and batch sizes; defaults suit production, tests shrink them. */
  tuning?: { pull?: Partial<PullTuning>; push?: Partial<PushTuning>; backoff?: BackoffOptions };
};

/** What the routes, health, metrics and console need of a running sync worker (tests pass just this). */
export interface SyncInfo {
  tenantId: number;
  state: SyncState;
  /** The cloud's clock, as its answers' `Date` headers tell it (src/clock-check.ts). */
  onCloudDate?(listener: CloudDateListener): void;
}

export interface SyncWorker {
  readonly tenantId: number;
  readonly state: SyncState;
  /** Hears the cloud's `Date` header on its answers (src/clock-check.ts). */
  onCloudDate(listener: CloudDateListener): void;
  /** Starts the schedules: a refresh and a push right away, then the loops and the cron jobs. */
  start(): void;
  /** Stops the schedules and aborts calls in flight; resolves when no cycle runs any more. */
  stop(): Promise<void>;
  /** One incremental pull (orders, then clients); refreshes first when a marked page may have been lost. */
  pullNow(): Promise<void>;
  /** The use dates that matter (today and the next days) without marking, then combos and availability. */
  refreshNow(): Promise<void>;
  /** Every order and client without marking (the night job). */
  fullRefreshNow(): Promise<void>;
  /** Queues new events and sends what is due. */
  pushNow(): Promise<PushOutcome>;
}

export interface SyncWorkerDeps {
  db: Db;
  clock: Clock;
  log: Log;
  config: SyncConfig;
  client: CloudClient;
  /** The tenant GATE_TENANT names, resolved once by the box (boxTenant, src/box-lifecycle.ts). */
  tenantId: number;
}

/** A strand: jobs of one strand never overlap (pulls and refreshes write the same orders). */
function strand() {
  let tail: Promise<unknown> = Promise.resolve();
  return <T>(job: () => Promise<T>): Promise<T> => {
    const result = tail.then(job, job);
    tail = result.catch(() => undefined);
    return result;
  };
}

/** The only code that talks to the cloud. It runs beside the check-in service and never blocks it. */
export function createSyncWorker({ db, clock, log, config, client, tenantId }: SyncWorkerDeps): SyncWorker {
  const state = createSyncState(db, tenantId, clock);
  const backoff = config.tuning?.backoff ?? DEFAULT_BACKOFF;
  const deps = { db, clock, log, client, tenantId, state };
  const orders = createOrderPuller({ ...deps, tuning: { ...DEFAULT_PULL, ...config.tuning?.pull } });
  const catalog = createCatalogPuller({ ...deps, tuning: { ...DEFAULT_PULL, ...config.tuning?.pull } });
  const pusher = createPusher({ ...deps, tuning: { ...DEFAULT_PUSH, backoff, ...config.tuning?.push } });

  let abort = new AbortController();
  let running = false;
  /** Counts starts, so that a loop of an earlier start never reschedules itself. */
  let started = 0;
  // Start as if a marked page had been lost: the first pull refreshes the use dates that matter.
  let needsRefresh = true;
  const pulls = strand();
  const pushes = strand();
  const timers = new Set<NodeJS.Timeout>();
  const tasks: ScheduledTask[] = [];

  /** Runs a job; a failure is recorded (offline) and rethrown to the caller. */
  const guarded = async <T>(what: string, job: () => Promise<T>): Promise<T> => {
    try {
      return await job();
    } catch (error) {
      state.failed(error);
      if (!(error instanceof CloudUnavailableError && error.kind === 'aborted'))
        log.warn({ err: error instanceof Error ? error.message : String(error) }, `sync: ${what} falhou`);
      throw error;
    }
  };

  const refreshOrders = async () => {
    await orders.refresh(orders.window(config.daysAhead), abort.signal);
    needsRefresh = false;
  };

  const pullNow = () =>
    pulls(() =>
      guarded('pull', async () => {
        if (needsRefresh) await refreshOrders();
        try {
          await orders.incremental(abort.signal);
        } catch (error) {
          // The failed call may have been answered and marked by the cloud: refresh before trusting the next page.
          needsRefresh = true;
          throw error;
        }
        // Clients do not gate anyone: one lost marked page waits for the night refresh.
        await catalog.clients(true, abort.signal);
      }),
    );
  const refreshNow = () =>
    pulls(() =>
      guarded('atualização', async () => {
        await refreshOrders();
        await catalog.combos(config.daysAhead, abort.signal);
      }),
    );
  const fullRefreshNow = () =>
    pulls(() =>
      guarded('atualização completa', async () => {
        await orders.refresh(null, abort.signal);
        await catalog.clients(false, abort.signal);
      }),
    );
  const pushNow = () => pushes(() => guarded('envio', () => pusher.pushOnce(abort.signal)));

  /** A loop on timers (sub-minute): the next run waits `every`, or a jittered backoff after failures. */
  function loop(every: number, job: () => Promise<number | void>) {
    let failures = 0;
    const generation = started;
    const tick = async () => {
      let delay = every;
      try {
        const wantMs = await job();
        failures = 0;
        if (typeof wantMs === 'number') delay = Math.min(delay, Math.max(0, wantMs));
      } catch {
        failures++;
        delay = Math.max(every, backoffDelay(failures, backoff));
      }
      if (!running || generation !== started) return;
      const t = setTimeout(() => {
        timers.delete(t);
        void tick();
      }, delay);
      t.unref();
      timers.add(t);
    };
    void tick();
  }

  const pushDelay = async () => {
    const out = await pushNow();
    if (out.pending === 0 || out.nextAttemptAt === null) return undefined;
    return Date.parse(out.nextAttemptAt) - clock.now().getTime();
  };

  return {
    tenantId,
    state,
    onCloudDate: (listener) => client.onDate?.(listener),
    start() {
      if (running) return;
      running = true;
      started++;
      abort = new AbortController();
      needsRefresh = true;
      // Queued first on the pull strand, so the first incremental pull finds the refresh done.
      void refreshNow().catch(() => undefined);
      loop(config.pullSeconds * 1000, pullNow);
      loop(config.pushSeconds * 1000, pushDelay);
      const options = { timezone: clock.timeZone, noOverlap: true };
      tasks.push(
        cron.createTask(config.refreshCron, () => refreshNow().catch(() => undefined), {
          ...options,
          name: 'gate-sync-refresh',
        }),
      );
      tasks.push(
        cron.createTask(config.fullRefreshCron, () => fullRefreshNow().catch(() => undefined), {
          ...options,
          name: 'gate-sync-full',
        }),
      );
      for (const t of tasks) void t.start();
      log.info({ tenant: config.tenant }, 'sync: sincronizador iniciado');
    },
    async stop() {
      running = false;
      for (const t of timers) clearTimeout(t);
      timers.clear();
      await Promise.all(tasks.splice(0).map((t) => t.destroy()));
      abort.abort();
      // Let the jobs in flight see the abort and write down where they stopped.
      await Promise.all([pulls(async () => undefined), pushes(async () => undefined)]);
    },
    pullNow,
    refreshNow,
    fullRefreshNow,
    pushNow,
  };
}
