import fs from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { createCheckinService, type CheckinService } from '../src/checkin/checkin.service.js';
import type { Granted } from '../src/checkin/result.js';
import { createClock } from '../src/clock.js';
import { migrateToLatest, openDatabase } from '../src/db/open.js';
import { laneConfigSchema } from '../src/gate/lanes/lane-config.js';
import { startLanes } from '../src/gate/register.js';
import { startBridgeBoard, type BridgeBoard } from '../test/support/bridge-board.js';
import { openScannerSim, silentLog, type ScannerSim } from '../test/support/lanes.js';
import { openPtyPair, type PtyPair } from '../test/support/pty.js';
import { fillDatabase, qrOf, TENANT } from './fill.js';
import { heading, int, machine, ms, out, summarise, table } from './report.js';

// `npm run bench:gate`: from the last byte of a scan written to the scanner pty to the GRANT the
// host-built bridge firmware reads on the relay pty, one scan at a time. The box side is the real
// thing: serial link, scanner splitter, lane, the durable check-in service, the bridge driver.
// Baseline, same run, same ptys and firmware: the lane with a check-in that does no database work.
// A measurement, not a test: exits 0 when the target is missed, 1 when the run broke.

const SCANS = Number(process.env.BENCH_SCANS ?? 10_000);
const BLOCK = 1_000; // baseline and check-in take turns in blocks, so other load hits both
const ORDERS = Math.ceil(SCANS / 4) + 100;
const TARGET_P99_MS = 15;

const workDir = path.resolve('.bench-gate');
const granted: Granted = {
  ok: true,
  target: 'person',
  code: '',
  movement: 'checkin',
  at: '',
  orderId: null,
  numeroPedido: null,
  people: [],
  totalPessoas: 1,
  additional: null,
  withoutEntry: false,
};
const noDatabase = {
  checkIn: async () => ({ batch: false, result: granted, view: undefined }),
  reverse: async () => ({ batch: false, result: { ok: false, code: 'SEM_CHECKIN' }, view: undefined }),
  move: async () => granted,
  occupancy: () => [],
} as unknown as CheckinService;

interface Rig {
  scannerPty: PtyPair;
  bridgePty: PtyPair;
  board: BridgeBoard;
  scanner: ScannerSim;
  close(): Promise<void>;
}

/** One lane on its own ptys and its own firmware process, served by `checkin`. */
async function rig(
  name: string,
  checkin: CheckinService,
  deps: { db: ReturnType<typeof openDatabase>; tenantId: number; clock: ReturnType<typeof createClock> },
): Promise<Rig> {
  const scannerPty = await openPtyPair(`${name}-scanner`);
  const bridgePty = await openPtyPair(`${name}-bridge`);
  const board = await startBridgeBoard(bridgePty.device);
  const config = laneConfigSchema.parse({
    lanes: [
      {
        name,
        direction: 'entrada',
        operador: 'bench',
        debounceMs: 0,
        scanners: [{ path: scannerPty.box, suffix: 'cr' }],
        relay: { driver: 'bridge', path: bridgePty.box, pulseMs: 50 },
      },
    ],
  });
  const lanes = startLanes({
    config,
    db: deps.db,
    clock: deps.clock,
    checkin,
    tenantId: deps.tenantId,
    log: silentLog,
  });
  await board.waitFor('online', 1, { timeoutMs: 10_000 });
  const scanner = await openScannerSim(scannerPty.device);
  return {
    scannerPty,
    bridgePty,
    board,
    scanner,
    async close() {
      await scanner.close();
      await lanes.gates.close();
      await board.stop();
      await scannerPty.close();
      await bridgePty.close();
    },
  };
}

/** One scan: write the code and its CR, wait for the GRANT line of the firmware; milliseconds. */
async function scanOnce(r: Rig, code: string): Promise<number> {
  const since = r.board.mark();
  const t0 = performance.now();
  await r.scanner.scan(code);
  const grant = await r.board.waitFor('grant', undefined, { since, timeoutMs: 5_000 });
  return grant.hostMs - t0;
}

async function main(): Promise<number> {
  fs.rmSync(workDir, { recursive: true, force: true });
  fs.mkdirSync(workDir, { recursive: true });
  out('Gate appliance lane benchmark: scan → durable check-in → GRANT at the bridge firmware');
  machine().forEach((l) => out(l));
  const clock = createClock('America/Sao_Paulo');
  const dbFile = path.join(workDir, 'gate.db');
  await fillDatabase(dbFile, clock, ORDERS);
  const db = openDatabase(dbFile);
  await migrateToLatest(db);
  const tenantId = db.sqlite.prepare('select id from tenants where slug = ?').pluck().get(TENANT) as number;
  const checkin = createCheckinService({ db, clock });
  const deps = { db, tenantId, clock };
  const real = await rig('checkin', checkin, deps);
  const base = await rig('baseline', noDatabase, deps);
  try {
    heading(`${int(SCANS)} scans each, one at a time, in blocks of ${int(BLOCK)} taking turns`);
    const times = { base: [] as number[], real: [] as number[] };
    // Warm-up: JIT, statement caches, the ptys.
    for (let i = 0; i < 200; i++) await scanOnce(base, `WARM${i}`);
    let next = SCANS; // people 0..SCANS-1 are measured; the warm-up uses the ones after
    for (let i = 0; i < 200; i++) await scanOnce(real, qrOf(next++));
    for (let done = 0; done < SCANS; done += BLOCK) {
      for (let i = done; i < Math.min(SCANS, done + BLOCK); i++) times.base.push(await scanOnce(base, `B${i}`));
      for (let i = done; i < Math.min(SCANS, done + BLOCK); i++) times.real.push(await scanOnce(real, qrOf(i)));
    }
    const checkedIn = db.sqlite
      .prepare("select count(*) from events where source = 'lane' and result = 'ok'")
      .pluck()
      .get() as number;
    const b = summarise(times.base);
    const r = summarise(times.real);
    table([
      ['lane', 'scans', 'p50', 'p90', 'p99', 'max'],
      ['baseline (no database)', int(b.n), ms(b.p50), ms(b.p90), ms(b.p99), ms(b.max)],
      ['check-in (durable)', int(r.n), ms(r.p50), ms(r.p90), ms(r.p99), ms(r.max)],
    ]);
    out(`check-ins recorded by the lane: ${int(checkedIn)} (expected ${int(SCANS + 200)})`);
    out(`ratio p50 check-in / baseline: ${(r.p50 / b.p50).toFixed(2)}; p99: ${(r.p99 / b.p99).toFixed(2)}`);
    out(`TARGET p99 scan → GRANT < ${TARGET_P99_MS} ms: ${ms(r.p99)} ${r.p99 < TARGET_P99_MS ? 'PASS' : 'FAIL'}`);
    out(`machine: ${machine().join('; ')}`);
    return checkedIn === SCANS + 200 ? 0 : 1;
  } finally {
    await real.close();
    await base.close();
    db.close();
    fs.rmSync(workDir, { recursive: true, force: true });
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
