import { RESUMABLE_PIECE } from '../db/write-queue.js';
import { checkInCode, checkInOrder } from './checkin.flows.js';
import { createCheckinRepo } from './checkin.repo.js';
import { createEngine, decide, execute, flowFor, notify } from './checkin.engine.js';
import type {
  CheckinCaller,
  CheckinDeps,
  CheckinInput,
  CheckinOptions,
  Reply,
  SiteDecisions,
} from './checkin.types.js';
import { appendEvent, type Actor, type EventInput } from './event-log.js';
import {
  applyDoorCheckin,
  applyFact,
  type DoorCheckin,
  type DoorCheckinFact,
  type FactOutcome,
  type MovementFact,
} from './fact.flows.js';
import { moveCode } from './movement.flows.js';
import type { CheckinResult, ReversalResult } from './result.js';
import { reverseCode, reverseOrder } from './reversal.flows.js';
import { requestTarget, type MovePolicy } from './rules/index.js';

export type {
  CheckinCaller,
  CheckinDeps,
  CheckinInput,
  CheckinOptions,
  Reply,
  ScanNotice,
  SiteDecisions,
} from './checkin.types.js';
export type { DoorCheckin, DoorCheckinFact, FactOutcome, MovementFact } from './fact.flows.js';

export interface CheckinService {
  /**
   * Check-in (4.1): a typed result per code; refusals are results. A request the rules cannot act on
   * throws CheckinInputError, a database that cannot record throws StorageUnavailableError.
   */
  checkIn<V = undefined>(
    input: CheckinInput,
    caller: CheckinCaller,
    options?: CheckinOptions<CheckinResult, V>,
  ): Promise<Reply<CheckinResult, V>>;
  /** Reversal (4.2), same contract. */
  reverse<V = undefined>(
    input: CheckinInput,
    caller: CheckinCaller,
    options?: CheckinOptions<ReversalResult, V>,
  ): Promise<Reply<ReversalResult, V>>;
  /** An entry or exit scan at one of the box's own doors (movement.flows.ts): one code, never a batch. */
  move(input: CheckinInput, caller: CheckinCaller, policy: MovePolicy): Promise<CheckinResult>;
  /** People inside each area now (today, tenant-local); areas nobody is in are absent. */
  occupancy(tenantId: number): { area: string; inside: number }[];
  /** Every decision goes through the site from now on (src/site/); the function returned detaches it. */
  attachSite(site: SiteDecisions): () => void;
  /**
   * Records movements decided elsewhere (fact.flows.ts) in one background write: `run` calls `apply` per fact and
   * writes its own bookkeeping in the same transaction. In the background it is a RESUMABLE_PIECE, so that bookkeeping
   * must say how far it got (the stream's position, the parked rows it settles); `background` false: a scan waits.
   */
  applyFacts<T>(
    tenantId: number,
    run: (apply: (fact: MovementFact, changeState: boolean) => FactOutcome) => T,
    background?: boolean,
  ): Promise<T>;
  /**
   * Records movements a door decided on its own earlier (a handheld offline, src/handheld/) as this box's: pushed to
   * the cloud like any door's and, on a site, published as decided without the site. One background write; `run`
   * gets the tools to record each movement in its own savepoint.
   */
  recordDoorFacts<T>(tenantId: number, source: string, run: (tools: DoorFactTools) => T): Promise<T>;
}

export interface DoorFactTools {
  /** Records a check-in the door decided (fact.flows.ts applyDoorCheckin): who it let in, as facts. */
  checkin(fact: DoorCheckinFact): DoorCheckin;
  /** Appends an event that changes no state (a refusal made on the device, a code this box does not know). */
  event(actor: Omit<Actor, 'tenantId' | 'apiKeyId' | 'keyName' | 'source'>, at: string, e: EventInput): number;
  /** Runs one movement's writes in a savepoint: a failure undoes that movement alone. */
  item<U>(work: () => U): U;
}

const FACTS: CheckinCaller['source'] = 'site';

/** The one rule set for every door: HTTP routes, serial lanes and the console all call this. */
export function createCheckinService(deps: CheckinDeps): CheckinService {
  const engine = createEngine(deps, createCheckinRepo(deps.db));
  return {
    checkIn: (input, caller, options = {}) =>
      execute(engine, 'checkin', input, caller, { code: checkInCode, order: checkInOrder }, options),
    reverse: (input, caller, options = {}) =>
      execute(engine, 'estorno', input, caller, { code: reverseCode, order: reverseOrder }, options),
    async move(input, caller, policy) {
      const started = performance.now();
      const target = requestTarget(input, false);
      const code = target.kind === 'order' ? target.numero : target.codes[0]!;
      const at = deps.clock.now();
      const result = await decide(engine, () =>
        moveCode(flowFor(engine, input, caller, policy.area, at), code, policy),
      );
      notify(engine, 'movimento', input, caller, [result], started);
      return result;
    },
    occupancy: (tenantId) => engine.repo.occupancy(tenantId, deps.clock.today()),
    attachSite(site) {
      engine.site.current = site;
      return () => {
        if (engine.site.current === site) engine.site.current = undefined;
      };
    },
    applyFacts(tenantId, run, background = true) {
      const caller = { tenantId, apiKeyId: null, keyName: null, source: FACTS };
      return engine.write(
        () => {
          const f = flowFor(engine, {}, caller);
          return run((fact, changeState) => engine.inSavepoint(() => applyFact(f, fact, changeState)));
        },
        // The hub still has what a power cut loses; a scan decided on these facts commits after them, and its fsync
        // makes both durable. So a catch-up's next piece waits for no fsync of the one before (it waited 670 times).
        background ? RESUMABLE_PIECE : undefined,
      );
    },
    recordDoorFacts(tenantId, source, run) {
      const caller = { tenantId, apiKeyId: null, keyName: null, source };
      const work = () => {
        const f = flowFor(engine, {}, caller);
        return run({
          checkin: (fact) => applyDoorCheckin(f, fact),
          event: (who, at, e) => appendEvent(deps.db, { ...caller, ...who }, at, e),
          item: engine.inSavepoint,
        });
      };
      const write = <U>(w: () => U) => engine.write(w, { background: true });
      // No trial: nothing is claimed, the site's link marks these movements as decided without it.
      return engine.site.current ? engine.site.current.decide(work, write, () => undefined) : write(work);
    },
  };
}
