import type { Clock } from '../clock.js';
import type { Log } from '../lib/log.js';
import type { LocalReason, SiteMode } from './site.answers.js';
import type { HubRefusal } from './site-hub.js';

// The site link's mode (docs/site.md, "Local mode"). 'site': every decision is claimed on the hub first. 'local':
// the box decides alone at once, marks it, and keeps it to publish later — after a lost connection, or
// FAILURES_TO_LOCAL claims or probes in a row without an answer (a link lost silently, before the client's pings
// notice). Back to 'site' once the hub answers PROBES_TO_SITE probes in a row and the backlog is published.

const FAILURES_TO_LOCAL = 3;
const PROBES_TO_SITE = 3;

/** The warning a refusal gets, once until the box connects again: the IT lead has something to fix. */
const REFUSAL_WARNING: Record<HubRefusal['motivo'], string> = {
  certificado_do_hub: 'site: esta caixa recusou o certificado do hub (GATE_SITE_NATS_CA)',
  credenciais_recusadas: 'site: o hub recusou o usuário ou a senha desta caixa (GATE_SITE_NATS_PASSWORD_FILE)',
};

export function createSiteMode({ clock, log }: { clock: Clock; log: Log }) {
  let mode: SiteMode = 'local';
  let reason: LocalReason = 'conectando';
  let since = clock.nowIso();
  let failures = 0;
  let probesOk = 0;
  let connected = false;
  // Refusals since the box was last connected: the client retries every second and says "disconnected" after each
  // refused try, which must neither log the refusal again nor hide it behind hub_inalcancavel.
  const refusals = new Set<HubRefusal['motivo']>();

  const to = (next: SiteMode, why: LocalReason | null) => {
    failures = 0;
    probesOk = 0;
    if (mode === next && (next === 'site' || reason === why)) return;
    mode = next;
    if (why) reason = why;
    since = clock.nowIso();
    log.warn({ modo: mode, motivo: next === 'local' ? reason : null }, 'site: modo');
  };
  return {
    /** Whether claims are tried: the site mode, connected. */
    online: () => mode === 'site' && connected,
    connected: () => connected,
    view: () => ({ modo: mode, motivo: mode === 'local' ? reason : null, desde: since }),
    /** The hub answered a claim or a probe. */
    answered(probe = false) {
      failures = 0;
      if (probe) probesOk++;
    },
    /** Enough probes answered in a row to try going back to the site (once the backlog is published). */
    mayReturn: () => mode === 'local' && connected && probesOk >= PROBES_TO_SITE,
    failed() {
      probesOk = 0;
      if (++failures >= FAILURES_TO_LOCAL && mode === 'site') to('local', 'falhas_seguidas');
    },
    connection(up: boolean) {
      connected = up;
      if (up) refusals.clear();
      else if (refusals.size === 0) to('local', 'hub_inalcancavel');
    },
    /** The box refused the hub's certificate, or the hub this box's password: something to fix, not a hub away. */
    refused(refusal: HubRefusal) {
      if (!refusals.has(refusal.motivo))
        log.warn('code' in refusal ? { erro: refusal.code } : {}, REFUSAL_WARNING[refusal.motivo]);
      refusals.add(refusal.motivo);
      to('local', refusal.motivo);
    },
    publishing: () => to('local', 'publicando_pendentes'),
    site: () => to('site', null),
  };
}

export type SiteModeState = ReturnType<typeof createSiteMode>;
