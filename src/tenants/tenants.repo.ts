import type { Kysely } from 'kysely';
import { first, run, type Sqlite } from '../db/open.js';
import type { DB } from '../db/schema.js';

export function findTenant(sqlite: Sqlite, k: Kysely<DB>, slug: string) {
  return first(sqlite, k.selectFrom('tenants').selectAll().where('slug', '=', slug));
}

/** The tenant with this slug, created when missing. */
export function ensureTenant(sqlite: Sqlite, k: Kysely<DB>, slug: string, nowIso: string, nome = slug): number {
  const found = findTenant(sqlite, k, slug);
  if (found) return found.id;
  return Number(run(sqlite, k.insertInto('tenants').values({ slug, nome, created_at: nowIso })).lastInsertRowid);
}
