import type { RouteRegistrar } from '../app.js';
import type { ScanNotice } from '../checkin/checkin.service.js';
import type { Clock } from '../clock.js';
import type { ConsolePanels } from './console.panels.js';
import type { ConsoleView } from './console.view.js';
import { eventText, SUPERVISOR_KINDS, type Feed, type FeedMessage } from './feed.js';
import { siteBanner } from './site.panel.js';
import { cookieToken, type ConsoleGuard, type ConsoleSessions } from './sessions.js';

// Live updates for the consoles: every door's scans come from the check-in service as they are
// committed; lane status, new alarms, the sync state and the site are sampled once a second, and only while a
// console is connected, and sent when they change.

const PING_MS = 15_000;
const SAMPLE_MS = 1_000;
/** How long an event may wait for others to go out with it: unnoticed on a console, one write per rush. */
const FLUSH_MS = 100;

/**
 * The scans a console is sent per write: the gates view shows the newest 20 (web/gates/GatesView.tsx), so in a rush
 * the older ones of the same 100 ms would be built, serialised and sent only to be dropped by every console.
 */
export const SHOWN_SCANS = 20;

/**
 * The check-in service's listener: each committed result as a `leitura` for its tenant's consoles, built only when a
 * stream sends it (the newest SHOWN_SCANS of a write), once for all of them.
 */
export function scanPublisher(feed: Feed, view: ConsoleView, clock: Clock) {
  return (notice: ScanNotice) => {
    if (feed.listeners === 0) return;
    const at = clock.nowIso();
    let leitura: unknown;
    feed.publish({
      tenantId: notice.tenantId,
      kind: 'leitura',
      get data() {
        return (leitura ??= view.leitura(notice, at));
      },
      pedido: notice.result.ok ? notice.result.numeroPedido : null,
    });
  };
}

/**
 * One write's events as text: of its scans, the newest SHOWN_SCANS; the orders of the others in one `pedidos_lidos`
 * (an order's screen reloads on a scan of its order, web/order/OrderView.tsx).
 */
function writeOf(messages: FeedMessage[]): string {
  let leituras = messages.reduce((n, m) => (m.kind === 'leitura' ? n + 1 : n), 0);
  const unsent = new Set<string>();
  let text = '';
  for (const m of messages) {
    if (m.kind === 'leitura' && leituras-- > SHOWN_SCANS) {
      if (m.pedido) unsent.add(m.pedido);
      continue;
    }
    text += eventText(m);
  }
  return unsent.size === 0 ? text : text + eventText({ kind: 'pedidos_lidos', data: [...unsent] });
}

/** Samples what has no event of its own, per tenant with consoles connected. */
export function startMonitor({
  feed,
  panels,
  tenants,
  onError,
}: {
  feed: Feed;
  panels: ConsolePanels;
  tenants: () => number[];
  onError?: ((error: unknown) => void) | undefined;
}) {
  const last = new Map<number, { pistas: string; sync: string; site: string; modo: string }>();
  // Lane event ids are global: alarms newer than the cursor are new, whoever is connected.
  let cursor = panels.lastLaneEventId();
  let failing = false;
  const timer = setInterval(() => {
    // A sample that fails (a busy or closing database) is skipped: an exception thrown from a timer
    // would take the whole box down. Said once, until a sample works again.
    try {
      sample();
      failing = false;
    } catch (error) {
      if (!failing) onError?.(error);
      failing = true;
    }
  }, SAMPLE_MS);
  function sample() {
    if (feed.listeners === 0) {
      last.clear();
      cursor = panels.lastLaneEventId();
      return;
    }
    for (const alarme of panels.alarmsAfter(cursor)) {
      feed.publish({ tenantId: alarme.tenantId, kind: 'alarme', data: alarme.alarme });
      cursor = Math.max(cursor, alarme.alarme.id);
    }
    for (const tenantId of tenants()) {
      const seen = last.get(tenantId) ?? { pistas: '', sync: '', site: '', modo: '' };
      const pistas = panels.lanes(tenantId);
      const pistasJson = JSON.stringify(pistas);
      if (pistasJson !== seen.pistas) feed.publish({ tenantId, kind: 'pistas', data: pistas });
      const sync = panels.sync(tenantId);
      const syncJson = JSON.stringify(sync);
      if (syncJson !== seen.sync) feed.publish({ tenantId, kind: 'sync', data: sync });
      const site = panels.site(tenantId);
      const siteJson = JSON.stringify(site);
      if (siteJson !== seen.site) feed.publish({ tenantId, kind: 'site', data: site });
      const modo = siteBanner(site);
      const modoJson = JSON.stringify(modo);
      if (modoJson !== seen.modo) feed.publish({ tenantId, kind: 'modo_site', data: modo });
      last.set(tenantId, { pistas: pistasJson, sync: syncJson, site: siteJson, modo: modoJson });
    }
  }
  timer.unref();
  return { stop: () => clearInterval(timer) };
}

/** GET /api/console/eventos: server-sent events for the session's tenant (supervisor kinds to supervisors only). */
export const liveRoutes =
  (deps: { feed: Feed; guard: ConsoleGuard; sessions: ConsoleSessions; pingMs?: number | undefined }): RouteRegistrar =>
  (app) => {
    // A stream never ends by itself: closing the app ends them first, or the server would wait forever.
    const streams = new Set<() => void>();
    app.addHook('preClose', async () => {
      for (const end of streams) end();
    });
    app.get(
      '/api/console/eventos',
      { onRequest: deps.guard.anyone, schema: { tags: ['console'], summary: 'Eventos ao vivo (text/event-stream)' } },
      async (request, reply) => {
        const s = deps.guard.sessionOf(request);
        reply.hijack();
        const res = reply.raw;
        res.writeHead(200, {
          'content-type': 'text/event-stream; charset=utf-8',
          'cache-control': 'no-store',
          connection: 'keep-alive',
          'x-accel-buffering': 'no',
        });
        // Events go out together every FLUSH_MS: one write for all the scans of a rush, not one per scan (a console
        // open cost more CPU per check-in than the log line did; docs/performance.md, issue 25).
        let pending: FeedMessage[] = [];
        let flushing: NodeJS.Timeout | undefined;
        const flush = () => {
          flushing = undefined;
          res.write(writeOf(pending));
          pending = [];
        };
        res.write(eventText({ kind: 'pronto', data: { operador: s.nome, papel: s.papel } }));
        const unsubscribe = deps.feed.subscribe((m) => {
          if (m.tenantId !== s.tenantId) return;
          if (SUPERVISOR_KINDS.has(m.kind) && s.papel !== 'supervisor') return;
          pending.push(m);
          flushing ??= setTimeout(flush, FLUSH_MS);
        });
        // The ping also re-checks the session: a disabled operator's or an expired stream ends within PING_MS.
        const token = cookieToken(request);
        const ping = setInterval(
          () => (token && deps.sessions.find(token, false) ? res.write(': ping\n\n') : res.end()),
          deps.pingMs ?? PING_MS,
        );
        const end = () => res.end();
        streams.add(end);
        res.on('close', () => {
          clearInterval(ping);
          clearTimeout(flushing);
          unsubscribe();
          streams.delete(end);
        });
      },
    );
  };
