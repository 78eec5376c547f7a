import type { CheckinService, FactOutcome, MovementFact } from '../checkin/checkin.service.js';
import type { Clock } from '../clock.js';
import type { Db } from '../db/open.js';
import type { Log } from '../lib/log.js';
import type { SiteRejectReason } from './site.answers.js';
import { decodeMessage, factOf, fingerprint, subjectOf, type Origin, type SiteMessage } from './site-messages.js';
import {
  advanceSubject,
  ownBySiteId,
  park,
  parked,
  recordSettled,
  reject,
  setApplied,
  setPublished,
  subjectSeq,
  unpark,
} from './site-store.js';
import { judgeDoubles } from './site-doubles.js';

// Applying the hub's messages (docs/site.md, "Applying the others' movements"): each batch in one background
// write, with the stream sequence it reached, so a restart resumes exactly there. Other boxes' movements go
// through the check-in core as facts (idempotent by site id); a ticket's state follows only its newest message
// (an older one is recorded as history); a code not known here is parked, never dropped; anything that is not a
// movement of this site is skipped, counted by reason, and changes nothing.

export interface RawMessage {
  seq: number;
  subject: string;
  data: Uint8Array;
  /** Its Nats-Msg-Id: the site id its box published it under. */
  msgId?: string | undefined;
}

type Apply = (fact: MovementFact, changeState: boolean) => FactOutcome;
type From = 'stream' | 'ticket';

const LOG_EVERY_MS = 60_000;
/** How long one write of applied messages may hold the event loop. */
const SLICE_MS = 2;

interface ApplierDeps {
  checkin: CheckinService;
  db: Db;
  tenantId: number;
  origin: Origin;
  clock: Clock;
  log: Log;
  undo: {
    /** A claim of an earlier run of this box with nothing recorded here: a crash between claim and commit. */
    orphan: (orphan: SiteMessage) => void;
    /** Its compensation is not on the hub yet. */
    holds: (claimId: string) => boolean;
    finished: (claimId: string) => boolean;
  };
  /** This run's claims sent and not yet committed or undone (site-claims.ts). */
  inFlight: ReadonlySet<string>;
}

/**
 * The stream's reading stops before a claim of this box sent and not yet committed or undone, or whose compensation
 * is not on the hub yet: the position it stores never passes a claim a crash could leave with nobody let in and
 * nothing to undo it.
 */
