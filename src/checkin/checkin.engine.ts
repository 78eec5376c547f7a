import { storageFailure } from '../db/storage.js';
import type { WriteOptions } from '../db/write-queue.js';
import type { CheckinRepo } from './checkin.repo.js';
import type {
  CheckinCaller,
  CheckinDeps,
  CheckinInput,
  CheckinOptions,
  Reply,
  ScanNotice,
  SiteDecisions,
} from './checkin.types.js';
import type { Flow } from './flow.js';
import { StorageUnavailableError, type CheckinResult, type ReversalResult } from './result.js';
import { PARK_AREA, requestTarget } from './rules/index.js';

// How the check-in service runs a request: each code's flow inside the write queue's transaction,
// a batch in slices of savepoints, the result told to the listeners once committed.

/**
 * Codes of a batch committed together at most: about 1–2 ms of work with the order payloads on an idle
 * box, so other check-ins get their turn between slices (and a batch is never one transaction, as before).
 */
const BATCH_SLICE = 10;
/**
 * A slice also ends once its codes have taken this long (at least one code each): orders not read for a while
 * (cold pages, their payload not cached) or a busy CPU made a slice of 10 hold the loop 50–95 ms in
 * `npm run bench:heavy` (issue 25), every scan waiting behind it.
 */
export const BATCH_PIECE_MS = 2;

export interface Engine extends CheckinDeps {
  repo: CheckinRepo;
  /** The write queue; a database that cannot be written throws StorageUnavailableError, not a 500. */
  write<T>(work: () => T, opts?: WriteOptions): Promise<T>;
  inSavepoint<T>(work: () => T): T;
  /** The site link, while one is attached (checkin.attachSite). */
  site: { current: SiteDecisions | undefined };
}

/** One decision: through the site when the box is part of one, else straight to the write queue. */
export const decide = <T>(e: Engine, work: () => T, trial?: () => unknown): Promise<T> =>
  e.site.current ? e.site.current.decide(work, (w) => e.write(w), trial) : e.write(work);

export function createEngine(deps: CheckinDeps, repo: CheckinRepo): Engine {
  const { db, storage } = deps;
  const write = <T>(work: () => T, opts?: WriteOptions): Promise<T> =>
    db.writes.run(work, opts).then(
      (value) => {
        storage?.recovered();
        return value;
      },
      (err: unknown) => {
        const code = storageFailure(err);
        if (!code) throw err;
        storage?.record(err);
        throw new StorageUnavailableError(code);
      },
    );
  const inSavepoint = db.sqlite.transaction((work: () => unknown) => work()) as <T>(work: () => T) => T;
  return { ...deps, repo, write, inSavepoint, site: { current: undefined } };
}

/**
 * `now`: the decision's instant, taken once by the caller when a site may run the flow twice (a rehearsal to learn
 * what to claim, then the commit): the claim, the event and the answer then carry the same time, so a box refused
 * by the claim answers exactly the winner's `checkin_em`.
 */
export function flowFor(
  e: Engine,
  input: CheckinInput,
  caller: CheckinCaller,
  area = PARK_AREA,
  now: Date = e.clock.now(),
): Flow {
  return {
    db: e.db,
    repo: e.repo,
    now: now.toISOString(),
    cal: { today: e.clock.localDate(now), dayOf: e.clock.localDate },
    relogio: e.clockCheck?.eventMark(now) ?? null,
    area,
    actor: Object.assign({}, caller, {
      terminal: input.terminal?.trim() || null,
      operador: input.operator?.trim() || null,
      motivo: input.reason?.trim() || null,
    }),
  };
}

export function notify(
  e: Engine,
  action: ScanNotice['action'],
  input: CheckinInput,
  caller: CheckinCaller,
  results: (CheckinResult | ReversalResult)[],
  started: number,
): void {
  if (!e.onResult) return;
  const terminal = input.terminal?.trim() || null;
  const operador = input.operator?.trim() || null;
  const ms = Math.round((performance.now() - started) * 10) / 10;
  for (const result of results) {
    try {
      e.onResult({ action, tenantId: caller.tenantId, source: caller.source, terminal, operador, result, ms });
    } catch (err) {
      e.log?.error({ err }, 'scan listener failed');
    }
  }
}

