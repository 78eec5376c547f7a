import type { Db } from '../db/open.js';
import { deleteTenantRows } from '../tenants/tenants.delete.js';
import { DEMO_TENANT_SLUG, findTenant, realTenantSlugs } from '../tenants/tenants.repo.js';

// Once a park's tenant exists, the demo tenant is a leftover: its keys are refused (src/auth/api-keys.ts)
// and the start line warns until `gate demo --remove` takes it away.

/**
 * The warning for the start line when the demo tenant sits beside a real park, else undefined.
 * Plain text, no key in it.
 */
export function demoWarning(db: Db): string | undefined {
  if (!findTenant(db, DEMO_TENANT_SLUG)) return undefined;
  const parks = realTenantSlugs(db);
  if (parks.length === 0) return undefined;
  return (
    `ATENÇÃO: o tenant de demonstração "${DEMO_TENANT_SLUG}" continua neste banco ao lado de ${parks.join(', ')}. ` +
    `Suas chaves de API e seus operadores do console são recusados, mas seus pedidos continuam aqui. ` +
    'Remova-o com: gate demo --remove'
  );
}

export interface DemoRemoval {
  pedidos: number;
  chaves: number;
  operadores: number;
  /** Check-ins, reversals and lane events of the demo: its event logs go with it. */
  eventos: number;
}

/**
 * `gate demo --remove`: the demo tenant and everything of it (orders, combos, clients, keys,
 * operators and their sessions, marks, its event logs), in one transaction. Undefined when there is
 * no demo tenant.
 */
export function removeDemo(db: Db): DemoRemoval | undefined {
  const { sqlite } = db;
  return sqlite
    .transaction(() => {
      const demo = findTenant(db, DEMO_TENANT_SLUG);
      if (!demo) return undefined;
      const n = (table: string) =>
        (db.statement(`SELECT count(*) AS n FROM ${table} WHERE tenant_id = ?`).get(demo.id) as { n: number }).n;
      const removal = {
        pedidos: n('orders'),
        chaves: n('api_keys'),
        operadores: n('operators'),
        eventos: n('events') + n('lane_events'),
      };
      deleteTenantRows(sqlite, demo.id);
      return removal;
    })
    .immediate();
}