export function createApplier({ checkin, db, tenantId, origin, clock, log, undo, inFlight }: ApplierDeps) {
  const held = (msgId: string) => inFlight.has(msgId) || undo.holds(msgId);
  const logRejected = rejectLog(log);
  /** The newest sequence applied or skipped as this box's own, stored or not yet. */
  let reached = 0;
  const known = (raw: RawMessage) => isKnownOwn(db, tenantId, origin, raw);

  /** A ticket let in at two boxes is a double entry on every box, whatever order the entries arrive in. */
  const judge = (outcome: FactOutcome, m: SiteMessage) => {
    if (m.kind === 'person' && (m.action === 'checkin' || m.action === 'estorno') && 'eventId' in outcome)
      judgeDoubles(db, tenantId, outcome.eventId, clock.nowIso());
  };

  const rejected = (seq: number, reason: SiteRejectReason, detail: string | null) => {
    reject(db, tenantId, seq, reason, detail, clock.nowIso());
    logRejected(reason, seq);
  };

  /** 'wait': an orphan found on the stream, to compensate before the stored position may pass it. */
  function applyOne(apply: Apply, raw: RawMessage, orphans: SiteMessage[], from: From): 'wait' | void {
    const decoded = decodeMessage(origin, raw.subject, raw.data);
    if (!decoded.ok) {
      // Skipped, but it is the subject's newest message now: the next claim there expects it.
      advanceSubject(db, tenantId, raw.subject, raw.seq);
      return rejected(raw.seq, decoded.reason, decoded.detail);
    }
    if (decoded.kind === 'settled') {
      if (!decoded.mine) recordSettled(db, decoded.settled, clock.nowIso());
      return;
    }
    const m = decoded.message;
    // This box's own: published (it is in site_moves), or a claim still being committed (this run), or an orphan
    // of a crash (an earlier run on this database). A run this database never had is an earlier life of the box
    // (a reinstall): its movements are applied like any other box's.
    if (decoded.mine && (m.run === origin.run || origin.earlierRuns.has(m.run) || ownBySiteId(db, m.id))) {
      const own = ownBySiteId(db, m.id);
      if (own && own.seq === null) setPublished(db, m.id, raw.seq);
      else if (!own && m.run !== origin.run && m.undoes === undefined && !undo.finished(m.id)) {
        orphans.push(m);
        if (from === 'stream') return 'wait';
      }
      advanceSubject(db, tenantId, raw.subject, raw.seq);
      return;
    }
    const outcome = apply(factOf(m, raw.seq), raw.seq > subjectSeq(db, tenantId, raw.subject));
    if (outcome.kind === 'unknown') {
      park(db, tenantId, raw.seq, m.qr, new TextDecoder().decode(raw.data), clock.nowIso());
      return;
    }
    judge(outcome, m);
    advanceSubject(db, tenantId, raw.subject, raw.seq);
  }

  return {
    /**
     * Applies messages in order. 'stream': the stream's next ones (the consumer), in the background. 'ticket': a
     * ticket's newest message after a lost claim, for a scan that waits on it (the stream's position stays).
     */
    async apply(all: RawMessage[], from: From): Promise<number> {
      const batch = from === 'stream' ? beforeHeld(all, held) : all;
      if (batch.length === 0) return 0;
      // This box's own movements come back from the hub, already recorded with their sequence: nothing to write
      // (the position is kept in memory and stored with the next write; a restart reads them again, harmlessly).
      if (from === 'stream' && batch.every(known)) {
        reached = Math.max(reached, batch.at(-1)!.seq);
        return batch.length;
      }
      const orphans: SiteMessage[] = [];
      let done = 0;
      const run = (apply: Apply) => {
        // A write holds the event loop: at most SLICE_MS of it, the rest goes in the next one.
        const started = performance.now();
        while (done < batch.length) {
          if (applyOne(apply, batch[done]!, orphans, from) === 'wait') break;
          done++;
          if (performance.now() - started > SLICE_MS) break;
        }
        const last = batch[done - 1];
        if (from === 'stream' && last) {
          setApplied(db, tenantId, last.seq, fingerprint(last.data));
          reached = Math.max(reached, last.seq);
        }
      };
      await checkin.applyFacts(tenantId, run, from === 'stream');
      for (const o of orphans) undo.orphan(o);
      return done;
    },

    /** The newest sequence applied on a ticket's subject here. */
    subjectSeq: (subject: string) => subjectSeq(db, tenantId, subject),

    /** The newest sequence of the stream this box has applied (or found already its own). */
    reached: (stored: number) => Math.max(reached, stored),

    /** Parked movements whose code this box now knows (after a cloud pull) are applied; the others stay. */
    async retryParked(): Promise<number> {
      const rows = parked(db, tenantId, 100);
      if (rows.length === 0) return 0;
      return checkin.applyFacts(tenantId, (apply) => {
        let applied = 0;
        for (const row of rows) {
          // Checked when it was parked.
          const m = JSON.parse(row.body) as SiteMessage;
          const subject = subjectOf(origin.tenant, m.kind, m.qr);
          const outcome = apply(factOf(m, row.seq), row.seq > subjectSeq(db, tenantId, subject));
          if (outcome.kind === 'unknown') continue;
          judge(outcome, m);
          advanceSubject(db, tenantId, subject, row.seq);
          unpark(db, tenantId, row.seq);
          applied++;
        }
        return applied;
      });
    },
  };
}

/** Logs a skipped message at most once a minute per reason. */
function rejectLog(log: Log) {
  const loggedAt = new Map<SiteRejectReason, number>();
  return (reason: SiteRejectReason, seq: number) => {
    const now = Date.now();
    if (now - (loggedAt.get(reason) ?? 0) < LOG_EVERY_MS) return;
    loggedAt.set(reason, now);
    log.warn({ motivo: reason, sequencia: seq }, 'site: mensagem do hub ignorada');
  };
}

/** One of this box's own movements, recorded here with this very sequence. */
const isKnownOwn = (db: Db, tenantId: number, origin: Origin, raw: RawMessage) =>
  raw.msgId !== undefined &&
  raw.msgId.startsWith(`${origin.box}.`) &&
  ownBySiteId(db, raw.msgId)?.seq === raw.seq &&
  raw.seq <= subjectSeq(db, tenantId, raw.subject);

/** The messages before the first claim the reading must wait at. */
function beforeHeld(all: RawMessage[], held: (msgId: string) => boolean): RawMessage[] {
  const waiting = all.findIndex((r) => r.msgId !== undefined && held(r.msgId));
  return waiting < 0 ? all : all.slice(0, waiting);
}
