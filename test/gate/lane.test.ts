import { codeHash } from '../../src/lib/code-hash.js';
import type { FastifyBaseLogger } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import type { CheckinService } from '../../src/checkin/checkin.service.js';
import { laneConfigSchema, laneSchema, movePolicy, type LaneConfig } from '../../src/gate/lanes/lane-config.js';
import { attachScanner, createLane } from '../../src/gate/lanes/lane.js';
import {
  NOT_PASSED_OPERADOR,
  RELAY_FAILED_OPERADOR,
  type Lane,
  type LaneEvent,
} from '../../src/gate/lanes/lane-types.js';
import type { LaneRelay } from '../../src/gate/relays/relay.js';
import type { Log } from '../../src/lib/log.js';
import { createTestBox, type TestBox } from '../support/box.js';
import { makeOrder } from '../support/fixtures.js';
import { events } from '../support/http.js';
import { manualTimers } from '../support/manual-timers.js';

// The production logger must fit the lane's log interface.
const pinoFits: (l: FastifyBaseLogger) => Log = (l) => l;
void pinoFits;

let box: TestBox;
const lanes: Lane[] = [];
afterEach(async () => {
  for (const l of lanes.splice(0)) l.close();
  await box.close();
});

function fakeRelay(opts: { failGrant?: boolean } = {}) {
  const calls: string[] = [];
  let passageListener: (() => void) | undefined;
  const relay: LaneRelay = {
    grant(direction, pulseMs) {
      calls.push(`grant:${direction}:${pulseMs}`);
      if (opts.failGrant) throw new Error('port gone');
    },
    deny: (reason) => void calls.push(`deny:${reason}`),
    onPassage(listener) {
      passageListener = listener;
      return () => (passageListener = undefined);
    },
  };
  return { relay, calls, sensor: () => passageListener?.() };
}

function fakeLog() {
  const lines: string[] = [];
  const fields: object[] = [];
  const line = (level: string) => (o: object, msg: string) => void (lines.push(`${level}:${msg}`), fields.push(o));
  const log: Log = { info: line('info'), warn: line('warn'), error: line('error') };
  return { log, lines, fields };
}

const config = (over: Record<string, unknown> = {}): LaneConfig =>
  laneSchema.parse({
    name: 'entrada-1',
    direction: 'entrada',
    operador: 'Catraca Norte',
    scanners: [{ path: '/dev/serial/by-id/scanner-1' }],
    relay: { driver: 'bridge', path: '/dev/serial/by-id/bridge-1', pulseMs: 600 },
    ...over,
  });

/** The lanes file's own settings (the tenant's policies, areas) around the lane. */
const fileSettings = (over: Record<string, unknown> = {}) => laneConfigSchema.parse({ lanes: [config()], ...over });

async function setup(
  over: Record<string, unknown> = {},
  opts: { checkin?: CheckinService; failGrant?: boolean; file?: Record<string, unknown> } = {},
) {
  const checkin = opts.checkin ?? box.checkin;
  const time = manualTimers(box.clock);
  const relay = fakeRelay(opts);
  const { log, lines, fields } = fakeLog();
  const cfg = config(over);
  const policy = movePolicy(fileSettings(opts.file), cfg);
  const lane = createLane({
    config: cfg,
    policy,
    checkin,
    tenantId: box.tenantId,
    relay: relay.relay,
    clock: box.clock,
    log,
    timers: time.timers,
  });
  lanes.push(lane);
  const seen: LaneEvent[] = [];
  lane.onEvent((e) => seen.push(e));
  const next = (type: LaneEvent['type']) =>
    new Promise<LaneEvent>((resolve) => {
      const off = lane.onEvent((e) => e.type === type && (off(), resolve(e)));
    });
  return { lane, checkin, time, calls: relay.calls, sensor: relay.sensor, lines, fields, seen, next };
}

