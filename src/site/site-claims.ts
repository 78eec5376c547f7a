import type { SiteDecisions } from '../checkin/checkin.service.js';
import type { Db } from '../db/open.js';
import { encodeMessage, newSiteId, subjectOf, type Origin } from './site-messages.js';
import {
  advanceSubject,
  markMovement,
  movementsAfter,
  newestEventId,
  staleRefusals,
  subjectSeq,
  type OwnMovement,
} from './site-store.js';
import { messageOf } from './site-backlog.js';

// Claims (docs/site.md, "One winner"): a decision of the check-in core is first tried in a transaction that is
// rolled back, to learn which tickets it moves; each of those is claimed on the hub by one publish on the
// ticket's subject that expects the last sequence this box applied there. All won: the decision is made again and
// committed, each movement marked with its claim. One lost: the winner's message is applied here and the rules run
// again (the ticket is then refused with the winner's time). No answer within the claim timeout: the box decides
// alone, marks it, and publishes it later as a fact. A refusal made while this box is behind the stream first reads the
// refused tickets' newest messages on the hub ("Catching up"): a stale copy never turns a visitor away.

export type ClaimAnswer = { kind: 'won'; seq: number } | { kind: 'lost' } | { kind: 'unreachable' };

export interface HubClaims {
  /** Whether claims are tried at all (the breaker: false in local mode). */
  online(): boolean;
  claim(subject: string, id: string, body: Uint8Array, expected: number): Promise<ClaimAnswer>;
  /** After a lost claim: brings this box up to the subject's newest message on the hub. */
  catchUp(subject: string): Promise<void>;
  /** Connected and behind the stream: this box's copy of a ticket may be older than the hub's. */
  behind(): boolean;
  /**
   * Reads these tickets' newest messages on the hub (within the claim timeout) and applies those this box has not;
   * whether any was.
   */
  refresh(subjects: string[]): Promise<boolean>;
  /** Publishes a reversal of a claim this box won but could not keep. */
  compensate(claim: { subject: string; id: string; movement: OwnMovement }): void;
  /** Movements were committed for later publication (local decisions, exits). */
  backlogGrew(): void;
}

const CLAIMED = new Set<OwnMovement['action']>(['checkin', 'entrada', 'reentrada', 'estorno']);
const ATTEMPTS = 3;

interface Planned {
  movement: OwnMovement;
  subject: string;
  id: string;
}

interface Prediction {
  moves: Planned[];
  /** The subjects of the tickets refused on a state another box may have changed. */
  refused: string[];
}

/**
 * `inFlight`: the ids of claims sent and not yet committed or undone. The stream's reading stops before one of them
 * (site-apply.ts), so the position it stores never passes a claim this box might still die without recording: a
 * crash's orphan is found again at the next start.
 */
export function createSiteDecisions({
  db,
  tenantId,
  origin,
  hub,
  inFlight,
}: {
  db: Db;
  tenantId: number;
  origin: Origin;
  hub: HubClaims;
  inFlight: Set<string>;
}): SiteDecisions {
  const locks = createSubjectLocks();
  const ctx: Ctx = { db, tenantId, origin };

  /**
   * A box behind the stream (back after a stop, catching up) does not refuse on its stale copy: it first reads the
   * refused tickets' newest messages on the hub (docs/site.md, "Catching up"); whether that changed anything here.
   */
  async function refreshed<T>(trial: () => T, known?: Prediction): Promise<boolean> {
    if (!hub.behind()) return false;
    const refused = (known ?? predict(ctx, trial, true))?.refused ?? [];
    return refused.length > 0 && hub.refresh(refused);
  }

  async function commitWith<T>(work: () => T, write: <U>(w: () => U) => Promise<U>, claims: Claim[], alone: boolean) {
    let outcome: { value: T; queued: boolean; unmatched: Claim[] };
    try {
      outcome = await write(() => commit(ctx, work, claims, alone));
    } catch (err) {
      for (const c of claims) if (c.seq !== null) hub.compensate(c);
      throw err;
    }
    for (const c of outcome.unmatched) hub.compensate(c);
    if (outcome.queued) hub.backlogGrew();
    return outcome.value;
  }

  async function decide<T>(work: () => T, write: <U>(w: () => U) => Promise<U>, trial: () => unknown = work) {
    let looked = false;
    for (let attempt = 0; attempt < ATTEMPTS && hub.online(); attempt++) {
      const first = predict(ctx, trial, !looked && hub.behind());
      if (!first) break;
      if (first.moves.length === 0) {
        if (!looked && first.refused.length > 0) {
          looked = true;
          if (await refreshed(trial, first)) continue;
        }
        return commitWith(work, write, [], false);
      }
      const held = await locks.hold(first.moves.map((p) => p.subject));
      const sent: string[] = [];
      try {
        // Another decision on one of these tickets may have been committed while this one waited for its lock.
        const plan = held.waited ? predict(ctx, trial)?.moves : first.moves;
        if (!plan || plan.length === 0) return await commitWith(work, write, [], false);
        if (plan.some((p) => !held.subjects.has(p.subject))) continue;
        sent.push(...plan.map((p) => p.id));
        for (const id of sent) inFlight.add(id);
        const answers = await Promise.all(
          plan.map((p) =>
            hub.claim(
              p.subject,
              p.id,
              encodeMessage(origin, messageOf(p.movement, p.id)),
              subjectSeq(db, tenantId, p.subject),
            ),
          ),
        );
        const claims = plan.map((p, i) => ({
          ...p,
          seq: answers[i]!.kind === 'won' ? (answers[i] as { seq: number }).seq : null,
        }));
        const lost = plan.filter((_, i) => answers[i]!.kind === 'lost');
        if (lost.length === 0) {
          const alone = answers.some((a) => a.kind === 'unreachable');
          return await commitWith(work, write, claims, alone);
        }
        for (const c of claims) if (c.seq !== null) hub.compensate(c);
        await Promise.all(lost.map((p) => hub.catchUp(p.subject)));
      } finally {
        for (const id of sent) inFlight.delete(id);
        held.release();
      }
    }
    // Deciding alone while still reaching the hub (publishing what waited): a refusal still looks there first.
    if (!looked && !hub.online()) await refreshed(trial);
    return commitWith(work, write, [], true);
  }

  return { decide };
}

