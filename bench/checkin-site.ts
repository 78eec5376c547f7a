import fs from 'node:fs';
import { combine, runClosedLoop, startChild, type LoadOptions, type LoadResult } from './load.js';
import { cpuParts, type CpuParts } from './checkin-parts.js';
import { openParkClients } from './park-clients.js';
import { LOAD_HEADER, loadRow, measured, out, table, type Measured } from './report.js';
import { siteLinkOf, startHub } from './site-hub.js';

// `npm run bench`, section 6: the box of sections 2–5 again, on the same database, with its site link on (issue 25):
// every check-in is claimed at a local hub (Debian's nats-server, the configuration `gate site hub-config` writes)
// before it is answered. The site's other box is named but not running: on loopback it would share these two cores.

const BOX = 'bench';
const OTHER = 'outra';

export interface SiteRun {
  phases: LoadResult[];
  best: LoadResult;
  parts: CpuParts;
}

export async function siteRun(o: {
  dbFile: string;
  boxLoad: Omit<LoadOptions, 'url' | 'amount'> & { url: string };
  amountFor: (previous: LoadResult, seconds: number) => number;
  rounds: number;
  seconds: number;
  maxPeople: number;
}): Promise<SiteRun | null> {
  if (!fs.existsSync('/usr/bin/nats-server') && !fs.existsSync('/usr/sbin/nats-server')) {
    out('nats-server is not installed (apt-get install nats-server): the site run is skipped');
    return null;
  }
  const hub = await startHub([BOX, OTHER]);
  try {
    const env = { ...process.env, BENCH_SITE: JSON.stringify(siteLinkOf(hub, BOX, [BOX, OTHER])) };
    const box = await startChild(['box', o.dbFile], [], env);
    try {
      const park = await openParkClients(`http://127.0.0.1:${box.port}`);
      const load = { ...o.boxLoad, url: o.boxLoad.url.replace(/:\d+\//, `:${box.port}/`) };
      // One round's worth of people at most: warm-up, the rounds and the profiled round share maxPeople.
      const cap = Math.floor(o.maxPeople / (o.rounds + 3) / 100) * 100;
      const warm = await runClosedLoop({ ...load, amount: 10_000 });
      const rounds: (LoadResult & Measured)[] = [];
      for (let i = 0; i < o.rounds; i++) {
        const amount = Math.min(cap, o.amountFor(rounds.at(-1) ?? warm, o.seconds));
        rounds.push(await measured([box.pid], box.pid, () => runClosedLoop({ ...load, amount })));
      }
      table([LOAD_HEADER, loadRow('site warm-up', warm), ...rounds.map((r, i) => loadRow(`site round ${i + 1}`, r))]);
      const all = Object.assign(combine(rounds), {
        others: rounds.reduce((n, r) => n + r.others, 0) / rounds.length,
        cpu: {
          server: rounds.reduce((n, r) => n + r.cpu.server, 0),
          serverMain: rounds.reduce((n, r) => n + r.cpu.serverMain, 0),
          generator: rounds.reduce((n, r) => n + r.cpu.generator, 0),
        },
      });
      const view = await box.site();
      out(`the box's site view: ${view ? `state ${JSON.stringify(view).slice(0, 160)}` : 'none'}`);
      const parts = await cpuParts(box, all, () => runClosedLoop({ ...load, amount: cap }), 'with the site link');
      await park.close();
      const best = rounds.reduce((a, b) => (b.rps > a.rps ? b : a));
      return { phases: [warm, ...rounds, ...parts.phases], best, parts };
    } finally {
      await box.stop();
    }
  } finally {
    await hub.close();
  }
}
