import { Agent, request } from 'undici';
import { openDatabase } from '../src/db/open.js';
import { createOperator } from '../src/operators/operators.repo.js';
import { findTenant } from '../src/tenants/tenants.repo.js';
import { TENANT } from './fill.js';

// What a park has on beside the turnstiles while the box works (issue 25): a staff console signed in with its live
// feed open (GET /api/console/eventos, every scan becomes an event on it), and Prometheus scraping /metrics every
// 15 s (its default scrape interval). Both are read as bytes and counted, never decoded: this process is the load
// generator and shares the box's two cores.

const OPERATOR = { nome: 'Bench Supervisora', segredo: 'bench-4829' } as const;
const SCRAPE_MS = 15_000;

/** Adds the console's operator to a filled database (before the box opens it). */
export async function addBenchOperator(file: string): Promise<void> {
  const db = openDatabase(file);
  try {
    const tenantId = findTenant(db, TENANT)!.id;
    await createOperator(db, { ...OPERATOR, tenantId, papel: 'supervisor', nowIso: new Date().toISOString() });
  } finally {
    db.close();
  }
}

export interface ParkClients {
  /** Bytes received so far on the console's live feed, and /metrics scrapes made. */
  counts(): { feedBytes: number; scrapes: number };
  /** A GET of the signed-in console (a search, an order): its status and the bytes of its answer. */
  consoleGet(path: string): Promise<{ status: number; bytes: number }>;
  close(): Promise<void>;
}

/** Signs the console in, opens its live feed and starts the scrapes, against the box at `base`. */
export async function openParkClients(base: string): Promise<ParkClients> {
  const agent = new Agent({ connections: 2 });
  const signIn = await request(`${base}/api/console/entrar`, {
    method: 'POST',
    dispatcher: agent,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ ...OPERATOR, tenant: TENANT, estacao: 'bench' }),
  });
  await signIn.body.dump();
  if (signIn.statusCode !== 200) throw new Error(`the console's sign-in answered ${signIn.statusCode}`);
  const cookie = String(signIn.headers['set-cookie']).split(';')[0]!;
  const feed = await request(`${base}/api/console/eventos`, { dispatcher: agent, headers: { cookie } });
  if (feed.statusCode !== 200) throw new Error(`the console's live feed answered ${feed.statusCode}`);
  let feedBytes = 0;
  const reading = (async () => {
    for await (const chunk of feed.body) feedBytes += (chunk as Buffer).length;
  })().catch(() => undefined);
  let scrapes = 0;
  const scrape = async () => {
    const res = await request(`${base}/metrics`, { dispatcher: agent });
    await res.body.dump({ limit: Infinity });
    scrapes++;
  };
  await scrape();
  const timer = setInterval(() => void scrape().catch(() => undefined), SCRAPE_MS);
  return {
    counts: () => ({ feedBytes, scrapes }),
    async consoleGet(path) {
      const res = await request(`${base}${path}`, { dispatcher: agent, headers: { cookie } });
      const bytes = (await res.body.arrayBuffer()).byteLength;
      return { status: res.statusCode, bytes };
    },
    async close() {
      clearInterval(timer);
      feed.body.destroy();
      await reading;
      await agent.close();
    },
  };
}
