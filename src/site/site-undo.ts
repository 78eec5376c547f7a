import { createHash } from 'node:crypto';
import type { Log } from '../lib/log.js';
import type { messageOf } from './site-backlog.js';
import {
  encodeMessage,
  encodeSettled,
  settledSubject,
  subjectOf,
  type Origin,
  type SiteMessage,
} from './site-messages.js';

// Compensations (docs/site.md, "A crash between claim and commit"): a claim this box won on the hub but has no
// movement for — its commit failed, the decision changed meanwhile, another ticket of the same group lost, or the
// box died before committing — is undone on the hub, so that no ticket stays used on the site with nobody let in.
// A check-in is undone by a reversal naming it (the other boxes reverse only that check-in), an entry by an exit; a
// reversal nobody recorded is told settled, so it holds nothing at the other boxes' cloud pushes.

type Body = ReturnType<typeof messageOf>;
type Publish = (subject: string, id: string, body: Uint8Array) => Promise<number | null>;

/**
 * A compensation's id follows from the claim it undoes: published again after a restart within the hub's duplicate
 * window, it is answered "duplicate" instead of undoing twice.
 */
const compensationId = (box: string, claimId: string) =>
  `${box}.u${createHash('sha256').update(claimId).digest('base64url').slice(0, 30)}`;

export function createCompensations({ origin, publish, log }: { origin: Origin; publish: Publish; log: Log }) {
  const pending: { subject: string; id: string; body: Uint8Array; undoes: string }[] = [];
  /** Claims whose compensation is not on the hub yet: the stream's reading stops before them (site-apply.ts). */
  const waiting = new Set<string>();
  /** Claims of earlier runs settled in this run: compensated on the hub, or needing none. */
  const finished = new Set<string>();
  let publishing: Promise<void> | undefined;

  function undo(claimId: string, claimed: Body) {
    if (waiting.has(claimId) || finished.has(claimId)) return;
    if (claimed.action === 'saida') return void finished.add(claimId);
    const id = compensationId(origin.box, claimId);
    waiting.add(claimId);
    if (claimed.action === 'estorno') {
      // A reversal is not undone, but nobody will push it to the cloud: the other boxes are told it is settled, so
      // that it holds none of that ticket's later movements there (docs/site.md, "The cloud").
      const notice = encodeSettled(origin, id, [[claimId, 'outro']]);
      pending.push({ subject: settledSubject(origin.tenant, origin.box), id, body: notice, undoes: claimId });
    } else {
      const message: Body = {
        ...claimed,
        id,
        action: claimed.action === 'checkin' ? 'estorno' : 'saida',
        undoes: claimId,
        local: false,
      };
      const subject = subjectOf(origin.tenant, message.kind, message.qr);
      pending.push({ subject, id, body: encodeMessage(origin, message), undoes: claimId });
    }
    void publishAll();
  }

  async function drain() {
    while (pending.length > 0) {
      const c = pending[0]!;
      if ((await publish(c.subject, c.id, c.body)) === null) return;
      pending.shift();
      waiting.delete(c.undoes);
      finished.add(c.undoes);
      log.warn({ desfeita: c.undoes }, 'site: reivindicação desfeita no hub');
    }
  }
  const publishAll = () => (publishing ??= drain().finally(() => (publishing = undefined)));

  return {
    /** A claim of this run that was not kept. */
    claim: undo,
    /** A claim of an earlier run of this database, found on the hub with nothing recorded here. */
    orphan: (m: SiteMessage) => {
      const { v: _v, box: _b, run: _r, sig: _s, tenant: _t, ...body } = m;
      undo(m.id, body);
    },
    /** Publishes what is still pending (kept in memory: the stream's reading waits, so a restart finds them again). */
    publish: publishAll,
    /** Whether the stream's reading must stop before this claim: its compensation is not on the hub yet. */
    holds: (claimId: string) => waiting.has(claimId),
    /** Whether this claim of an earlier run was settled in this run (compensated, or needing nothing). */
    finished: (claimId: string) => finished.has(claimId),
  };
}