describe('lane flow', () => {
  it('grants through the check-in service, pulses the relay once and logs terminal/operador/source', async () => {
    box = await createTestBox();
    box.importOrders([makeOrder({ prefix: 'OK', people: 1 })]);
    const { lane, calls, seen } = await setup();
    const result = await lane.scan('OK-1');
    expect(result).toMatchObject({
      kind: 'granted',
      code: 'OK-1',
      result: { ok: true, target: 'person', movement: 'checkin', people: [{ qrCode: 'OK-1' }] },
    });
    expect(calls).toEqual(['grant:entrada:600']);
    expect(events(box)).toEqual([
      {
        action: 'checkin',
        mode: 'qr',
        code: 'OK-1',
        qr_code: 'OK-1',
        result: 'ok',
        key_name: null,
        terminal: 'entrada-1',
        operador: 'Catraca Norte',
        source: 'lane',
      },
    ]);
    expect(seen).toEqual([
      {
        type: 'granted',
        lane: 'entrada-1',
        at: '2026-11-21T13:00:00.000Z',
        code: 'OK-1',
        movement: 'checkin',
        withoutEntry: false,
      },
    ]);
    expect(lane.status()).toMatchObject({
      name: 'entrada-1',
      relayDriver: 'bridge',
      failSafe: true,
      passageSensor: false,
      lastScan: { code: 'OK-1', at: '2026-11-21T13:00:00.000Z' },
      lastResult: { type: 'granted', code: 'OK-1' },
      pendingGrants: 0,
      counters: { scans: 1, granted: 1, denied: 0, ignored: 0 },
    });
  });

  it('gives each refusal its own deny reason', async () => {
    box = await createTestBox();
    box.importOrders([
      makeOrder({ prefix: 'USED', people: 1 }),
      makeOrder({ prefix: 'OLD', people: 1, dataUso: '2026-11-20' }),
      makeOrder({ prefix: 'SOON', people: 1, dataUso: '2026-11-22' }),
      makeOrder({ prefix: 'GONE', people: 1, status: 'cancelado' }),
    ]);
    const { lane, calls } = await setup({ debounceMs: 0 });
    await lane.scan('USED-1');
    const results = [];
    for (const code of ['USED-1', 'OLD-1', 'SOON-1', 'NOPE-1', 'GONE-1', 'A-1,B-1'])
      results.push(await lane.scan(code));
    expect(results.map((r) => (r.kind === 'denied' ? `${r.refusal}:${r.reason}` : r.kind))).toEqual([
      'TICKET_ALREADY_USED:already_used',
      'TICKET_EXPIRED:expired',
      'TICKET_NOT_VALID_YET:not_yet_valid',
      'TICKET_NOT_FOUND:not_found',
      'TICKET_CANCELLED:cancelled',
      'TICKET_NOT_FOUND:not_found',
    ]);
    expect(calls).toEqual([
      'grant:entrada:600',
      'deny:already_used',
      'deny:expired',
      'deny:not_yet_valid',
      'deny:not_found',
      'deny:cancelled',
      'deny:not_found',
    ]);
    // The comma code never became a batch: one refusal for the whole read, none for A-1 or B-1.
    expect(events(box).map((e) => `${e.code}:${e.result}:${e.source}`)).toEqual([
      'USED-1:ok:lane',
      'USED-1:TICKET_ALREADY_USED:lane',
      'OLD-1:TICKET_EXPIRED:lane',
      'SOON-1:TICKET_NOT_VALID_YET:lane',
      'NOPE-1:TICKET_NOT_FOUND:lane',
      'GONE-1:TICKET_CANCELLED:lane',
      'A-1,B-1:TICKET_NOT_FOUND:lane',
    ]);
    expect(lane.status().counters).toMatchObject({ scans: 7, granted: 1, denied: 6 });
  });

  it('any other failure gets the generic signal; a rejected read gets "not found"', async () => {
    box = await createTestBox();
    const fail = () => Promise.reject(new Error('disk on fire'));
    const broken: CheckinService = {
      checkIn: fail,
      reverse: fail,
      move: fail,
      occupancy: () => [],
      attachSite: () => () => undefined,
      applyFacts: fail,
      recordDoorFacts: fail,
    };
    const { lane, calls, lines } = await setup({}, { checkin: broken });
    expect(await lane.scan('ANY')).toMatchObject({ kind: 'denied', refusal: 'INTERNAL_ERROR', reason: 'other' });
    expect(await lane.scanRejected('non_printable')).toMatchObject({
      kind: 'denied',
      code: null,
      refusal: 'LEITURA_NON_PRINTABLE',
      reason: 'not_found',
    });
    expect(calls).toEqual(['deny:other', 'deny:not_found']);
    expect(lines).toEqual(['error:check-in failed']);
    expect(lane.status().counters.errors).toBe(1);
  });

  it('ignores the same code within the debounce window, without touching the service or relay', async () => {
    box = await createTestBox();
    box.importOrders([makeOrder({ prefix: 'DEB', people: 1 })]);
    const { lane, calls } = await setup({ debounceMs: 2000 });
    expect((await lane.scan('DEB-1')).kind).toBe('granted');
    box.clock.advance(1999);
    expect((await lane.scan('DEB-1')).kind).toBe('ignored');
    box.clock.advance(2000);
    expect((await lane.scan('DEB-1')).kind).toBe('denied');
    expect(calls).toEqual(['grant:entrada:600', 'deny:already_used']);
    expect(events(box)).toHaveLength(2);
  });

  it('scanner bytes reach the lane through attachScanner: AIM prefix stripped, split CRLF, bad read denied', async () => {
    box = await createTestBox();
    box.importOrders([makeOrder({ prefix: 'SC', people: 1 })]);
    const { lane, calls, next, time } = await setup({
      scanners: [{ path: '/dev/serial/by-id/s', suffix: 'crlf', stripAimId: true }],
    });
    const { log, lines } = fakeLog();
    const port = attachScanner(
      lane,
      config({ scanners: [{ path: '/dev/serial/by-id/s', suffix: 'crlf', stripAimId: true }] }).scanners[0]!,
      log,
      time.timers,
    );
    const granted = next('granted');
    port.push(']Q1S');
    port.push('C-1\r');
    port.push('\n');
    expect(await granted).toMatchObject({ code: 'SC-1' });
    const denied = next('denied');
    port.push(Uint8Array.from([0x53, 0x07, 0x0d, 0x0a]));
    expect(await denied).toMatchObject({ code: null, refusal: 'LEITURA_NON_PRINTABLE', reason: 'not_found' });
    expect(calls).toEqual(['grant:entrada:600', 'deny:not_found']);
    expect(lines).toEqual(['warn:scanner read rejected']);
  });

  it('two lanes scanning the same QR at once: exactly one grant', async () => {
    box = await createTestBox();
    box.importOrders([makeOrder({ prefix: 'RACE', people: 1 })]);
    const a = await setup({ name: 'entrada-1' });
    const b = await setup({
      name: 'entrada-2',
      relay: { driver: 'osdp', path: '/dev/serial/by-id/rs485', address: 2 },
    });
    const results = await Promise.all([a.lane.scan('RACE-1'), b.lane.scan('RACE-1')]);
    expect(results.map((r) => r.kind).sort()).toEqual(['denied', 'granted']);
    expect([...a.calls, ...b.calls].sort()).toEqual(['deny:already_used', 'grant:entrada:600']);
    expect(
      events(box)
        .map((e) => e.result)
        .sort(),
    ).toEqual(['TICKET_ALREADY_USED', 'ok']);
  });
});

