import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { laneConfigSchema } from '../../src/gate/lanes/lane-config.js';
import { createTestBox, type TestBox } from '../support/box.js';
import { makeOrder } from '../support/fixtures.js';
import { openScannerSim, type ScannerSim } from '../support/lanes.js';
import { openLcusSim, type LcusSim } from '../support/lcus-sim.js';
import { openPtyPair, type PtyPair } from '../support/pty.js';
import { startHub, type TestHub, siteLinkOf } from '../support/site-hub.js';
import { eventually } from '../support/sync-gate.js';

// Two entrances far apart, each a box with a turnstile (a serial scanner and an LCUS relay on real ptys), one
// hub: the same QR read at both turnstiles at once opens exactly one of them, every time.

const BOXES = ['norte', 'sul'];
let hub: TestHub;
const sites: { box: TestBox; scanner: ScannerSim; relay: LcusSim; ptys: PtyPair[] }[] = [];

async function entrance(name: string) {
  const ptys = [await openPtyPair(`${name}-scanner`), await openPtyPair(`${name}-relay`)];
  const [scannerPty, relayPty] = ptys as [PtyPair, PtyPair];
  const relay = await openLcusSim(relayPty.device);
  const box = await createTestBox({
    lanes: {
      config: laneConfigSchema.parse({
        lanes: [
          {
            name: `${name}-1`,
            direction: 'entrada',
            operador: name,
            debounceMs: 0,
            scanners: [{ path: scannerPty.box }],
            relay: { driver: 'lcus', path: relayPty.box, pulseMs: 100, channel: 1 },
          },
        ],
      }),
    },
    siteLink: siteLinkOf(hub, name, BOXES),
  });
  box.importOrders([makeOrder({ numero: '20261121-0001', prefix: 'L', people: 10 })]);
  const scanner = await openScannerSim(scannerPty.device);
  await eventually(`${name} on the site`, () => box.status.site()?.modo === 'site');
  await eventually(`${name}'s lane online`, () => {
    const lane = box.status.lanes()?.lanes[0];
    return lane?.relay.online === true && lane.scanners.every((sc) => sc.up);
  });
  sites.push({ box, scanner, relay, ptys });
}

beforeAll(async () => {
  hub = await startHub({ boxes: BOXES });
  for (const name of BOXES) await entrance(name);
});
afterAll(async () => {
  for (const s of sites) {
    await s.scanner.close();
    await s.relay.close();
    await s.box.close();
    for (const p of s.ptys) await p.close();
  }
  await hub.close();
});

/** Relay openings (channel on) of a turnstile so far. */
const openings = (relay: LcusSim) => relay.changes.filter((c) => c.on).length;
const granted = (box: TestBox) =>
  box.db.sqlite.prepare("select count(*) from lane_events where kind = 'liberada'").pluck().get() as number;
const denied = (box: TestBox) =>
  box.db.sqlite.prepare("select count(*) from lane_events where kind = 'negada'").pluck().get() as number;

describe('one QR at two turnstiles of two boxes at once', () => {
  it('opens exactly one of them, ten times out of ten', async () => {
    for (let n = 1; n <= 10; n++) {
      await Promise.all(sites.map((s) => s.scanner.scan(`L-${n}`)));
      await eventually(`both lanes decided L-${n}`, () => sites.every((s) => granted(s.box) + denied(s.box) === n));
      expect(sites.reduce((sum, s) => sum + granted(s.box), 0)).toBe(n);
    }
    await eventually('relays pulsed', () => sites.reduce((sum, s) => sum + openings(s.relay), 0) === 10);
    for (const s of sites) expect(s.box.status.site()).toMatchObject({ decisoes_sem_site_hoje: 0 });
  });
});