type Flows<R> = { code: (f: Flow, code: string) => R; order: (f: Flow, numero: string) => R };

export async function execute<R extends CheckinResult | ReversalResult, V>(
  e: Engine,
  action: 'checkin' | 'estorno',
  input: CheckinInput,
  caller: CheckinCaller,
  flows: Flows<R>,
  options: CheckinOptions<R, V>,
): Promise<Reply<R, V>> {
  const started = performance.now();
  const target = requestTarget(input, options.batch ?? true);
  const viewOf = (result: R) =>
    result.ok && options.view ? options.view(result as Extract<R, { ok: true }>) : undefined;
  if (target.kind === 'order' || target.codes.length === 1) {
    const at = e.clock.now();
    const decided = () => {
      const f = flowFor(e, input, caller, PARK_AREA, at);
      return target.kind === 'order' ? flows.order(f, target.numero) : flows.code(f, target.codes[0]!);
    };
    const reply = await decide(
      e,
      (): Reply<R, V> => {
        const result = decided();
        return { batch: false, result, view: viewOf(result) };
      },
      decided,
    );
    if (!reply.batch) notify(e, action, input, caller, [reply.result], started);
    return reply;
  }
  const items = await runBatch(e, input, caller, target.codes, flows.code, viewOf);
  // A bulk batch (an ERP, a back office) is not streamed code by code: wording each result for the
  // consoles would hold the event loop as long as the batch itself.
  if (items.length <= BATCH_SLICE)
    notify(
      e,
      action,
      input,
      caller,
      items.map((i) => i.result),
      started,
    );
  return { batch: true, items };
}

type Item<R, V> = { code: string; result: R; view: V | undefined };

/**
 * Batch: sequential, each code in its own savepoint, so one failure does not undo the others;
 * a slice of codes per commit, so a scan at a turnstile never waits behind a whole batch.
 */
async function runBatch<R extends CheckinResult | ReversalResult, V>(
  e: Engine,
  input: CheckinInput,
  caller: CheckinCaller,
  codes: string[],
  flow: Flows<R>['code'],
  viewOf: (result: R) => V | undefined,
): Promise<Item<R, V>[]> {
  const items: Item<R, V>[] = [];
  // On a site each code is its own claim: the other boxes see it before the batch goes on.
  const slice = e.site.current ? 1 : BATCH_SLICE;
  const pieceMs = e.batchPieceMs ?? BATCH_PIECE_MS;
  // A batch of more than one slice is bulk work (an ERP, a back office): single scans go first.
  const run = e.site.current
    ? (w: () => Item<R, V>[]) => decide(e, w)
    : (w: () => Item<R, V>[]) => e.write(w, { background: codes.length > BATCH_SLICE });
  const one = (f: Flow, code: string): Item<R, V> => {
    try {
      return e.inSavepoint(() => {
        const result = flow(f, code);
        return { code, result, view: viewOf(result) };
      });
    } catch (err) {
      // Nothing more can be written: the whole request fails with it (StorageUnavailableError).
      if (storageFailure(err)) throw err;
      e.log?.error({ err }, 'batch item failed');
      return { code, result: { ok: false, code: 'INTERNAL_ERROR' } as R, view: undefined };
    }
  };
  while (items.length < codes.length) {
    const some = codes.slice(items.length, items.length + slice);
    const at = e.clock.now();
    const done = await run(() => {
      const started = performance.now();
      const f = flowFor(e, input, caller, PARK_AREA, at);
      const out: Item<R, V>[] = [];
      for (const code of some) {
        if (out.length > 0 && performance.now() - started >= pieceMs) break;
        out.push(one(f, code));
      }
      return out;
    });
    items.push(...done);
  }
  return items;
}
