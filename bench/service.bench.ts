import fs from 'node:fs';
import path from 'node:path';
import { createBox } from '../src/box.js';
import { checkinJson } from '../src/checkin/checkin.payload.js';
import type { CheckinCaller } from '../src/checkin/checkin.service.js';
import { createOrderReaders } from '../src/checkin/order-reader.js';
import { createClock } from '../src/clock.js';
import { migrateToLatest, openDatabase } from '../src/db/open.js';
import { fillDatabase, qrOf } from './fill.js';
import { heading, machine, out, table } from './report.js';

// `npm run bench:service`: server CPU per check-in of the check-in service alone (the part every door
// pays: rules, SQL, group commit) and with the HTTP door's answer (the order of 2.1–2.7 as JSON
// text), in this process, with no HTTP in between. `npm run bench` measures the whole box; this says
// how its check-in splits. Rounds alternate so that other load on the machine hits both.

const ORDERS = 60_000; // × 4 people: four scans of each order in a row, as in `npm run bench`
const ROUNDS = 5;
const PER_ROUND = 10_000;
const CONCURRENT = 50;
const dir = path.resolve('.bench-service');

fs.rmSync(dir, { recursive: true, force: true });
fs.mkdirSync(dir, { recursive: true });
try {
  out('Check-in service: CPU per check-in, alone and with the HTTP answer');
  machine().forEach((l) => out(l));
  const clock = createClock('America/Sao_Paulo');
  const file = path.join(dir, 'service.db');
  await fillDatabase(file, clock, ORDERS);
  const db = openDatabase(file);
  await migrateToLatest(db);
  const { app, checkin } = await createBox({ database: db, clock, logger: false }).start();
  const tenantId = db.sqlite.prepare("SELECT id FROM tenants WHERE slug = 'bench'").pluck().get() as number;
  const apiKeyId = db.sqlite.prepare('SELECT id FROM api_keys LIMIT 1').pluck().get() as number;
  const caller: CheckinCaller = { tenantId, apiKeyId, keyName: 'bench', source: 'api' };
  const order = createOrderReaders(db).forKey(apiKeyId);
  let next = 0;
  const round = async (answer: boolean, count: number) => {
    const started = process.cpuUsage();
    let sent = 0;
    await Promise.all(
      Array.from({ length: CONCURRENT }, async () => {
        while (sent < count) {
          sent++;
          const reply = await checkin.checkIn(
            { code: qrOf(next++), terminal: 'bench' },
            caller,
            answer ? { view: (g) => checkinJson(g, order) } : {},
          );
          if (reply.batch || !reply.result.ok) throw new Error(`refused: ${JSON.stringify(reply)}`);
        }
      }),
    );
    const cpu = process.cpuUsage(started);
    return (cpu.user + cpu.system) / count;
  };
  await round(true, 5_000); // warm-up
  const alone: number[] = [];
  const withAnswer: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    alone.push(await round(false, PER_ROUND));
    withAnswer.push(await round(true, PER_ROUND));
  }
  const median = (xs: number[]) => xs.slice().sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  heading(`${ROUNDS} rounds of ${PER_ROUND.toLocaleString('en-US')} check-ins each, ${CONCURRENT} at a time`);
  const us = (v: number) => `${v.toFixed(1)} µs`;
  table([
    ['', 'median CPU per check-in', 'by round'],
    ['service alone', us(median(alone)), alone.map((v) => v.toFixed(1)).join(', ')],
    ['with the HTTP answer', us(median(withAnswer)), withAnswer.map((v) => v.toFixed(1)).join(', ')],
    ['the answer', us(median(withAnswer) - median(alone)), ''],
  ]);
  await app.close();
  db.close();
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}
