import { backoffDelay, type BackoffOptions } from './backoff.js';
import { CloudUnavailableError } from './cloud-client.js';
import { createOutboxRepo, type OutboxRepo, type PendingRow } from './outbox.repo.js';
import { classify, REVERSAL_NOT_SENT } from './push.classify.js';
import type { SyncStepDeps } from './pull.js';

export interface PushTuning {
  /** Codes per POST/PATCH. */
  batchSize: number;
  /** Pending rows looked at per round. */
  window: number;
  /** Batches in flight at once (they never share a person, so order per person holds). */
  concurrency: number;
  /**
   * An event that failed this many calls goes alone, so that one event the cloud chokes on cannot hold back a whole
   * batch.
   */
  isolateAfter: number;
  backoff: BackoffOptions;
}

export const DEFAULT_PUSH: PushTuning = {
  batchSize: 100,
  window: 2_000,
  concurrency: 2,
  isolateAfter: 3,
  backoff: { baseMs: 1_000, maxMs: 60_000 },
};

/** Events copied into the outbox per commit of the write queue: scans get their turn between two. */
const ENQUEUE_SLICE = 500;

export type PushDeps = SyncStepDeps & { tuning: PushTuning };

/**
 * Heads of line held for the cloud because an earlier movement of their ticket, made at another box of the site, is
 * not settled there (docs/site.md, "The cloud"), as the last round of a push saw them among the rows it looked at.
 */
export interface SiteHolds {
  count: number;
  /** When the first of these holds ends at the latest. */
  next: string | null;
  /** When the last of them ends at the latest. */
  last: string | null;
}

export const NO_HOLDS: SiteHolds = { count: 0, next: null, last: null };

export interface PushOutcome {
  settled: number;
  pending: number;
  /** The earliest time a backed-off event may be sent again. */
  nextAttemptAt: string | null;
  held: SiteHolds;
}

interface Batch {
  action: 'checkin' | 'estorno';
  terminal: string | null;
  operador: string | null;
  rows: PendingRow[];
}

/** What each step of a push round works with: the outbox, the cloud and the write queue's background lane. */
interface PushCtx {
  repo: OutboxRepo;
  clock: PushDeps['clock'];
  client: PushDeps['client'];
  state: PushDeps['state'];
  tuning: PushTuning;
  tx: <T>(work: () => T) => Promise<T>;
}

/** Heads of line that are due: a QR whose oldest pending event waits for a retry blocks its later events. */
export function dueHeads(rows: PendingRow[], nowIso: string): PendingRow[] {
  const seen = new Set<string>();
  const due: PendingRow[] = [];
  for (const r of rows) {
    if (seen.has(r.chave)) continue;
    seen.add(r.chave);
    if (r.next_attempt_at === null || r.next_attempt_at <= nowIso) due.push(r);
  }
  return due;
}

/** Reversals whose check-in the cloud refused are settled here, unsent; the rest go out. */
async function holdBackReversals({ repo, clock, tx }: PushCtx, due: PendingRow[]): Promise<PendingRow[]> {
  const now = clock.nowIso();
  const toSend: PendingRow[] = [];
  await tx(() => {
    for (const r of due) {
      const previous = r.action === 'estorno' ? repo.previousCheckin(r.chave, r.event_id) : undefined;
      if (previous?.resultado && previous.resultado !== 'aceito') {
        repo.settle(
          r.event_id,
          {
            resultado: 'outro',
            code: REVERSAL_NOT_SENT.code,
            message: REVERSAL_NOT_SENT.message(previous.resultado),
            at: null,
          },
          now,
        );
      } else toSend.push(r);
    }
  });
  return toSend;
}

/** Batches per action, terminal and operador, at most `batchSize` each; an event that failed often goes alone. */
export function batches(rows: PendingRow[], tuning: Pick<PushTuning, 'batchSize' | 'isolateAfter'>): Batch[] {
  const groups = new Map<string, Batch[]>();
  const out: Batch[] = [];
  for (const r of rows) {
    if (r.attempts >= tuning.isolateAfter) {
      out.push({ action: r.action, terminal: r.terminal, operador: r.operador, rows: [r] });
      continue;
    }
    const key = JSON.stringify([r.action, r.terminal, r.operador]);
    let list = groups.get(key);
    if (!list) groups.set(key, (list = []));
    let current = list[list.length - 1];
    if (!current || current.rows.length >= tuning.batchSize) {
      list.push((current = { action: r.action, terminal: r.terminal, operador: r.operador, rows: [] }));
      out.push(current);
    }
    current.rows.push(r);
  }
  return out;
}

