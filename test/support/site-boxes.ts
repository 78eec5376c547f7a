import fs from 'node:fs';
import { writeImportFile } from '../cli/run.js';
import { ensureBuilt } from './gate-process.js';
import { makeBox, type Answer, type SiteBox } from './site-box.js';
import { startHub, type Hub } from './site-hub.js';
import { parkToday, siteTickets, type SiteDataset } from './site-tickets.js';
import type { LinkMode } from './tcp-proxy.js';
import { tempDir } from './temp.js';

export { SITE_TENANT, until, type Answer, type SiteBox } from './site-box.js';
export { parkToday, siteTickets, SITE_TZ, type SiteDataset, type SiteTickets } from './site-tickets.js';

// Several boxes of one park (site-box.ts), all holding the same tickets (one import file, valid today in the park's
// time zone), each reaching the hub through its own TCP proxy the test cuts and heals (tcp-proxy.ts).

export interface SiteBoxesOptions {
  names: string[];
  /** The site's hub: each box gets its own proxy in front of it. */
  hub?: Hub;
  /** Sets GATE_SITE_* (default: with a hub). Off: proxies exist, the boxes are single boxes. */
  site?: boolean;
  /** The link of these boxes as they start (default pass): a box starts whatever its link does. */
  linkAtStart?: Partial<Record<string, LinkMode>>;
  /**
   * Added to every box's environment (GATE_SITE_CAS_TIMEOUT_MS, GATE_CLOUD_*...), or per box: the function may write
   * files into the box's data dir first (a lanes file for GATE_CONFIG).
   */
  env?: NodeJS.ProcessEnv | ((name: string, dataDir: string) => NodeJS.ProcessEnv);
  /** One entrance lane per box on ptys (scanner + LCUS relay), GATE_CONFIG set. */
  lanes?: boolean;
  /** The shared dataset: `orders` orders (default 20) of `people` people (default 3). */
  orders?: number;
  people?: number;
  /** Or a dataset made beforehand with siteTickets (to load the same orders into a fake cloud first). */
  dataset?: SiteDataset;
}

/** Makes the boxes' data dirs (tenant, the shared tickets, a key each), then starts them all. */
export async function startBoxes(opts: SiteBoxesOptions) {
  ensureBuilt();
  const root = tempDir('gate-site-');
  const { pedidos, tickets } =
    opts.dataset ?? siteTickets({ orders: opts.orders ?? 20, people: opts.people ?? 3, day: parkToday() });
  const importFile = writeImportFile(root, { pedidos }, 'ingressos.json');
  const site = opts.site ?? opts.hub !== undefined;
  const boxes: (SiteBox & { dispose(): Promise<void> })[] = [];
  try {
    for (const name of opts.names)
      boxes.push(await makeBox(name, root, importFile, { ...opts, site, link: opts.linkAtStart?.[name] ?? 'pass' }));
    await Promise.all(boxes.map((b) => b.start()));
  } catch (error) {
    await Promise.all(boxes.map((b) => b.dispose()));
    throw error;
  }
  const byName = new Map(boxes.map((b) => [b.name, b as SiteBox]));
  return {
    boxes: boxes as SiteBox[],
    box(name: string): SiteBox {
      const b = byName.get(name);
      if (!b) throw new Error(`no box ${name}`);
      return b;
    },
    tickets,
    /** Checks `qr` in at these boxes (default: all) at once, their connections opened first; answers in that order. */
    async race(qr: string, names: string[] = opts.names): Promise<Answer[]> {
      const racing = names.map((n) => byName.get(n)!);
      await Promise.all(racing.map((b) => b.get('/health/live')));
      return Promise.all(racing.map((b) => b.checkin(qr)));
    },
    /** Kills every box, closes the proxies, removes the data dirs. */
    async close() {
      await Promise.all(boxes.map((b) => b.dispose()));
      fs.rmSync(root, { recursive: true, force: true });
    },
  };
}

export type SiteBoxes = Awaited<ReturnType<typeof startBoxes>>;

/** A whole site: a hub for `names`, and the boxes on it, each through its own proxy. */
export async function startSite(opts: Omit<SiteBoxesOptions, 'hub'>) {
  const hub = await startHub({ boxes: opts.names });
  try {
    const boxes = await startBoxes({ ...opts, hub });
    return {
      ...boxes,
      hub,
      async close() {
        await boxes.close();
        await hub.close();
      },
    };
  } catch (error) {
    await hub.close();
    throw error;
  }
}

export type Site = Awaited<ReturnType<typeof startSite>>;
