import { addDays, createClock } from '../src/clock.js';
import { listing } from '../src/sync/cloud-client.js';
import { DEFAULT_PULL, incrementalQuery } from '../src/sync/pull.js';
import { startFakeCloud } from '../test/support/fake-cloud.js';
import { makeOrder } from '../test/support/fixtures.js';

// The fake cloud of `npm run bench:heavy` (test/support/fake-cloud.ts: a second box serving the spec's cloud side), in
// its own process: `<rounds> <orders per round> <people per order>`. Every round's orders are made at the start and
// marked as already delivered to the box's key, so the box's pulls find nothing new; {cmd:'release', round} makes
// them appear as new sales, and the box's next scheduled pull ingests them. Their use date is past the box's refresh
// window (GATE_SYNC_DAYS_AHEAD), so only the incremental pull reads them.
//
// A real cloud is not on the box's two cores: here its listing, at nice 19, answered about 3,700 orders/s while the
// box stored them, and that was the rate the ingest measured (docs/performance.md, issue 25 (2a)). So each round's
// pages are listed at the start, with the very query of the box's incremental pull (its own builders: marking on, the
// box's page size and order), and played back, page after page, to the box's pulls of that round: what the cloud
// itself would have answered, as soon as asked. Once they are played, the pull meets the real listing again, empty.
// That a page, once answered, is never answered again to the same key is the spec's marking (ticketing-integration-
// api.md §4.6, rule 2: "a later call then returns only newer ones"), which the listing played here implements.
const BOX_PULL = listing(incrementalQuery(DEFAULT_PULL.pageSize));
const BOX_PULL_MATCH = Object.fromEntries(new URLSearchParams(BOX_PULL));

const ROUNDS = Number(process.argv[2] ?? 3);
const ORDERS = Number(process.argv[3] ?? 100_000);
const PEOPLE = Number(process.argv[4] ?? 2);

async function main() {
  const clock = createClock('America/Sao_Paulo');
  const cloud = await startFakeCloud({ clock, recordRequests: false });
  const { sqlite } = cloud.db;
  const boxKey = sqlite.prepare(`SELECT id FROM api_keys WHERE name = 'gate-box'`).pluck().get() as number;
  const dataUso = addDays(clock.today(), 10);
  const started = performance.now();
  const rounds: { from: number; to: number }[] = [];
  const mark = sqlite.prepare(
    `INSERT OR IGNORE INTO voucher_marks (api_key_id, person_id, sincronizado_em)
       SELECT ?, p.id, ? FROM people p WHERE p.order_id BETWEEN ? AND ?`,
  );
  const maxOrder = sqlite.prepare('SELECT coalesce(max(id), 0) FROM orders').pluck();
  let n = 0;
  for (let r = 0; r < ROUNDS; r++) {
    const from = (maxOrder.get() as number) + 1;
    for (let i = 0; i < ORDERS; i += 5_000) {
      const chunk = Array.from({ length: Math.min(5_000, ORDERS - i) }, () => {
        n++;
        return makeOrder({ numero: numero(n), prefix: `N${n}`, people: PEOPLE, dataUso });
      });
      cloud.addOrders(chunk);
    }
    const to = maxOrder.get() as number;
    mark.run(boxKey, clock.nowIso(), from, to);
    rounds.push({ from, to });
  }
  const unmark = sqlite.prepare(
    `DELETE FROM voucher_marks WHERE api_key_id = ? AND person_id IN (SELECT id FROM people WHERE order_id BETWEEN ? AND ?)`,
  );
  const pages: Buffer[][] = [];
  for (const r of rounds) {
    unmark.run(boxKey, r.from, r.to);
    pages.push(await listAsTheBoxPulls(cloud.origin, cloud.keys.box));
  }
  const seedSeconds = (performance.now() - started) / 1000;
  process.send!({ type: 'ready', url: cloud.url, keys: cloud.keys, seedSeconds });
  process.on('message', async (m: { cmd: string; round?: number }) => {
    if (m.cmd === 'release') {
      const r = rounds[m.round!]!;
      for (const body of pages[m.round!]!)
        cloud.proxy.inject({
          fault: { kind: 'answer', status: 200, body },
          match: { method: 'GET', path: /\/api-vouchers$/, query: BOX_PULL_MATCH },
          times: 1,
        });
      process.send!({ type: 'released', orders: r.to - r.from + 1 });
    }
    if (m.cmd === 'close') {
      await cloud.close();
      process.exit(0);
    }
  });
}

/** Every page the box's incremental pull would get (and mark) now, as the cloud answers it. */
async function listAsTheBoxPulls(origin: string, key: string): Promise<Buffer[]> {
  const pages: Buffer[] = [];
  for (;;) {
    const res = await fetch(`${origin}/api/v1/api-vouchers?${BOX_PULL}`, { headers: { 'x-api-key': key } });
    const body = Buffer.from(await res.arrayBuffer());
    const page = JSON.parse(body.toString()) as { data?: { pedidos?: unknown[] } };
    if (res.status !== 200 || !page.data?.pedidos) throw new Error(`the cloud's listing answered ${res.status}`);
    if (page.data.pedidos.length === 0) return pages;
    pages.push(body);
  }
}

// Order numbers are YYYYMMDD-NNNN: the day part varies so that hundreds of thousands stay unique.
const numero = (n: number) => `${20270000 + Math.floor(n / 10_000) + 101}-${String(n % 10_000).padStart(4, '0')}`;

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