describe('lane with a passage sensor', () => {
  it('reverses the check-in when nobody passes in time, and the person can check in again', async () => {
    box = await createTestBox();
    box.importOrders([makeOrder({ prefix: 'NP', people: 1 })]);
    const { lane, time, calls, next, lines, fields } = await setup({ passage: { timeoutMs: 8000 }, debounceMs: 1000 });
    await lane.scan('NP-1');
    expect(lane.status().pendingGrants).toBe(1);
    time.advance(7999);
    expect(lane.status().pendingGrants).toBe(1);
    const notPassed = next('not_passed');
    time.advance(1);
    expect(await notPassed).toEqual({
      type: 'not_passed',
      lane: 'entrada-1',
      at: '2026-11-21T13:00:08.000Z',
      code: 'NP-1',
      cause: 'timeout',
      reversed: true,
    });
    expect(events(box).map((e) => [e.action, e.result, e.terminal, e.operador, e.source])).toEqual([
      ['checkin', 'ok', 'entrada-1', 'Catraca Norte', 'lane'],
      ['estorno', 'ok', 'entrada-1', NOT_PASSED_OPERADOR, 'lane'],
    ]);
    expect(lines).toContain('info:granted but nobody passed');
    // A QR is a bearer ticket: the log follows it by a short hash, never the code.
    expect(fields).toContainEqual(expect.objectContaining({ codigo_hash: codeHash('NP-1') }));
    expect(JSON.stringify(fields)).not.toContain('NP-1');
    expect(await lane.scan('NP-1')).toMatchObject({ kind: 'granted' });
    expect(calls).toEqual(['grant:entrada:600', 'grant:entrada:600']);
    expect(lane.status().counters).toMatchObject({ granted: 2, notPassed: 1, passed: 0 });
  });

  it('a passage in time keeps the check-in; grants are consumed in order', async () => {
    box = await createTestBox();
    box.importOrders([makeOrder({ prefix: 'P', people: 2 })]);
    const { lane, time, sensor, seen } = await setup({ passage: { timeoutMs: 5000 } });
    await lane.scan('P-1');
    time.advance(1000);
    await lane.scan('P-2');
    expect(lane.status().pendingGrants).toBe(2);
    sensor();
    time.advance(4500); // P-1's window is over, but P-1 already passed
    sensor();
    time.advance(60_000);
    expect(seen.filter((e) => e.type === 'passed').map((e) => e.type === 'passed' && e.code)).toEqual(['P-1', 'P-2']);
    expect(seen.some((e) => e.type === 'not_passed')).toBe(false);
    expect(events(box).map((e) => e.action)).toEqual(['checkin', 'checkin']);
  });

  it('an exit lane: an exit is no check-in; its passage is no tailgating; an exit nobody passed stays an exit', async () => {
    box = await createTestBox();
    box.importOrders([makeOrder({ prefix: 'EX', people: 2 })]);
    const door = await setup({ name: 'entrada-1' });
    await door.lane.scan('EX-1');
    await door.lane.scan('EX-2');
    const { lane, time, sensor, seen, calls } = await setup({
      name: 'saida-1',
      direction: 'saida',
      passage: { timeoutMs: 5000 },
    });
    expect(await lane.scan('EX-1')).toMatchObject({
      kind: 'granted',
      result: { movement: 'saida', withoutEntry: false },
    });
    sensor();
    expect(await lane.scan('EX-2')).toMatchObject({ kind: 'granted', result: { movement: 'saida' } });
    time.advance(6000);
    expect(seen.map((e) => e.type)).toEqual(['granted', 'passed', 'granted', 'not_passed']);
    expect(seen.at(-1)).toMatchObject({ code: 'EX-2', reversed: false });
    expect(calls).toEqual(['grant:saida:600', 'grant:saida:600']);
    expect(events(box).map((e) => [e.action, e.code, e.result])).toEqual([
      ['checkin', 'EX-1', 'ok'],
      ['checkin', 'EX-2', 'ok'],
      ['saida', 'EX-1', 'ok'],
      ['saida', 'EX-2', 'ok'],
    ]);
  });

  it('a passage without a pending grant raises the tailgating alarm', async () => {
    box = await createTestBox();
    box.importOrders([makeOrder({ prefix: 'T', people: 1 })]);
    const { lane, sensor, seen, lines } = await setup({ passage: { timeoutMs: 5000 } });
    await lane.scan('T-1');
    sensor();
    sensor();
    expect(seen.map((e) => e.type)).toEqual(['granted', 'passed', 'tailgating']);
    expect(seen[2]).toEqual({ type: 'tailgating', lane: 'entrada-1', at: '2026-11-21T13:00:00.000Z' });
    expect(lines).toEqual(['warn:passage without a grant (tailgating)']);
    expect(lane.status()).toMatchObject({ lastResult: { type: 'tailgating' }, counters: { passed: 1, tailgating: 1 } });
  });

  it('a relay that cannot pulse undoes the check-in at once', async () => {
    box = await createTestBox();
    box.importOrders([makeOrder({ prefix: 'RF', people: 1 })]);
    const { lane, seen } = await setup({}, { failGrant: true });
    expect((await lane.scan('RF-1')).kind).toBe('granted');
    expect(seen.at(-1)).toMatchObject({ type: 'not_passed', code: 'RF-1', cause: 'relay_failed', reversed: true });
    expect(events(box).map((e) => `${e.action}:${e.operador}`)).toEqual([
      'checkin:Catraca Norte',
      `estorno:${RELAY_FAILED_OPERADOR}`,
    ]);
  });
});
