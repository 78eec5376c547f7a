import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { laneConfigSchema } from '../../src/gate/lanes/lane-config.js';
import { startBridgeBoard, type BridgeBoard } from '../support/bridge-board.js';
import { createTestBox, type TestBox } from '../support/box.js';
import { makeOrder } from '../support/fixtures.js';
import { openScannerSim, type ScannerSim } from '../support/lanes.js';
import { openLcusSim, type LcusSim } from '../support/lcus-sim.js';
import { openOsdpSim, type OsdpSim } from '../support/osdp-reader-sim.js';
import { openPtyPair, waitUntil, type PtyPair } from '../support/pty.js';

// Lanes of every relay driver on real ptys: the bridge firmware (whose fire input frees every
// lane), an LCUS module with a serial scanner, an OSDP reader that is its lane's scanner, and an
// exit lane (serial scanner, LCUS relay).

let box: TestBox;
const ptys: Record<'scanner' | 'bridge' | 'lcus' | 'osdp' | 'exitScanner' | 'exitLcus', PtyPair> = {} as never;
let board: BridgeBoard;
let lcus: LcusSim;
let exitLcus: LcusSim;
let osdp: OsdpSim;
let scanner: ScannerSim;
let exitScanner: ScannerSim;

const scan = (code: string) => scanner.scan(code);
async function gates(): Promise<any> {
  const res = await box.app.inject({ method: 'GET', url: '/api/local/gates', headers: { 'x-api-key': box.keys.all } });
  expect(res.statusCode).toBe(200);
  return res.json().data;
}
const lane = async (name: string) => (await gates()).pistas.find((p: { nome: string }) => p.nome === name);
const person = (qr: string) =>
  box.db.sqlite.prepare('select checkin_em, checkin_dispositivo from people where qr_code = ?').get(qr) as {
    checkin_em: string | null;
    checkin_dispositivo: string | null;
  };
// Generous: a loaded machine may be slow, never wrong; waits end on the event itself.
const WAIT_MS = 15_000;
const lastEventId = () => box.db.sqlite.prepare('select coalesce(max(id), 0) from lane_events').pluck().get() as number;
const laneEvents = (kind: string) =>
  box.db.sqlite.prepare('select lane, code, details from lane_events where kind = ? order by id').all(kind) as {
    lane: string;
    code: string | null;
    details: string | null;
  }[];

beforeAll(async () => {
  for (const name of ['scanner', 'bridge', 'lcus', 'osdp', 'exitScanner', 'exitLcus'] as const)
    ptys[name] = await openPtyPair(name);
  board = await startBridgeBoard(ptys.bridge.device);
  lcus = await openLcusSim(ptys.lcus.device);
  exitLcus = await openLcusSim(ptys.exitLcus.device);
  osdp = await openOsdpSim(ptys.osdp.device, [{ address: 5 }]);
  const config = laneConfigSchema.parse({
    lanes: [
      {
        name: 'norte',
        direction: 'entrada',
        operador: 'Norte',
        scanners: [{ path: '/tmp/unused-norte-scanner' }],
        relay: { driver: 'bridge', path: ptys.bridge.box, heartbeatTimeoutMs: 1000 },
      },
      {
        name: 'sul',
        direction: 'entrada',
        operador: 'Sul',
        debounceMs: 0,
        scanners: [{ path: ptys.scanner.box }],
        relay: { driver: 'lcus', path: ptys.lcus.box, pulseMs: 200, channel: 2 },
      },
      {
        name: 'leste',
        direction: 'entrada',
        operador: 'Leste',
        debounceMs: 0,
        scanners: [],
        relay: { driver: 'osdp', path: ptys.osdp.box, address: 5, output: 1, pulseMs: 300 },
      },
      {
        name: 'oeste',
        direction: 'saida',
        operador: 'Oeste',
        debounceMs: 0,
        scanners: [{ path: ptys.exitScanner.box }],
        relay: { driver: 'lcus', path: ptys.exitLcus.box, pulseMs: 200, channel: 1 },
      },
    ],
  });
  box = await createTestBox({
    lanes: { config },
  });
  box.importOrders([makeOrder({ prefix: 'MIX', people: 4 })]);
  scanner = await openScannerSim(ptys.scanner.device);
  exitScanner = await openScannerSim(ptys.exitScanner.device);
  await board.waitFor('online', 1, { timeoutMs: WAIT_MS });
  await waitUntil(async () => (await lane('leste')).rele.online, WAIT_MS, 'OSDP reader online');
}, 45_000);

afterAll(async () => {
  await scanner?.close();
  await exitScanner?.close();
  await box?.close();
  await exitLcus?.close();
  await board?.stop();
  await lcus?.close();
  await osdp?.close();
  for (const p of Object.values(ptys)) await p.close();
});

