import type { FastifyBaseLogger } from 'fastify';
import { buildApp, type App } from './app.js';
import { createAuth } from './auth/auth.js';
import type { Clock } from './clock.js';
import type { Db } from './db/open.js';

export interface BoxDeps {
  db: Db;
  clock: Clock;
  logger: FastifyBaseLogger | false;
}

/** Services and HTTP app wired together: shared by main.ts and the tests, so both run the same box. */
export async function assembleBox({ db, clock, logger }: BoxDeps): Promise<{ app: App }> {
  const deps = { sqlite: db.sqlite, kysely: db.kysely, clock };
  const auth = createAuth(deps);
  void auth;
  const app = await buildApp({ logger, v1: [], integration: [], local: [] });
  return { app };
}
