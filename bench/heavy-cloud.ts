import { addDays, createClock } from '../src/clock.js';
import { startFakeCloud } from '../test/support/fake-cloud.js';
import { makeOrder } from '../test/support/fixtures.js';

// The fake cloud of `npm run bench:heavy` (test/support/fake-cloud.ts: a second box serving the spec's cloud side), in
// its own process: `<rounds> <orders per round> <people per order>`. Every round's orders are made at the start and
// marked as already delivered to the box's key, so the box's pulls find nothing new; {cmd:'release', round} takes the
// marks of that round's orders off, as new sales would appear, and the box's next scheduled pull ingests them. Their
// use date is past the box's refresh window (GATE_SYNC_DAYS_AHEAD), so only the incremental pull reads them.

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
  const seedSeconds = (performance.now() - started) / 1000;
  process.send!({ type: 'ready', url: cloud.url, keys: cloud.keys, seedSeconds });
  const release = sqlite.prepare(
    `DELETE FROM voucher_marks WHERE api_key_id = ? AND person_id IN (SELECT id FROM people WHERE order_id BETWEEN ? AND ?)`,
  );
  process.on('message', async (m: { cmd: string; round?: number }) => {
    if (m.cmd === 'release') {
      const r = rounds[m.round!]!;
      release.run(boxKey, r.from, r.to);
      process.send!({ type: 'released', orders: r.to - r.from + 1 });
    }
    if (m.cmd === 'close') {
      await cloud.close();
      process.exit(0);
    }
  });
}

// Order numbers are YYYYMMDD-NNNN: the day part varies so that hundreds of thousands stay unique.
const numero = (n: number) => `${20270000 + Math.floor(n / 10_000) + 101}-${String(n % 10_000).padStart(4, '0')}`;

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