interface Ctx {
  db: Db;
  tenantId: number;
  origin: Origin;
}

type Claim = Planned & { seq: number | null };

const subjectOfMovement = (origin: Origin, m: OwnMovement) =>
  subjectOf(origin.tenant, m.person_id ? 'person' : 'additional', m.qr_code ?? m.code);

/**
 * The decision, tried and rolled back: the movements it would make and, when asked (a box behind the stream), the
 * tickets it would refuse on a state another box may have changed since (already used, no check-in to reverse).
 */
function predict<T>({ db, tenantId, origin }: Ctx, work: () => T, withRefused = false): Prediction | undefined {
  if (db.sqlite.inTransaction) return undefined;
  const before = newestEventId(db);
  db.sqlite.exec('BEGIN');
  try {
    work();
    const moves = movementsAfter(db, tenantId, before)
      .filter((m) => CLAIMED.has(m.action))
      .map((movement) => ({ movement, subject: subjectOfMovement(origin, movement), id: newSiteId(origin) }));
    const refused = withRefused
      ? staleRefusals(db, tenantId, before).map((t) => subjectOf(origin.tenant, t.kind, t.qr))
      : [];
    return { moves, refused };
  } finally {
    db.sqlite.exec('ROLLBACK');
  }
}

/**
 * Commits the decision, marking each movement with its claim (matched by subject and action, in order) or, when
 * none matches, with a new id to publish later; claims left unmatched are undone on the hub.
 */
function commit<T>({ db, tenantId, origin }: Ctx, work: () => T, claims: Claim[], alone: boolean) {
  const before = newestEventId(db);
  const value = work();
  const left = [...claims];
  let queued = false;
  for (const movement of movementsAfter(db, tenantId, before)) {
    const subject = subjectOfMovement(origin, movement);
    const at = left.findIndex((c) => c.subject === subject && c.movement.action === movement.action);
    const claim = at >= 0 ? left.splice(at, 1)[0]! : undefined;
    const seq = claim?.seq ?? null;
    const withoutSite = alone || (!claim && CLAIMED.has(movement.action));
    markMovement(db, tenantId, movement, { siteId: claim?.id ?? newSiteId(origin), seq, withoutSite });
    if (seq !== null) advanceSubject(db, tenantId, subject, seq);
    else queued = true;
  }
  return { value, queued, unmatched: left.filter((c) => c.seq !== null) };
}

/** One decision at a time per ticket on this box: a second scan of the same QR waits for the first's claim. */
function createSubjectLocks() {
  const held = new Map<string, Promise<void>>();
  return {
    async hold(keys: string[]) {
      const subjects = new Set(keys);
      let waited = false;
      for (;;) {
        const busy = [...subjects].map((k) => held.get(k)).filter((p): p is Promise<void> => p !== undefined);
        if (busy.length === 0) break;
        waited = true;
        await Promise.all(busy);
      }
      let release!: () => void;
      const done = new Promise<void>((resolve) => (release = resolve));
      for (const k of subjects) held.set(k, done);
      return {
        subjects,
        waited,
        release() {
          for (const k of subjects) if (held.get(k) === done) held.delete(k);
          release();
        },
      };
    },
  };
}
