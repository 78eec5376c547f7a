import fs from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import type { CheckinService } from '../checkin/checkin.service.js';
import type { Clock } from '../clock.js';
import type { Db } from '../db/open.js';
import type { Log } from '../lib/log.js';
import type { SiteConfig } from '../site-config.js';
import { VERSION } from '../version.js';
import { noRejections, type SiteInfo, type SiteView } from './site.answers.js';
import { createApplier } from './site-apply.js';
import { createBacklog, createSettledNotices } from './site-backlog.js';
import { createSiteDecisions } from './site-claims.js';
import { hubClaims } from './site-hub-claims.js';
import { createConsumer } from './site-consumer.js';
import { connectHub, listen, refusalOf, type Hub, type HubRefusal } from './site-hub.js';
import { fingerprint, newRun, presenceSubject, signingKey, type Origin } from './site-messages.js';
import { createSiteMode, type SiteModeState } from './site-mode.js';
import { createPresence, PRESENCE_EVERY_MS } from './site-presence.js';
import { backlogCount, forgetApplied, forgetHubSlice, siteCounts, siteState, startRun } from './site-store.js';
import { createCompensations } from './site-undo.js';

export interface SiteLink {
  /** What status, metrics and the console read. */
  info: SiteInfo;
  /** Publishes nothing more, drains what is in flight, closes the connection to the hub. */
  close(): Promise<void>;
}

// The site link (docs/site.md): the box's one connection to the hub. It claims every decision of the check-in core
// while the hub answers (site-claims.ts), applies the other boxes' movements as they come (site-apply.ts), and
// keeps what it decided alone to publish once the hub is back (site-backlog.ts, site-mode.ts).

const PROBE_EVERY_MS = 1000;
const PUBLISH_TIMEOUT_MS = 2000;
/** How far back a box republishes its own movements when the hub lost them. */
const REPUBLISH_MS = 72 * 3600_000;

interface LinkDeps {
  link: SiteConfig;
  db: Db;
  clock: Clock;
  checkin: CheckinService;
  tenantId: number;
  cloudKey: string | undefined;
  log: Log;
}

export async function startLink(deps: LinkDeps): Promise<SiteLink> {
  const { link, db, clock, checkin, tenantId, log } = deps;
  const origin = await originOf(db, tenantId, link);
  const applied = () => siteState(db, tenantId).applied_seq;
  const mode = createSiteMode({ clock, log });
  let hub: Hub | undefined;
  let closed = false;
  const publish = (subject: string, id: string, body: Uint8Array) =>
    hub && mode.connected() ? hub.publish(subject, id, body, PUBLISH_TIMEOUT_MS) : Promise.resolve(null);
  const backlog = createBacklog({ db, tenantId, origin, publish });
  const undo = createCompensations({ origin, publish, log });
  const announceSettled = createSettledNotices({ db, tenantId, origin, publish });
  const inFlight = new Set<string>();
  const applier = createApplier({ checkin, db, tenantId, origin, clock, log, undo, inFlight });
  const consumer = createConsumer({ apply: (batch) => applier.apply(batch, 'stream'), from: () => applied() + 1, log });
  const lag = () => Math.max(0, (consumer.newest() ?? 0) - applier.reached(applied()));
  const presence = createPresence({ origin, version: VERSION, cloudKey: deps.cloudKey, now: () => Date.now() });

  const claims = hubClaims({ hub: () => hub, link, mode, applier, undo, backlog, lag });
  const detach = checkin.attachSite(createSiteDecisions({ db, tenantId, origin, inFlight, hub: claims }));

  /** On (re)connecting: the stream is there and still holds what this box applied, else its movements go again. */
  async function onConnected(on: Hub) {
    const { firstSeq, lastSeq } = await on.ensureStream(link.replicas);
    consumer.saw(lastSeq);
    const st = siteState(db, tenantId);
    if (st.applied_seq > 0 && st.applied_seq >= firstSeq) {
      const there = st.applied_seq <= lastSeq ? await on.messageAt(st.applied_seq) : null;
      if (!there || fingerprint(there.data) !== st.applied_id) {
        const since = new Date(clock.now().getTime() - REPUBLISH_MS).toISOString();
        const again = await forgetHub(db, tenantId, since);
        log.warn({ republicar: again }, 'site: o hub não tem mais o que esta caixa aplicou; publicando de novo');
      }
    }
    await consumer.start(on);
    await goOnline();
  }
  let syncing: Promise<void> | undefined;
  const resync = () => {
    if (!hub || closed) return;
    syncing ??= onConnected(hub)
      .catch((err: unknown) => log.warn({ err: String(err) }, 'site: o hub não respondeu'))
      .finally(() => (syncing = undefined));
  };

  async function goOnline() {
    if (mode.online() || !mode.connected()) return;
    mode.publishing();
    await undo.publish();
    if ((await backlog.drain()) && mode.connected()) mode.site();
  }

  async function probe() {
    if (!hub || !mode.connected() || closed) return;
    try {
      consumer.saw(await hub.lastSeq());
      mode.answered(true);
      if (!consumer.running() && !syncing) resync();
      else if (mode.mayReturn() && !syncing) await goOnline();
      else if (mode.online()) void backlog.drain().then(announceSettled);
      void undo.publish();
    } catch {
      mode.failed();
    }
  }

  function announce() {
    if (!hub || !mode.connected()) return;
    const at = applier.reached(applied());
    const backlog = backlogCount(db, tenantId);
    const state = { applied: at, lag: Math.max(0, (consumer.newest() ?? at) - at), backlog };
    hub.nc.publish(presenceSubject(origin.tenant, origin.box), presence.announce(state));
    void applier.retryParked().catch(() => undefined);
  }
  const timers = [setInterval(() => void probe(), PROBE_EVERY_MS), setInterval(announce, PRESENCE_EVERY_MS)];
  for (const t of timers) t.unref();

  // The box never waits for the hub: the link connects in the background, again and again until it does.
  void connectLoop({
    link,
    closed: () => closed,
    onRefused: mode.refused,
    onStatus(up) {
      mode.connection(up);
      if (up) resync();
      else consumer.stop();
    },
    onHub(h) {
      hub = h;
      mode.connection(true);
      listen(h.nc, presenceSubject(origin.tenant, '*'), presence.heard);
      resync();
    },
  });

  return {
    info: {
      view: () => siteView({ db, tenantId, clock, origin, link, mode, consumer, presence, applier }),
      drainClaimMs: claims.drainClaimMs,
    },
    async close() {
      closed = true;
      for (const t of timers) clearInterval(t);
      detach();
      await consumer.close();
      await syncing;
      await hub?.close();
    },
  };
}

