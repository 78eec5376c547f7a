import { setTimeout as sleep } from 'node:timers/promises';
import type { SiteConfig } from '../site-config.js';
import type { createApplier, RawMessage } from './site-apply.js';
import type { createBacklog } from './site-backlog.js';
import { messageOf } from './site-backlog.js';
import type { HubClaims } from './site-claims.js';
import type { Hub } from './site-hub.js';
import type { SiteModeState } from './site-mode.js';
import type { OwnMovement } from './site-store.js';
import type { createCompensations } from './site-undo.js';

/**
 * How long a lost claim waits for the winner's message, and a refusal made behind the stream for the ticket's newest
 * one: the hub is there (it answered a probe) but may be slow behind a catch-up, and a visitor refused on a stale copy
 * is turned away for nothing.
 */
const CATCH_UP_MS = 2000;

/** What the claims need of the hub, with the breaker told of every answer. */
export function hubClaims(p: {
  hub: () => Hub | undefined;
  link: SiteConfig;
  mode: SiteModeState;
  applier: ReturnType<typeof createApplier>;
  undo: ReturnType<typeof createCompensations>;
  backlog: ReturnType<typeof createBacklog>;
  /** Hub messages not applied here yet. */
  lag: () => number;
}): HubClaims & { drainClaimMs(): number[] } {
  // Each claim's time, kept until the metrics drain them (docs/site.md, "Metrics").
  const claimMs: number[] = [];
  return {
    drainClaimMs: () => claimMs.splice(0),
    online: p.mode.online,
    async claim(subject, id, body, expected) {
      const started = performance.now();
      const hub = p.hub();
      const answer = hub
        ? await hub.claim(subject, id, body, expected, p.link.casTimeoutMs)
        : ({ kind: 'unreachable' } as const);
      claimMs.push(performance.now() - started);
      if (answer.kind === 'unreachable') p.mode.failed();
      else p.mode.answered();
      return answer;
    },
    async catchUp(subject) {
      // The hub has just answered the claim, so it is there: wait for the winner's message (behind a catch-up's
      // deliveries on the same connection it can take longer than a claim), never for a hub gone meanwhile.
      const hub = p.hub();
      const newest = hub
        ? await Promise.race([hub.latest(subject).catch(() => null), sleep(CATCH_UP_MS).then(() => null)])
        : null;
      if (newest) await p.applier.apply([newest], 'ticket');
    },
    behind: () => p.mode.connected() && p.lag() > 0,
    async refresh(subjects) {
      const hub = p.hub();
      if (!hub) return false;
      const newest = await Promise.race([
        Promise.all(subjects.map((s) => hub.latest(s).catch(() => null))),
        sleep(CATCH_UP_MS).then((): (RawMessage | null)[] => []),
      ]);
      const newer = newest.filter((m): m is RawMessage => m !== null && m.seq > p.applier.subjectSeq(m.subject));
      // A write applies what fits in a couple of ms; the rest in the next.
      for (let done = 0; done < newer.length;) done += await p.applier.apply(newer.slice(done), 'ticket');
      return newer.length > 0;
    },
    compensate: (c: { id: string; movement: OwnMovement }) => p.undo.claim(c.id, messageOf(c.movement, c.id)),
    backlogGrew: () => void (p.mode.online() && p.backlog.drain()),
  };
}
