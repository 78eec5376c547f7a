import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { laneConfigSchema } from '../../src/gate/lanes/lane-config.js';
import { createTestBox, type TestBox } from '../support/box.js';
import { makeOrder } from '../support/fixtures.js';
import { openScannerSim, type ScannerSim } from '../support/lanes.js';
import { openLcusSim, type LcusSim } from '../support/lcus-sim.js';
import { openPtyPair, waitUntil, type PtyPair } from '../support/pty.js';

// Device offline/online lane events come from the ports and drivers themselves, not from a
// periodic sample: every change is recorded once, in order, however short the outage.

// Generous: a loaded machine may be slow, never wrong; every wait ends on the event itself.
const WAIT_MS = 15_000;

let box: TestBox;
let scannerA: PtyPair;
let relayA: PtyPair;
let scannerB: PtyPair;
let relayB: PtyPair;
let scanner: ScannerSim;
let lcus: LcusSim;
let lcusB: LcusSim;

type DeviceEvent = { lane: string; kind: string; dispositivo: string };
const lastId = () => box.db.sqlite.prepare('select coalesce(max(id), 0) from lane_events').pluck().get() as number;
const deviceEvents = (afterId: number, lane: string) =>
  (
    box.db.sqlite
      .prepare(
        "select lane, kind, json_extract(details, '$.dispositivo') as dispositivo from lane_events where id > ? and lane = ? and kind like 'dispositivo_%' order by id",
      )
      .all(afterId, lane) as DeviceEvent[]
  ).map((e) => `${e.dispositivo} ${e.kind.replace('dispositivo_', '')}`);
const laneEvents = (afterId: number, kind: string) =>
  box.db.sqlite
    .prepare('select code from lane_events where id > ? and kind = ? order by id')
    .pluck()
    .all(afterId, kind) as string[];
async function lane(name: string) {
  const res = await box.app.inject({ method: 'GET', url: '/api/local/gates', headers: { 'x-api-key': box.keys.all } });
  return (res.json() as any).data.pistas.find((p: { nome: string }) => p.nome === name);
}
/** Lane events are written in the order they happen: once a later one is in, every earlier one is. */
async function flushedBy(afterId: number, code: string) {
  await scanner.scan(code);
  await waitUntil(() => laneEvents(afterId, 'negada').includes(code), WAIT_MS, `the refusal of ${code}`);
}

beforeAll(async () => {
  scannerA = await openPtyPair('scanner-a');
  relayA = await openPtyPair('lcus-a');
  scannerB = await openPtyPair('scanner-b');
  relayB = await openPtyPair('lcus-b');
  // Lane b's scanner is not plugged in when the box starts.
  await scannerB.unplug();
  lcus = await openLcusSim(relayA.device);
  lcusB = await openLcusSim(relayB.device);
  const config = laneConfigSchema.parse({
    lanes: [
      {
        name: 'a',
        direction: 'entrada',
        operador: 'A',
        debounceMs: 0,
        scanners: [{ path: scannerA.box }],
        relay: { driver: 'lcus', path: relayA.box, pulseMs: 100 },
      },
      {
        name: 'b',
        direction: 'entrada',
        operador: 'B',
        debounceMs: 0,
        scanners: [{ path: scannerB.box }],
        relay: { driver: 'lcus', path: relayB.box, pulseMs: 100 },
      },
    ],
  });
  box = await createTestBox({
    lanes: { config },
  });
  box.importOrders([makeOrder({ prefix: 'DEV', people: 3 })]);
  scanner = await openScannerSim(scannerA.device);
}, 30_000);

afterAll(async () => {
  await scanner?.close();
  await box?.close();
  await lcus?.close();
  await lcusB?.close();
  for (const p of [scannerA, relayA, scannerB, relayB]) await p?.close();
});

describe('device offline/online lane events', () => {
  it('devices up from the start leave no event; a scanner missing at start leaves one offline, then one online when plugged in', async () => {
    await waitUntil(() => deviceEvents(0, 'b').length === 1, WAIT_MS, 'the missing scanner recorded offline');
    expect(deviceEvents(0, 'b')).toEqual(['leitor offline']);
    expect((await lane('b')).leitores[0].conectado).toBe(false);
    await waitUntil(
      async () => (await lane('a')).leitores[0].conectado && (await lane('a')).rele.online,
      WAIT_MS,
      'lane a up',
    );
    await flushedBy(0, 'NOPE-1');
    expect(deviceEvents(0, 'a')).toEqual([]);

    await scannerB.replug();
    await waitUntil(() => deviceEvents(0, 'b').length === 2, WAIT_MS, 'the scanner recorded online');
    expect(deviceEvents(0, 'b')).toEqual(['leitor offline', 'leitor online']);
    expect((await lane('b')).leitores[0].conectado).toBe(true);
  });

  it('a scanner cable and a relay cable out and back at once each leave one offline and one online event, in order, and the lane works again', async () => {
    const from = lastId();
    await scanner.close();
    // Out and straight back in: far less than a second, the period the events were once sampled at.
    await scannerA.unplug();
    await scannerA.replug();
    await relayA.unplug();
    await relayA.replug();
    await lcus.close();
    lcus = await openLcusSim(relayA.device);
    scanner = await openScannerSim(scannerA.device);

    await waitUntil(() => deviceEvents(from, 'a').length === 4, WAIT_MS, 'both devices lost and back');
    const events = deviceEvents(from, 'a');
    expect(events.filter((e) => e.startsWith('leitor'))).toEqual(['leitor offline', 'leitor online']);
    expect(events.filter((e) => e.startsWith('rele'))).toEqual(['rele offline', 'rele online']);
    expect(await lane('a')).toMatchObject({
      leitores: [expect.objectContaining({ conectado: true, reconexoes: 1 })],
      rele: expect.objectContaining({ online: true }),
    });

    const opened = lcus.changes.filter((c) => c.channel === 1 && c.on).length;
    await scanner.scan('DEV-1');
    await waitUntil(
      () => lcus.changes.filter((c) => c.channel === 1 && c.on).length > opened,
      WAIT_MS,
      'the relay to open for the next scan',
    );
    await flushedBy(from, 'NOPE-2');
    // Nothing more came after the return.
    expect(deviceEvents(from, 'a')).toEqual(events);
    expect(deviceEvents(from, 'b')).toEqual([]);
  });
});