function siteView(p: {
  db: Db;
  tenantId: number;
  clock: Clock;
  origin: Origin;
  link: SiteConfig;
  mode: SiteModeState;
  consumer: ReturnType<typeof createConsumer>;
  presence: ReturnType<typeof createPresence>;
  applier: ReturnType<typeof createApplier>;
}): SiteView {
  const counts = siteCounts(p.db, p.tenantId, p.clock.startOfLocalDate(p.clock.today()).toISOString());
  const at = p.applier.reached(siteState(p.db, p.tenantId).applied_seq);
  const newest = p.consumer.newest();
  const rejects = noRejections();
  for (const r of counts.rejects) if (r.reason in rejects) rejects[r.reason] = r.n;
  return {
    ...p.mode.view(),
    caixa: p.origin.box,
    hub: { urls: [...p.link.urls], conectado: p.mode.connected(), replicas: p.link.replicas },
    sequencia_aplicada: at,
    ultima_sequencia: newest,
    atraso: Math.max(0, (newest ?? at) - at),
    pendentes: counts.backlog,
    estacionadas: counts.parked,
    decisoes_sem_site_hoje: counts.withoutSiteToday,
    conflitos: counts.conflicts,
    chave_nuvem_repetida: p.presence.sharingKey(),
    rejeitadas: rejects,
    caixas: p.presence.boxes(),
  };
}

async function connectLoop(p: {
  link: SiteConfig;
  closed: () => boolean;
  onStatus: (up: boolean) => void;
  onHub: (hub: Hub) => void;
  onRefused: (refusal: HubRefusal) => void;
}) {
  while (!p.closed()) {
    try {
      const hub = await connectHub(p.link, (s) =>
        s.type === 'refused' ? p.onRefused(s.refusal) : p.onStatus(s.type === 'connected'),
      );
      if (p.closed()) return void hub.close();
      return p.onHub(hub);
    } catch (err) {
      const refusal = refusalOf(err);
      if (refusal) p.onRefused(refusal);
      await sleep(1000);
    }
  }
}

/** Who this box is on the site, for this run; the run is recorded first (an orphan claim is an earlier run's). */
async function originOf(db: Db, tenantId: number, link: SiteConfig): Promise<Origin> {
  const run = newRun();
  const earlierRuns = await db.writes.run(() => startRun(db, tenantId, run));
  const tenant = db.sqlite.prepare('SELECT slug FROM tenants WHERE id = ?').get(tenantId) as { slug: string };
  const secret = signingKey(fs.readFileSync(link.passwordFile, 'utf8').trim());
  return { tenant: tenant.slug, box: link.box, boxes: link.boxes, run, earlierRuns, secret };
}

/** Forgets what the hub lost (site-store.ts), in background writes of a few ms each; how many movements go again. */
async function forgetHub(db: Db, tenantId: number, since: string): Promise<number> {
  let again = 0;
  for (;;) {
    const slice = await db.writes.run(() => forgetHubSlice(db, tenantId, since), { background: true });
    again += slice.moves;
    if (slice.subjects === 0 && slice.moves === 0) break;
  }
  await db.writes.run(() => forgetApplied(db, tenantId), { background: true });
  return again;
}
