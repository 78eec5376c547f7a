import { fork } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import pino from 'pino';
import { createCheckinService } from '../src/checkin/checkin.service.js';
import { createClock } from '../src/clock.js';
import { migrateToLatest, openDatabase } from '../src/db/open.js';
import { createCloudClient } from '../src/sync/cloud-client.js';
import { createOrderPuller, DEFAULT_PULL } from '../src/sync/pull.js';
import { createPusher, DEFAULT_PUSH } from '../src/sync/push.js';
import { createSyncState } from '../src/sync/state.js';
import { ensureTenant } from '../src/tenants/tenants.repo.js';

// `npm run bench:sync`: the sync worker against the fake cloud (a second box behind the fault proxy,
// in a child process) on loopback, with the production page and batch sizes. (1) ingest: the
// incremental pull of ORDERS new orders into an empty box; (2) drain: pushing ORDERS queued
// check-ins (made at the gate while the cloud was away). A measurement: it exits 0 when a target is
// missed, 1 when the run broke or the cloud's records disagree (not each check-in exactly once).

const ORDERS = Number(process.env.BENCH_ORDERS ?? 100_000);
const PEOPLE = 2;
const TARGET = { ordersPerSecond: 5_000, eventsPerSecond: 2_000 };
const TZ = 'America/Sao_Paulo';
const out = (line = '') => process.stdout.write(`${line}\n`);
const int = (v: number) => Math.round(v).toLocaleString('en-US');

interface Ready {
  type: 'ready';
  url: string;
  keys: { box: string; integration: string };
  today: string;
  seedSeconds: number;
}

async function main(): Promise<number> {
  const workDir = path.resolve('.bench-sync');
  fs.rmSync(workDir, { recursive: true, force: true });
  const here = path.dirname(fileURLToPath(import.meta.url));
  out('Gate appliance sync benchmark');
  out(`${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, node ${process.version}; work dir ${workDir} (deleted at the end)`);
  const child = fork(path.join(here, 'sync-cloud.js'), [String(ORDERS), String(PEOPLE)], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const next = <T>(type: string) => new Promise<T>((resolve, reject) => {
    const onMessage = (m: { type: string }) => {
      if (m.type !== type) return;
      child.off('message', onMessage);
      resolve(m as T);
    };
    child.on('message', onMessage);
    child.once('exit', (code) => reject(new Error(`fake cloud exited with ${code}`)));
  });
  try {
    const cloud = await next<Ready>('ready');
    out(`fake cloud: pid ${child.pid}, ${cloud.url}; seeded ${int(ORDERS)} paid orders × ${PEOPLE} people for ${cloud.today} in ${cloud.seedSeconds.toFixed(1)} s`);

    const clock = createClock(TZ);
    const db = openDatabase(path.join(workDir, 'gate.db'));
    await migrateToLatest(db);
    const log = pino({ level: 'silent' });
    const tenantId = ensureTenant(db.sqlite, db.kysely, 'parque', clock.nowIso());
    const state = createSyncState(db.sqlite, db.kysely, tenantId, clock);
    const client = createCloudClient({ url: cloud.url, apiKey: cloud.keys.box, integrationKey: cloud.keys.integration, timeoutMs: 30_000 });
    const signal = new AbortController().signal;
    const deps = { db, clock, log, client, tenantId, state };

    // 1. Ingest
    const puller = createOrderPuller({ ...deps, tuning: DEFAULT_PULL });
    // How long the event loop (where check-ins are decided) was blocked while syncing.
    const loopDelay = () => {
      const h = monitorEventLoopDelay({ resolution: 5 });
      h.enable();
      return () => {
        h.disable();
        return `event-loop delay meanwhile: p50 ${(h.percentile(50) / 1e6).toFixed(1)} ms, p99 ${(h.percentile(99) / 1e6).toFixed(1)} ms, max ${(h.max / 1e6).toFixed(1)} ms`;
      };
    };
    let delay = loopDelay();
    let t = performance.now();
    const stored = await puller.incremental(signal);
    const ingestSeconds = (performance.now() - t) / 1000;
    const ingestDelay = delay();
    const ordersPerSecond = stored / ingestSeconds;
    out();
    out(`1. ingest (GET api-vouchers sincronizado=false, pages of ${DEFAULT_PULL.pageSize}, one transaction per page)`);
    out(`   ${int(stored)} orders (${int(stored * PEOPLE)} people) in ${ingestSeconds.toFixed(2)} s: ${int(ordersPerSecond)} orders/s (target ≥ ${int(TARGET.ordersPerSecond)})`);
    out(`   ${ingestDelay}`);

    // 2. Queue check-ins through the real check-in service (the cloud is not called meanwhile).
    const checkin = createCheckinService({ db, clock });
    const caller = { tenantId, apiKeyId: null, keyName: 'catraca', source: 'api' };
    t = performance.now();
    const qrs = Array.from({ length: ORDERS }, (_, i) => `B${i}-1`);
    for (let i = 0; i < qrs.length; i += 500)
      await checkin.checkIn({ qr_code: qrs.slice(i, i + 500).join(','), terminal: `catraca-${(i / 500) % 4}`, operador: 'bench' }, caller);
    out();
    out(`2. queued ${int(qrs.length)} check-ins at the gate in ${((performance.now() - t) / 1000).toFixed(1)} s (4 terminals)`);

    // 3. Drain
    const pusher = createPusher({ ...deps, tuning: DEFAULT_PUSH });
    delay = loopDelay();
    t = performance.now();
    let settled = 0;
    for (let round = 0; round < 10; round++) {
      const r = await pusher.pushOnce(signal);
      settled += r.settled;
      if (r.pending === 0) break;
    }
    const drainSeconds = (performance.now() - t) / 1000;
    const eventsPerSecond = settled / drainSeconds;
    const drainDelay = delay();
    out(`3. drain (POST api-qrcode-checkin, batches of ${DEFAULT_PUSH.batchSize}, ${DEFAULT_PUSH.concurrency} in flight)`);
    out(`   ${int(settled)} events in ${drainSeconds.toFixed(2)} s: ${int(eventsPerSecond)} events/s (target ≥ ${int(TARGET.eventsPerSecond)})`);
    out(`   ${drainDelay}`);

    child.send({ cmd: 'applied' });
    const applied = await next<{ distinct: number; total: number; max: number }>('applied');
    const accepted = (db.sqlite.prepare(`select count(*) as n from sync_push where resultado = 'aceito'`).get() as { n: number }).n;
    out(`   cloud applied ${int(applied.total)} check-ins for ${int(applied.distinct)} QRs (at most ${applied.max} per QR); box: ${int(accepted)} accepted`);
    const valid = stored === ORDERS && applied.total === ORDERS && applied.distinct === ORDERS && applied.max === 1 && accepted === ORDERS;
    out();
    out(valid ? 'OK: every order ingested; every check-in applied exactly once' : 'INVALID RUN: the counts above disagree');
    out(`targets: ingest ${ordersPerSecond >= TARGET.ordersPerSecond ? 'met' : 'MISSED'}, drain ${eventsPerSecond >= TARGET.eventsPerSecond ? 'met' : 'MISSED'}`);

    await client.close();
    db.close();
    return valid ? 0 : 1;
  } finally {
    if (child.exitCode === null) {
      child.send({ cmd: 'close' });
      await new Promise((r) => child.once('exit', r));
    }
    fs.rmSync(workDir, { recursive: true, force: true });
  }
}

main().then(
  (code) => process.exit(code),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
