import type { SiteView, TenantSite } from '../../src/site/site.answers.js';
import { siteOff } from '../../src/site/site.view.js';

// A site link as the rest of the box reads it (src/site/site.answers.ts), made in the test: the route, metrics,
// readiness and the console take a SiteInfo, and this one says what the test sets.

export interface FakeSite extends TenantSite {
  /** Changes what the next view() says. */
  set(change: Partial<SiteView>): void;
  /** Claim round trips (ms) the next drainClaimMs() hands over. */
  claimed(...ms: number[]): void;
}

/** Box `norte` of a three-box site, deciding with the hub, with a password in its hub URL. */
export function fakeSite(tenantId: number, change: Partial<SiteView> = {}): FakeSite {
  let view: SiteView = {
    ...siteOff(),
    modo: 'site',
    desde: '2026-11-21T11:00:00.000Z',
    caixa: 'norte',
    hub: { urls: ['nats://gate-norte:s3nha-secreta@10.0.0.5:4222'], conectado: true, replicas: 1 },
    sequencia_aplicada: 120,
    ultima_sequencia: 123,
    atraso: 3,
    caixas: [
      {
        caixa: 'norte',
        esta_caixa: true,
        visto_em: '2026-11-21T12:59:58.000Z',
        versao: '1.23.0',
        sequencia_aplicada: 120,
        atraso: 3,
        pendentes: 0,
      },
      {
        caixa: 'sul',
        esta_caixa: false,
        visto_em: '2026-11-21T12:59:50.000Z',
        versao: '1.22.1',
        sequencia_aplicada: 123,
        atraso: 0,
        pendentes: 2,
      },
      {
        caixa: 'leste',
        esta_caixa: false,
        visto_em: null,
        versao: null,
        sequencia_aplicada: null,
        atraso: null,
        pendentes: null,
      },
    ],
    ...change,
  };
  let claims: number[] = [];
  return {
    tenantId,
    view: () => structuredClone(view),
    drainClaimMs: () => {
      const out = claims;
      claims = [];
      return out;
    },
    set: (c) => void (view = { ...view, ...c }),
    claimed: (...ms) => void claims.push(...ms),
  };
}
