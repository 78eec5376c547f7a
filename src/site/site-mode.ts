import type { Clock } from '../clock.js';
import type { Log } from '../lib/log.js';
import type { LocalReason, SiteMode } from './site.answers.js';

// The site link's mode (docs/site.md, "Local mode"). 'site': every decision is claimed on the hub first. 'local':
// the box decides alone at once, marks it, and keeps it to publish later — after a lost connection, or
// FAILURES_TO_LOCAL claims or probes in a row without an answer (a link lost silently, before the client's pings
// notice). Back to 'site' once the hub answers PROBES_TO_SITE probes in a row and the backlog is published.

const FAILURES_TO_LOCAL = 3;
const PROBES_TO_SITE = 3;

export function createSiteMode({ clock, log }: { clock: Clock; log: Log }) {
  let mode: SiteMode = 'local';
  let reason: LocalReason = 'conectando';
  let since = clock.nowIso();
  let failures = 0;
  let probesOk = 0;
  let connected = false;

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
      if (!up) to('local', 'hub_inalcancavel');
    },
    /** The box refused the hub's certificate: TLS to fix, not a hub away. */
    refusedCertificate(code: string) {
      if (reason !== 'certificado_do_hub')
        log.warn({ erro: code }, 'site: esta caixa recusou o certificado do hub (GATE_SITE_NATS_CA)');
      to('local', 'certificado_do_hub');
    },
    publishing: () => to('local', 'publicando_pendentes'),
    site: () => to('site', null),
  };
}

export type SiteModeState = ReturnType<typeof createSiteMode>;
