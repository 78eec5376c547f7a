import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DenyPattern } from '../../src/gate/relays/bridge/bridge-codec.js';
import type { BridgeBoard } from '../support/bridge-board.js';
import { createTestBox, type TestBox } from '../support/box.js';
import { startBridgeLaneRig, type BridgeLaneRig } from '../support/bridge-lane.js';
import { makeOrder } from '../support/fixtures.js';
import { openScannerSim, type ScannerSim } from '../support/lanes.js';
import { waitUntil, type PtyPair } from '../support/pty.js';

// The whole path on real serial lines: a scanner writing to a socat pty, the box (check-in service,
// lane, serial link, bridge driver) and the host-built bridge firmware on the relay pty.

let box: TestBox;
let rig: BridgeLaneRig;
let scannerPty: PtyPair;
let bridgePty: PtyPair;
let board: BridgeBoard;
let scanner: ScannerSim;

const scan = (code: string) => scanner.scan(code);

async function gates(): Promise<{ data: any }> {
  const res = await box.app.inject({ method: 'GET', url: '/api/local/gates', headers: { 'x-api-key': box.keys.all } });
  expect(res.statusCode).toBe(200);
  return res.json();
}
const laneEvents = (kind: string) =>
  box.db.sqlite.prepare('select lane, kind, code, details from lane_events where kind = ? order by id').all(kind) as {
    lane: string;
    kind: string;
    code: string | null;
    details: string | null;
  }[];
const lastEventId = () => box.db.sqlite.prepare('select coalesce(max(id), 0) from lane_events').pluck().get() as number;
/** Offline/online lane events of one kind of device after `afterId`, in order. */
const deviceEvents = (afterId: number, dispositivo: 'leitor' | 'rele') =>
  box.db.sqlite
    .prepare(
      "select kind from lane_events where id > ? and kind like 'dispositivo_%' and json_extract(details, '$.dispositivo') = ? order by id",
    )
    .pluck()
    .all(afterId, dispositivo) as string[];
// Generous: a loaded machine may be slow, never wrong; waits end on the event itself.
const WAIT_MS = 15_000;
const checkedIn = (qr: string) =>
  box.db.sqlite
    .prepare('select checkin_em, checkin_dispositivo, checkin_operador from people where qr_code = ?')
    .get(qr) as Record<string, string | null>;

beforeAll(async () => {
  rig = await startBridgeLaneRig();
  ({ scannerPty, bridgePty, board } = rig);
  box = await createTestBox({ lanes: rig.lanes });
  box.importOrders([
    makeOrder({ prefix: 'OK', people: 6 }),
    makeOrder({ prefix: 'OLD', dataUso: '2026-11-20' }),
    makeOrder({ prefix: 'SOON', dataUso: '2026-11-22' }),
    makeOrder({ prefix: 'GONE', status: 'cancelado' }),
  ]);
  scanner = await openScannerSim(scannerPty.device);
  await board.waitFor('online', 1, { timeoutMs: WAIT_MS });
}, 45_000);

afterAll(async () => {
  await scanner?.close();
  await box?.close();
  await rig?.close();
});

