import { PARK_AREA } from '../checkin/movement.settings.js';
import type { Db } from '../db/open.js';
import type { PushResult } from '../db/schema.js';
import {
  encodeMessage,
  encodeSettledNotices,
  newSiteId,
  settledSubject,
  subjectOf,
  type Origin,
  type SiteMessage,
} from './site-messages.js';
import { backlog, markAnnounced, setPublished, settledUnannounced, type OwnMovement } from './site-store.js';

// The backlog (docs/site.md, "Local mode"): this box's movements not yet on the hub — decisions made without it,
// exits (facts, never claims), claims whose answer never came — published in order, as facts (no expected
// sequence), with their site id as the message id so that one the hub already has is answered "duplicate".

const PAGE = 500;

type Body = Omit<SiteMessage, 'v' | 'box' | 'run' | 'sig' | 'tenant'>;

export function messageOf(m: OwnMovement, id: string, extra: Partial<Body> = {}): Body {
  const details = m.details ? (JSON.parse(m.details) as { area?: string }) : {};
  return {
    id,
    action: m.action,
    kind: m.person_id ? 'person' : 'additional',
    qr: m.qr_code ?? m.code,
    code: m.code,
    mode: m.mode as Body['mode'],
    at: m.occurred_at,
    area: details.area ?? PARK_AREA,
    terminal: m.terminal,
    operator: m.operador,
    source: m.source,
    local: m.sem_site === 1,
    ...extra,
  };
}

export interface Publish {
  /** Publishes a fact; resolves with its sequence, or null when the hub did not answer. */
  (subject: string, id: string, body: Uint8Array): Promise<number | null>;
}

/** Publishes the backlog page by page; resolves true once it is empty, false when the hub stopped answering. */
export function createBacklog({
  db,
  tenantId,
  origin,
  publish,
}: {
  db: Db;
  tenantId: number;
  origin: Origin;
  publish: Publish;
}) {
  let draining: Promise<boolean> | undefined;
  async function drainOnce(): Promise<boolean> {
    for (;;) {
      const page = backlog(db, tenantId, PAGE);
      if (page.length === 0) return true;
      const sent = page.map((m) => {
        const message = messageOf(m, m.site_id);
        const subject = subjectOf(origin.tenant, message.kind, message.qr);
        return publish(subject, m.site_id, encodeMessage(origin, message)).then((seq) => ({ m, subject, seq }));
      });
      const acks = await Promise.all(sent);
      await db.writes.run(
        () => {
          // Only the sequence is kept: the ticket's subject moves on when the stream's reading reaches it, in
          // order, after any earlier message of that ticket this box has not applied yet (a double entry then
          // shows as one; a claim never expects past a message this box has not seen).
          for (const a of acks) if (a.seq !== null) setPublished(db, a.m.site_id, a.seq);
        },
        { background: true },
      );
      if (acks.some((a) => a.seq === null)) return false;
    }
  }
  return {
    /** One drain at a time; a call during a drain waits for it. */
    drain(): Promise<boolean> {
      draining ??= drainOnce().finally(() => (draining = undefined));
      return draining;
    },
  };
}

/**
 * Tells the other boxes which of this box's movements the cloud settled: a ticket's next movement at another box
 * is held for the cloud until then (a reversal there must not reach the cloud before this box's check-in).
 */
export function createSettledNotices({
  db,
  tenantId,
  origin,
  publish,
}: {
  db: Db;
  tenantId: number;
  origin: Origin;
  publish: Publish;
}) {
  let running = false;
  return async function announce(): Promise<void> {
    if (running) return;
    running = true;
    try {
      for (
        let rows = settledUnannounced(db, tenantId, PAGE);
        rows.length > 0;
        rows = settledUnannounced(db, tenantId, PAGE)
      ) {
        // A push settled as 'concluido' always has its answer.
        const settled = rows.map((r) => [r.site_id, r.resultado ?? 'outro'] as [string, PushResult]);
        let from = 0;
        for (const notice of encodeSettledNotices(origin, settled, () => newSiteId(origin))) {
          const seq = await publish(settledSubject(origin.tenant, origin.box), notice.id, notice.body);
          if (seq === null) return;
          const told = rows.slice(from, (from += notice.count)).map((r) => r.event_id);
          await db.writes.run(() => markAnnounced(db, told), { background: true });
        }
      }
    } finally {
      running = false;
    }
  };
}
