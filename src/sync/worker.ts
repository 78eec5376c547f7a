import cron, { type ScheduledTask } from 'node-cron';
import type { Clock } from '../clock.js';
import type { CloudConfig } from '../config.js';
import type { Db } from '../db/open.js';
import type { Log } from '../lib/log.js';
import { backoffDelay, DEFAULT_BACKOFF, type BackoffOptions } from './backoff.js';
import { createCatalogPuller, type CatalogPuller } from './catalog.js';
import { CloudUnavailableError, type CloudClient, type CloudDateListener } from './cloud-client.js';
import { createOrderPuller, DEFAULT_PULL, type OrderPuller, type PullTuning } from './pull.js';
import { createPusher, DEFAULT_PUSH, type PushOutcome, type Pusher, type PushTuning, type SiteHolds } from './push.js';
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
  /** Events held for another box's movement of the same ticket, and when the holds end (docs/site.md, "The cloud"). */
  holds?(): SiteHolds;
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
  holds(): SiteHolds;
}

export interface SyncWorkerDeps {
  db: Db;
  clock: Clock;
  log: Log;
  config: SyncConfig;
  client: CloudClient;
  /** The tenant GATE_TENANT names, resolved once by the box (boxTenant, src/tenants/box-tenant.ts). */
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

/** A running worker's parts and the state its loops share. */
interface Worker extends SyncWorkerDeps {
  state: SyncState;
  backoff: BackoffOptions;
  orders: OrderPuller;
  catalog: CatalogPuller;
  pusher: Pusher;
  abort: AbortController;
  running: boolean;
  /** Counts starts, so that a loop of an earlier start never reschedules itself. */
  started: number;
  /** A marked page may have been lost: the next pull refreshes the use dates that matter first. */
  needsRefresh: boolean;
  pulls: ReturnType<typeof strand>;
  pushes: ReturnType<typeof strand>;
  timers: Set<NodeJS.Timeout>;
  tasks: ScheduledTask[];
}

function workerOf(deps: SyncWorkerDeps): Worker {
  const { db, clock, log, config, client, tenantId } = deps;
  const state = createSyncState(db, tenantId, clock);
  const backoff = config.tuning?.backoff ?? DEFAULT_BACKOFF;
  const step = { db, clock, log, client, tenantId, state };
  return {
    ...deps,
    state,
    backoff,
    orders: createOrderPuller({ ...step, tuning: { ...DEFAULT_PULL, ...config.tuning?.pull } }),
    catalog: createCatalogPuller({ ...step, tuning: { ...DEFAULT_PULL, ...config.tuning?.pull } }),
    pusher: createPusher({ ...step, tuning: { ...DEFAULT_PUSH, backoff, ...config.tuning?.push } }),
    abort: new AbortController(),
    running: false,
    started: 0,
    // Start as if a marked page had been lost.
    needsRefresh: true,
    pulls: strand(),
    pushes: strand(),
    timers: new Set(),
    tasks: [],
  };
}

/** Runs a job; a failure is recorded (offline) and rethrown to the caller. */
async function guarded<T>(w: Worker, what: string, job: () => Promise<T>): Promise<T> {
  try {
    return await job();
  } catch (error) {
    w.state.failed(error);
    if (!(error instanceof CloudUnavailableError && error.kind === 'aborted'))
      w.log.warn({ err: error instanceof Error ? error.message : String(error) }, `sync: ${what} falhou`);
    throw error;
  }
}

async function refreshOrders(w: Worker) {
  await w.orders.refresh(w.orders.window(w.config.daysAhead), w.abort.signal);
  w.needsRefresh = false;
}

const pullNow = (w: Worker) =>
  w.pulls(() =>
    guarded(w, 'pull', async () => {
      if (w.needsRefresh) await refreshOrders(w);
      try {
        await w.orders.incremental(w.abort.signal);
      } catch (error) {
        // The failed call may have been answered and marked by the cloud: refresh before trusting the next page.
        w.needsRefresh = true;
        throw error;
      }
      // Clients do not gate anyone: one lost marked page waits for the night refresh.
      await w.catalog.clients(true, w.abort.signal);
    }),
  );

const refreshNow = (w: Worker) =>
  w.pulls(() =>
    guarded(w, 'atualização', async () => {
      await refreshOrders(w);
      await w.catalog.combos(w.config.daysAhead, w.abort.signal);
    }),
  );

const fullRefreshNow = (w: Worker) =>
  w.pulls(() =>
    guarded(w, 'atualização completa', async () => {
      await w.orders.refresh(null, w.abort.signal);
      await w.catalog.clients(false, w.abort.signal);
    }),
  );

const pushNow = (w: Worker) => w.pushes(() => guarded(w, 'envio', () => w.pusher.pushOnce(w.abort.signal)));

/** A loop on timers (sub-minute): the next run waits `every`, or a jittered backoff after failures. */
function loop(w: Worker, every: number, job: () => Promise<number | void>) {
  let failures = 0;
  const generation = w.started;
  const tick = async () => {
    let delay = every;
    try {
      const wantMs = await job();
      failures = 0;
      if (typeof wantMs === 'number') delay = Math.min(delay, Math.max(0, wantMs));
    } catch {
      failures++;
      delay = Math.max(every, backoffDelay(failures, w.backoff));
    }
    if (!w.running || generation !== w.started) return;
    const t = setTimeout(() => {
      w.timers.delete(t);
      void tick();
    }, delay);
    t.unref();
    w.timers.add(t);
  };
  void tick();
}

/** Pushes, then says when the earliest backed-off event is due (sooner than the loop's period, if so). */
async function pushDelay(w: Worker) {
  const out = await pushNow(w);
  if (out.pending === 0 || out.nextAttemptAt === null) return undefined;
  return Date.parse(out.nextAttemptAt) - w.clock.now().getTime();
}

function start(w: Worker) {
  if (w.running) return;
  const { config, clock } = w;
  w.running = true;
  w.started++;
  w.abort = new AbortController();
  w.needsRefresh = true;
  // Queued first on the pull strand, so the first incremental pull finds the refresh done.
  void refreshNow(w).catch(() => undefined);
  loop(w, config.pullSeconds * 1000, () => pullNow(w));
  loop(w, config.pushSeconds * 1000, () => pushDelay(w));
  const options = { timezone: clock.timeZone, noOverlap: true };
  w.tasks.push(
    cron.createTask(config.refreshCron, () => refreshNow(w).catch(() => undefined), {
      ...options,
      name: 'gate-sync-refresh',
    }),
  );
  w.tasks.push(
    cron.createTask(config.fullRefreshCron, () => fullRefreshNow(w).catch(() => undefined), {
      ...options,
      name: 'gate-sync-full',
    }),
  );
  for (const t of w.tasks) void t.start();
  w.log.info({ tenant: config.tenant }, 'sync: sincronizador iniciado');
}

async function stop(w: Worker) {
  w.running = false;
  for (const t of w.timers) clearTimeout(t);
  w.timers.clear();
  await Promise.all(w.tasks.splice(0).map((t) => t.destroy()));
  w.abort.abort();
  // Let the jobs in flight see the abort and write down where they stopped.
  await Promise.all([w.pulls(async () => undefined), w.pushes(async () => undefined)]);
}

/** The only code that talks to the cloud. It runs beside the check-in service and never blocks it. */
export function createSyncWorker(deps: SyncWorkerDeps): SyncWorker {
  const w = workerOf(deps);
  return {
    tenantId: w.tenantId,
    state: w.state,
    onCloudDate: (listener) => w.client.onDate?.(listener),
    start: () => start(w),
    stop: () => stop(w),
    pullNow: () => pullNow(w),
    refreshNow: () => refreshNow(w),
    fullRefreshNow: () => fullRefreshNow(w),
    pushNow: () => pushNow(w),
    holds: () => w.pusher.holds(),
  };
}