describe('a bridge lane on real ptys', () => {
  it('a valid scan checks in with the lane as terminal and pulses the relay on the board', async () => {
    const since = board.mark();
    await scan('OK-1');
    await board.waitFor('grant', undefined, { since });
    await board.waitFor('relay', 1, { since });
    await board.waitFor('relay', 0, { since });
    expect(checkedIn('OK-1')).toMatchObject({ checkin_dispositivo: 'entrada-1', checkin_operador: 'Catraca Norte' });
    expect(checkedIn('OK-1').checkin_em).not.toBeNull();
    await board.setPassage();
    await waitUntil(() => laneEvents('passagem').length === 1, WAIT_MS, 'passage event');
    expect(laneEvents('liberada')).toMatchObject([{ lane: 'entrada-1', code: 'OK-1' }]);
  });

  it('each refusal shows its own deny pattern on the board and never energises the relay', async () => {
    const cases: [string, number][] = [
      ['OK-1', DenyPattern.ALREADY_USED],
      ['OLD-1', DenyPattern.EXPIRED],
      ['SOON-1', DenyPattern.NOT_YET_VALID],
      ['NOPE-1', DenyPattern.NOT_FOUND],
      ['GONE-1', DenyPattern.CANCELLED],
    ];
    for (const [code, pattern] of cases) {
      const since = board.mark();
      await scan(code);
      const deny = await board.waitFor('deny', undefined, { since });
      expect({ code, pattern: deny.value }).toEqual({ code, pattern });
      expect(board.events.slice(since).some((e) => e.what === 'relay' && e.value === 1)).toBe(false);
    }
    expect(laneEvents('negada').map((e) => [e.code, JSON.parse(e.details!).sinal])).toEqual([
      ['OK-1', 'already_used'],
      ['OLD-1', 'expired'],
      ['SOON-1', 'not_yet_valid'],
      ['NOPE-1', 'not_found'],
      ['GONE-1', 'cancelled'],
    ]);
  });

  it('a grant nobody passes through is reversed after the passage timeout; a passage without a grant is tailgating', async () => {
    const since = board.mark();
    await scan('OK-2');
    await board.waitFor('grant', undefined, { since });
    await waitUntil(() => laneEvents('nao_passou').length === 1, WAIT_MS, 'not passed');
    expect(checkedIn('OK-2').checkin_em).toBeNull();
    expect(JSON.parse(laneEvents('nao_passou')[0]!.details!)).toEqual({ causa: 'tempo_esgotado', estornado: true });
    await board.setPassage();
    await waitUntil(() => laneEvents('carona').length === 1, WAIT_MS, 'tailgating');
    const lane = (await gates()).data.pistas[0];
    expect(lane.contadores).toMatchObject({ nao_passaram: 1, caronas: 1, passagens: 1 });
  });

  it('the fire input frees the lane and shows on /api/local/gates until it clears', async () => {
    await board.setFire(true);
    await waitUntil(async () => (await gates()).data.alarme_incendio.ativo, WAIT_MS, 'fire alarm');
    expect(board.relayOn()).toBe(true);
    expect((await gates()).data.alarme_incendio.origens).toEqual(['entrada-1']);
    await board.setFire(false);
    await waitUntil(async () => !(await gates()).data.alarme_incendio.ativo, WAIT_MS, 'fire cleared');
    await waitUntil(() => !board.relayOn(), WAIT_MS, 'relay released');
    expect(laneEvents('incendio_inicio')).toHaveLength(1);
    expect(laneEvents('incendio_fim')).toHaveLength(1);
  });

  it('a scanner unplugged and plugged back is shown offline, then reconnects by itself and scans again', async () => {
    const from = lastEventId();
    await scanner.close();
    await scannerPty.unplug();
    // The event is written once the port is known lost, and the port stays lost until the replug.
    await waitUntil(() => deviceEvents(from, 'leitor').length === 1, WAIT_MS, 'scanner offline event');
    expect((await gates()).data.pistas[0].leitores[0].conectado).toBe(false);
    await scannerPty.replug();
    await waitUntil(() => deviceEvents(from, 'leitor').length === 2, WAIT_MS, 'scanner online event');
    expect((await gates()).data.pistas[0].leitores[0].conectado).toBe(true);
    scanner = await openScannerSim(scannerPty.device);
    const since = board.mark();
    await scan('OK-3');
    await board.waitFor('grant', undefined, { since, timeoutMs: WAIT_MS });
    // Recorded by the port itself: exactly one loss and one return, in order.
    expect(deviceEvents(from, 'leitor')).toEqual(['dispositivo_offline', 'dispositivo_online']);
    expect(deviceEvents(from, 'rele')).toEqual([]);
  }, 45_000);

  it('the bridge board cable out and straight back in leaves one offline and one online event, and the board grants again', async () => {
    const from = lastEventId();
    await bridgePty.unplug();
    await bridgePty.replug();
    // A new session: the board reopens its tty by itself, the box waits for a BOOT, then says HELLO.
    await waitUntil(() => deviceEvents(from, 'rele').length === 2, WAIT_MS, 'relay offline and online events');
    expect(deviceEvents(from, 'rele')).toEqual(['dispositivo_offline', 'dispositivo_online']);
    expect((await gates()).data.pistas[0].rele.online).toBe(true);
    const since = board.mark();
    await scan('OK-5');
    await board.waitFor('grant', undefined, { since, timeoutMs: WAIT_MS });
    expect(deviceEvents(from, 'rele')).toEqual(['dispositivo_offline', 'dispositivo_online']);
  }, 45_000);

  it('a board reset is followed by a new handshake, and the next scan is granted', async () => {
    const before = board.mark();
    await board.reset();
    await board.waitFor('online', 1, { since: before, timeoutMs: WAIT_MS });
    const since = board.mark();
    await scan('OK-4');
    await board.waitFor('grant', undefined, { since, timeoutMs: WAIT_MS });
    expect((await gates()).data.pistas[0].rele.online).toBe(true);
  }, 45_000);

  it('when the box stops, the board locks by itself within its heartbeat timeout', async () => {
    const since = board.mark();
    await box.gates!.gates.close();
    const offline = await board.waitFor('online', 0, { since, timeoutMs: 5000 });
    expect(offline).toBeDefined();
    expect(board.relayOn()).toBe(false);
  });
});