async function send(ctx: PushCtx, b: Batch, signal: AbortSignal): Promise<number> {
  const { repo, clock, client, state, tuning, tx } = ctx;
  const eventIds = b.rows.map((r) => r.event_id);
  const sentAt = clock.nowIso();
  await tx(() => repo.markSending(eventIds, sentAt));
  let results;
  try {
    results = await client.send(
      b.action,
      b.rows.map((r) => r.chave),
      { terminal: b.terminal, operador: b.operador },
      signal,
    );
  } catch (error) {
    if (!(error instanceof CloudUnavailableError)) throw error;
    const attempts = Math.max(...b.rows.map((r) => r.attempts + 1));
    // A stop is not a failure of the link: the events are due again as soon as the worker restarts.
    const next =
      error.kind === 'aborted'
        ? null
        : new Date(clock.now().getTime() + backoffDelay(attempts, tuning.backoff)).toISOString();
    await tx(() => {
      // Not a possible delivery: only an attempt that may have reached the cloud can explain its later "already used".
      if (error.neverSent) repo.neverSent(b.rows.filter((r) => r.first_sent_at === null).map((r) => r.event_id));
      repo.retryLater(eventIds, next, error.message);
      state.failed(error);
    });
    throw error;
  }
  const now = clock.nowIso();
  await tx(() => {
    b.rows.forEach((r, i) => {
      const c = classify({ action: r.action, priorAttempts: r.attempts, firstSentAt: r.first_sent_at }, results[i]!);
      repo.settle(r.event_id, c, now);
    });
    state.succeeded('push');
  });
  return b.rows.length;
}

/**
 * Sends batches with bounded concurrency; the first failure stops new sends and is rethrown once the others finished.
 */
async function sendAll(ctx: PushCtx, list: Batch[], signal: AbortSignal): Promise<number> {
  let next = 0;
  let settled = 0;
  let failure: unknown;
  const sender = async () => {
    while (failure === undefined && next < list.length && !signal.aborted) {
      const b = list[next++]!;
      try {
        const n = await send(ctx, b, signal);
        settled += n;
      } catch (error) {
        failure ??= error;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(ctx.tuning.concurrency, list.length) }, sender));
  if (failure !== undefined) throw failure;
  return settled;
}

/**
 * The outbox: every check-in and reversal the gate made reaches the cloud, in order per person (one
 * event per QR in flight: the head of its line), batched per action, terminal and operador. Whatever
 * happens between "sent" and "answer stored" is resolved by classify() on the retry.
 */
export function createPusher({ db, clock, log, client, tenantId, state, tuning }: PushDeps) {
  const repo = createOutboxRepo(db, tenantId);
  // Bulk work: the write queue's background priority, after the scans and with the fsync off the
  // event loop (a commit of its own with synchronous=FULL fsyncs on the loop, 100 times a second while draining).
  const tx = <T>(work: () => T): Promise<T> => db.writes.run(work, { background: true });
  const ctx: PushCtx = { repo, clock, client, state, tuning, tx };
  let held = NO_HOLDS;

  /** The due heads not held for another box's movement; the held ones are counted, with when each hold ends. */
  function notHeld(rows: PendingRow[], now: string): PendingRow[] {
    const due: PendingRow[] = [];
    const ends: string[] = [];
    for (const r of rows) {
      const until = repo.heldForSite(r.chave, r.event_id, now);
      if (until === null) due.push(r);
      else ends.push(until);
    }
    ends.sort();
    held = { count: ends.length, next: ends[0] ?? null, last: ends.at(-1) ?? null };
    return due;
  }

  return {
    /** What the last round held back for other boxes' movements. */
    holds: (): SiteHolds => held,
    /**
     * Sends rounds until nothing more is due, each round first queuing the events made since the last. Throws
     * CloudUnavailableError when the link fails.
     */
    async pushOnce(signal: AbortSignal): Promise<PushOutcome> {
      let settled = 0;
      for (;;) {
        // Every round, not once per push: a round takes seconds after an outage, and an event made meanwhile and
        // left out of the outbox would be neither sent nor counted as pending when this push ends.
        while ((await tx(() => repo.enqueue(ENQUEUE_SLICE))) === ENQUEUE_SLICE);
        const now = clock.nowIso();
        // On a site, a ticket's movement waits while an earlier one from another box is not settled with the cloud.
        const due = notHeld(dueHeads(repo.pending(tuning.window), now), now);
        if (due.length === 0 || signal.aborted) break;
        const heads = due.length;
        const toSend = await holdBackReversals(ctx, due);
        settled += heads - toSend.length;
        const sent = await sendAll(ctx, batches(toSend, tuning), signal);
        settled += sent;
      }
      if (settled > 0) log.debug?.({ settled }, 'sync: eventos enviados à nuvem');
      const c = repo.counts();
      return { settled, pending: c.pending, nextAttemptAt: c.nextAttemptAt, held };
    },
  };
}

export type Pusher = ReturnType<typeof createPusher>;
