import { createClock } from '../src/clock.js';
import { startFakeCloud } from '../test/support/fake-cloud.js';
import { makeOrder } from '../test/support/fixtures.js';

// The fake cloud of `npm run bench:sync`, in its own process (the cloud is another machine: the box
// must not pay for the cloud's CPU). Talks to the parent over IPC.

const ORDERS = Number(process.argv[2] ?? 100_000);
const PEOPLE = Number(process.argv[3] ?? 2);
const TZ = 'America/Sao_Paulo';

async function main() {
  const clock = createClock(TZ);
  const cloud = await startFakeCloud({ clock, recordRequests: false });
  const today = clock.today();
  const started = performance.now();
  const chunk = 5_000;
  for (let i = 0; i < ORDERS; i += chunk) {
    const n = Math.min(chunk, ORDERS - i);
    // Order numbers are YYYYMMDD-NNNN: the day part varies so 100,000 of them stay unique.
    cloud.addOrders(
      Array.from({ length: n }, (_, j) =>
        makeOrder({ numero: numero(i + j), prefix: `B${i + j}`, people: PEOPLE, dataUso: today }),
      ),
    );
  }
  const seedSeconds = (performance.now() - started) / 1000;
  process.send!({ type: 'ready', url: cloud.url, keys: cloud.keys, today, seedSeconds });
  process.on('message', async (m: { cmd: string }) => {
    if (m.cmd === 'applied') {
      const counts = cloud.appliedCounts();
      process.send!({
        type: 'applied',
        distinct: counts.size,
        total: [...counts.values()].reduce((a, b) => a + b, 0),
        max: Math.max(0, ...counts.values()),
      });
    }
    if (m.cmd === 'close') {
      await cloud.close();
      process.exit(0);
    }
  });
}

const numero = (n: number) => `${20260000 + Math.floor(n / 10_000) + 101}-${String(n % 10_000).padStart(4, '0')}`;

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