describe('lanes with every relay driver', () => {
  it('an LCUS lane pulses its channel for a grant and says on /api/local/gates that it cannot fail safe', async () => {
    const before = lcus.changes.length;
    await scan('MIX-1');
    // What the module was told, in order: a 200 ms pulse is over before a busy machine looks at its state.
    const told = () =>
      lcus.changes
        .slice(before)
        .filter((c) => c.channel === 2)
        .map((c) => (c.on ? 'on' : 'off'));
    await waitUntil(() => told().join(' ').includes('on off'), WAIT_MS, 'LCUS channel 2 on, then off again');
    expect(person('MIX-1').checkin_dispositivo).toBe('sul');
    // The scan-to-grant time is on /metrics, by lane.
    const metrics = (await box.app.inject({ method: 'GET', url: '/metrics', remoteAddress: '127.0.0.1' })).body;
    expect(Number(/^gate_lane_grant_seconds_count\{pista="sul"\} (\d+)$/m.exec(metrics)?.[1])).toBe(1);
    const sul = await lane('sul');
    expect(sul.falha_segura).toBe(false);
    expect(sul.rele).toMatchObject({ driver: 'lcus', online: true });
    expect(sul.rele.problema).toMatch(/LCUS/);
  });

  it('an OSDP reader is its lane scanner: its RAW read checks in and pulses the configured output', async () => {
    const reader = osdp.reader(5);
    reader.scan('MIX-2');
    await waitUntil(() => reader.output(1).changes.some((c) => c.on), WAIT_MS, 'OSDP output 1 on');
    expect(person('MIX-2')).toMatchObject({ checkin_dispositivo: 'leste' });
    expect(person('MIX-2').checkin_em).not.toBeNull();
    reader.scan('MIX-2');
    await waitUntil(() => laneEvents('negada').some((e) => e.lane === 'leste'), WAIT_MS, 'OSDP deny');
    expect(JSON.parse(laneEvents('negada').find((e) => e.lane === 'leste')!.details!)).toEqual({
      motivo: 'TICKET_ALREADY_USED',
      sinal: 'already_used',
    });
  });

  it('a code longer than an OSDP reader can send (64 bytes) is refused with its reason, never looked up cut short', async () => {
    const reader = osdp.reader(5);
    const ledsBefore = reader.leds.length;
    const denied = () => laneEvents('negada').filter((e) => e.lane === 'leste');
    const before = denied().length;
    reader.scan(`MIX-${'9'.repeat(80)}`);
    await waitUntil(() => denied().length === before + 1, WAIT_MS, 'long read refused');
    expect(JSON.parse(denied().at(-1)!.details!)).toEqual({ motivo: 'LEITURA_TOO_LONG', sinal: 'not_found' });
    expect(denied().at(-1)!.code).toBeNull();
    await waitUntil(() => reader.leds.length > ledsBefore, WAIT_MS, 'red LED');
    // One byte under the cap is a whole code: it is looked up (and not found).
    reader.scan(`MIX-${'9'.repeat(59)}`);
    await waitUntil(() => denied().length === before + 2, WAIT_MS, 'short read looked up');
    expect(JSON.parse(denied().at(-1)!.details!)).toMatchObject({ motivo: 'TICKET_NOT_FOUND' });
  });

  it('an exit lane lets out someone who came in (an exit, not a check-in) and a visitor with no entry, by the default policy', async () => {
    await scan('MIX-3');
    await waitUntil(() => person('MIX-3').checkin_em !== null, WAIT_MS, 'MIX-3 in');
    const inside = async () => (await gates()).ocupacao.find((o: { area: string }) => o.area === 'parque').dentro;
    const before = await inside();
    const opened = () => exitLcus.changes.filter((c) => c.channel === 1 && c.on).length;
    await exitScanner.scan('MIX-3');
    await waitUntil(() => opened() === 1, WAIT_MS, 'exit relay on');
    expect(await inside()).toBe(before - 1);
    expect(person('MIX-3').checkin_dispositivo).toBe('sul');
    await exitScanner.scan('MIX-4');
    await waitUntil(() => opened() === 2, WAIT_MS, 'exit relay on for a visitor with no entry');
    expect(person('MIX-4').checkin_em).toBeNull();
    const exits = laneEvents('liberada')
      .filter((e) => e.lane === 'oeste')
      .map((e) => [e.code, JSON.parse(e.details!)]);
    expect(exits).toEqual([
      ['MIX-3', { movimento: 'saida' }],
      ['MIX-4', { movimento: 'saida', sem_entrada: true }],
    ]);
    expect((await lane('oeste')).direcao).toBe('saida');
  });

  it('the fire input of one bridge board holds every lane open until it clears', async () => {
    await board.setFire(true);
    await waitUntil(() => lcus.isOn(2) && osdp.reader(5).output(1).on, WAIT_MS, 'LCUS and OSDP held open');
    const during = await gates();
    expect(during.alarme_incendio).toMatchObject({ ativo: true, origens: ['norte'] });
    expect(during.pistas.map((p: { rele: { passagem_livre: boolean } }) => p.rele.passagem_livre)).toEqual([
      true,
      true,
      true,
      true,
    ]);
    await board.setFire(false);
    await waitUntil(() => !lcus.isOn(2) && !osdp.reader(5).output(1).on, WAIT_MS, 'LCUS and OSDP released');
    expect((await gates()).alarme_incendio.ativo).toBe(false);
  });

  it('a silent OSDP reader shows offline and is recorded as such, then comes back by itself', async () => {
    const reader = osdp.reader(5);
    const from = lastEventId();
    const leste = () =>
      box.db.sqlite
        .prepare(
          "select kind from lane_events where id > ? and lane = 'leste' and kind like 'dispositivo_%' order by id",
        )
        .pluck()
        .all(from) as string[];
    reader.silent = true;
    await waitUntil(() => leste().length === 1, WAIT_MS, 'offline event');
    expect((await lane('leste')).rele.online).toBe(false);
    reader.silent = false;
    await waitUntil(() => leste().length === 2, WAIT_MS, 'online event');
    expect((await lane('leste')).rele.online).toBe(true);
    expect(leste()).toEqual(['dispositivo_offline', 'dispositivo_online']);
  }, 45_000);

  it('a lane whose scanner port does not exist keeps retrying and shows it, without stopping the others', async () => {
    const norte = await lane('norte');
    expect(norte.leitores).toEqual([
      expect.objectContaining({
        porta: '/tmp/unused-norte-scanner',
        conectado: false,
        ultimo_erro: expect.any(String),
      }),
    ]);
    expect(norte.rele.online).toBe(true);
  });
});
