import type { Kysely } from 'kysely';
import type { RouteRegistrar } from '../app.js';
import type { Auth } from '../auth/auth.js';
import type { Clock } from '../clock.js';
import type { Sqlite } from '../db/open.js';
import type { DB } from '../db/schema.js';

export interface ListingDeps {
  sqlite: Sqlite;
  kysely: Kysely<DB>;
  clock: Clock;
  auth: Auth;
}

// TODO(helper): GET /combos, /combos/:id, /combos/:id/availability
export const comboRoutes = (_deps: ListingDeps): RouteRegistrar => () => {};
