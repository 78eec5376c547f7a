import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import { SITE_MODES, SITE_REJECT_REASONS, type SiteInfo, type SiteView } from '../site/site.answers.js';
import type { BoxStatus } from './box-status.js';

/** How often the claim times are drained into the histogram between scrapes. */
const DRAIN_MS = 5_000;

/**
 * The site's gauges (docs/site.md, "O que a caixa mostra"), read from the status at scrape time like the others,
 * and the claim round trips. Registered only when the site is on: a single box has no gate_site_* series.
 */
export function siteMetrics(registry: Registry, status: BoxStatus, site: SiteInfo) {
  // One view per scrape, whichever metric asks first.
  let scraped: SiteView | null = null;
  const view = () => (scraped ??= status.site() ?? null);
  const gauge = (name: string, help: string, value: (v: SiteView) => number) =>
    new Gauge({
      name,
      help,
      registers: [registry],
      collect() {
        const v = view();
        if (v) this.set(value(v));
      },
    });
  new Gauge({
    name: 'gate_site_mode',
    help: 'The site mode: 1 for the current one (site: deciding with the hub; local: alone), 0 for the others',
    labelNames: ['modo'],
    registers: [registry],
    collect() {
      const v = view();
      for (const modo of SITE_MODES) this.set({ modo }, v?.modo === modo ? 1 : 0);
    },
  });
  gauge('gate_site_apply_lag', 'Hub messages this box has not applied yet', (v) => v.atraso);
  gauge('gate_site_backlog', 'Movements of this box not yet published to the hub', (v) => v.pendentes);
  gauge(
    'gate_site_parked',
    "Other boxes' movements waiting for a QR this box does not know yet",
    (v) => v.estacionadas,
  );
  gauge('gate_site_conflicts', 'Double entries found after a merge (duplo_no_site)', (v) => v.conflitos);
  gauge(
    'gate_site_cloud_key_shared',
    "Other boxes announcing this box's cloud key (alarm: the box is not ready)",
    (v) => v.chave_nuvem_repetida.length,
  );
  new Counter({
    name: 'gate_site_rejected_total',
    help: 'Hub messages acknowledged and skipped, by reason',
    labelNames: ['motivo'],
    registers: [registry],
    collect() {
      const v = view();
      this.reset();
      for (const motivo of SITE_REJECT_REASONS) this.inc({ motivo }, v?.rejeitadas[motivo] ?? 0);
    },
  });
  const claims = new Histogram({
    name: 'gate_site_claim_seconds',
    help: 'A claim on the site: publish to the hub to its acknowledgement',
    buckets: [0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.15, 0.25, 0.5, 1],
    registers: [registry],
    collect: () => drain(),
  });
  // Drained on a timer too, not only at scrape: the link keeps every claim time until drained, and a box nobody
  // scrapes would keep them all. The histogram is cumulative, so draining early loses nothing.
  const drain = () => {
    for (const ms of site.drainClaimMs()) claims.observe(ms / 1000);
  };
  const timer = setInterval(drain, DRAIN_MS);
  timer.unref();
  return {
    /** Before each scrape: the next metric to ask reads the view anew. */
    fresh: () => void (scraped = null),
    stop: () => clearInterval(timer),
  };
}
