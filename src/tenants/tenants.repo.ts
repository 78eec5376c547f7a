import type { Db } from '../db/open.js';
import { all, first, run } from '../db/query.js';

/** The tenant `gate demo` and a fresh box's first start create; reserved: no park can take it. */
export const DEMO_TENANT_SLUG = 'demo';

/**
 * SQL: true when `slugColumn` is the demo tenant and a park exists beside it. The demo's keys and
 * console operators are then refused (docs/cli.md, "demo").
 */
export const demoRetiredSql = (slugColumn: string) =>
  `(${slugColumn} = '${DEMO_TENANT_SLUG}' AND EXISTS (SELECT 1 FROM tenants AS park WHERE park.slug <> '${DEMO_TENANT_SLUG}'))`;

/** What a slug may be: what GATE_TENANT accepts (src/config.ts), at most 63 characters. */
export const TENANT_SLUG = /^[a-z0-9][a-z0-9-]{0,62}$/;

/** A tenant named by a command or by GATE_TENANT that is not in the database. Never created silently. */
export class UnknownTenantError extends Error {
  constructor(
    readonly slug: string,
    readonly known: string[],
    /** Where the slug came from, when it was not the command line (`GATE_TENANT`). */
    source?: string,
  ) {
    const knownText = known.length === 0 ? 'nenhum tenant neste banco' : `conhecidos: ${known.join(', ')}`;
    super(
      `${source ? `${source}: ` : ''}tenant "${slug}" não existe; ${knownText}. Crie com: gate tenants create ${slug}`,
    );
  }
}

export class TenantExistsError extends Error {}

export function findTenant(db: Db, slug: string) {
  return first(db, db.kysely.selectFrom('tenants').selectAll().where('slug', '=', slug));
}

export const tenantSlugs = (db: Db): string[] =>
  all(db, db.kysely.selectFrom('tenants').select('slug').orderBy('slug')).map((t) => t.slug);

/**
 * The tenant with this slug, or an UnknownTenantError naming the known ones. Every command and
 * every part of the box that is given a tenant (--tenant, GATE_TENANT) finds it through here: a typo
 * must fail, not start an empty park beside the real one.
 */
export function resolveTenant(db: Db, slug: string, source?: string) {
  const found = findTenant(db, slug);
  if (!found) throw new UnknownTenantError(slug, tenantSlugs(db), source);
  return found;
}

/** `gate tenants create`: a new tenant, or TenantExistsError. */
export function createTenant(db: Db, input: { slug: string; nome: string; nowIso: string }): number {
  const k = db.kysely;
  return db.sqlite
    .transaction(() => {
      if (findTenant(db, input.slug)) throw new TenantExistsError(`tenant "${input.slug}" já existe`);
      return Number(
        run(db, k.insertInto('tenants').values({ slug: input.slug, nome: input.nome, created_at: input.nowIso }))
          .lastInsertRowid,
      );
    })
    .immediate();
}

/**
 * The tenant with this slug, created when missing. Only the demo seed and tests create tenants this
 * way; everything else resolves an existing one (resolveTenant).
 */
export function ensureTenant(db: Db, slug: string, nowIso: string, nome = slug): number {
  const k = db.kysely;
  const found = findTenant(db, slug);
  if (found) return found.id;
  return Number(run(db, k.insertInto('tenants').values({ slug, nome, created_at: nowIso })).lastInsertRowid);
}

/** The tenants that are parks, not the demo. */
export const realTenantSlugs = (db: Db): string[] => tenantSlugs(db).filter((s) => s !== DEMO_TENANT_SLUG);

export interface TenantSummary {
  id: number;
  slug: string;
  nome: string;
  created_at: string;
  pedidos: number;
  /** Keys neither revoked nor expired. */
  chaves: number;
  /** Operators not disabled. */
  operadores: number;
}

/** `gate tenants list`: every tenant with what it holds. */
export function listTenants(db: Db, nowIso: string): TenantSummary[] {
  return db
    .statement(
      `SELECT t.id, t.slug, t.nome, t.created_at,
         (SELECT count(*) FROM orders o WHERE o.tenant_id = t.id) AS pedidos,
         (SELECT count(*) FROM api_keys a WHERE a.tenant_id = t.id AND a.revoked_at IS NULL AND (a.expires_at IS NULL OR a.expires_at > ?)) AS chaves,
         (SELECT count(*) FROM operators p WHERE p.tenant_id = t.id AND p.disabled_at IS NULL) AS operadores
       FROM tenants t ORDER BY t.slug`,
    )
    .all(nowIso) as TenantSummary[];
}
