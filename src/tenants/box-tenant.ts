import { ConfigError } from '../config.js';
import type { Db } from '../db/open.js';
import { resolveTenant, tenantSlugs } from './tenants.repo.js';

/**
 * The box's tenant, resolved once for the lanes and the sync worker: GATE_TENANT, which must name a
 * tenant made with `gate tenants create` (a typo stops the start, naming the known ones); without it,
 * the lanes take the box's only tenant (the demo park on a fresh box). With several tenants and no
 * GATE_TENANT the box cannot guess: it refuses to start.
 */
export function boxTenant(db: Db, slug: string | undefined, lanes: boolean): number | undefined {
  if (slug !== undefined) return resolveTenant(db, slug, 'GATE_TENANT').id;
  if (!lanes) return undefined;
  const slugs = tenantSlugs(db);
  if (slugs.length === 1) return resolveTenant(db, slugs[0]!).id;
  throw new ConfigError(
    slugs.length === 0
      ? 'GATE_CONFIG: as pistas precisam de um tenant; defina GATE_TENANT ou importe os dados do parque (gate import).'
      : 'GATE_CONFIG: há mais de um tenant neste banco; defina GATE_TENANT com o tenant das pistas.',
  );
}
