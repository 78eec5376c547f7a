import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ByteLink } from '../../src/gate/serial/byte-link.js';
import { LCUS_WARNING, createLcusRelay, lcusCommand } from '../../src/gate/relays/lcus/lcus-relay.js';
import type { LcusRelayConfig } from '../../src/gate/relays/relay-config.js';
import type { RelayDriver } from '../../src/gate/relays/relay.js';
import { openLcusSim, type LcusSim } from '../support/lcus-sim.js';
import { openPortLink } from '../support/port-link.js';
import { openPtyPair, waitUntil, type PtyPair } from '../support/pty.js';
import { manualTimers } from '../support/manual-timers.js';

const hex = (b: Uint8Array) =>
  Buffer.from(b)
    .toString('hex')
    .replace(/(..)(?!$)/g, '$1 ');

function recordingLog() {
  const lines: { level: string; msg: string }[] = [];
  const at = (level: string) => (_obj: object, msg: string) => void lines.push({ level, msg });
  return { lines, log: { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') } };
}

// Generous: a loaded machine may be slow, never wrong; waits end on the condition itself.
const WAIT_MS = 10_000;

describe('LCUS command bytes', () => {
  it('A0 channel state checksum', () => {
    expect(hex(lcusCommand(1, true))).toBe('a0 01 01 a2');
    expect(hex(lcusCommand(1, false))).toBe('a0 01 00 a1');
    expect(hex(lcusCommand(2, true))).toBe('a0 02 01 a3');
    expect(hex(lcusCommand(8, false))).toBe('a0 08 00 a8');
  });

  it('refuses channels the modules do not have', () => {
    expect(() => lcusCommand(0, true)).toThrow(RangeError);
    expect(() => lcusCommand(9, true)).toThrow(RangeError);
  });
});

describe('LCUS relay over a pty', () => {
  let pty: PtyPair;
  let sim: LcusSim;
  let link: ByteLink;
  let relay: RelayDriver | null;
  let logged: ReturnType<typeof recordingLog>;
  let time: ReturnType<typeof manualTimers>;

  const config = (over: Partial<LcusRelayConfig> = {}): LcusRelayConfig => ({
    driver: 'lcus',
    path: pty.box,
    baud: 9600,
    pulseMs: 300,
    channel: 1,
    ...over,
  });
  const lcus = (over: Partial<LcusRelayConfig> = {}) =>
    (relay = createLcusRelay({ link, config: config(over), log: logged.log, timers: time.timers }));

  // Channel 8 is never a relay here: a command on it, once read, says the module has read everything written before it.
  const MARK = hex(lcusCommand(8, false));
  let marks = 0;
  async function settled(): Promise<string[]> {
    const n = ++marks;
    await link.write(lcusCommand(8, false));
    await waitUntil(
      () => sim.commands.filter((c) => c === MARK).length === n,
      WAIT_MS,
      'the module to read what was written',
    );
    return sim.commands.filter((c) => c !== MARK);
  }
  const changes = (channel: number) =>
    sim.changes.filter((c) => c.channel === channel).map((c) => (c.on ? 'on' : 'off'));

  beforeEach(async () => {
    pty = await openPtyPair('lcus');
    sim = await openLcusSim(pty.device);
    link = await openPortLink(pty.box);
    logged = recordingLog();
    time = manualTimers();
    relay = null;
    marks = 0;
  });

  afterEach(async () => {
    await relay?.close();
    await link.close();
    await sim.close();
    await pty.close();
  });

  it('switches the channel off at start, so a relay left on by a crash is released', async () => {
    lcus({ channel: 3 });
    expect(await settled()).toEqual(['a0 03 00 a3']);
  });

  it('grant pulses the configured channel on, then off once pulseMs has passed, with the exact bytes', async () => {
    const r = lcus({ channel: 2, pulseMs: 400 });
    await r.grant('entrada', 400);
    await settled();
    expect(sim.isOn(2)).toBe(true);
    time.advance(399);
    await settled();
    expect(sim.isOn(2)).toBe(true);
    time.advance(1);
    expect(await settled()).toEqual(['a0 02 00 a2', 'a0 02 01 a3', 'a0 02 00 a2']);
    expect(changes(2)).toEqual(['off', 'on', 'off']);
    expect(sim.isOn(1)).toBe(false);
  });

  it('a second grant during a pulse keeps the relay on until the later pulse ends', async () => {
    const r = lcus();
    await r.grant('entrada', 600);
    time.advance(300);
    await r.grant('entrada', 600);
    // The first pulse would end here: the relay stays on.
    time.advance(300);
    await settled();
    expect(changes(1)).toEqual(['off', 'on', 'on']);
    time.advance(299);
    await settled();
    expect(sim.isOn(1)).toBe(true);
    time.advance(1);
    await settled();
    // Had the first pulse's timer survived, there would be two offs.
    expect(changes(1)).toEqual(['off', 'on', 'on', 'off']);
    time.advance(10_000);
    await settled();
    expect(changes(1)).toEqual(['off', 'on', 'on', 'off']);
  });

  it('deny writes nothing: the module has no lamp or buzzer', async () => {
    const r = lcus();
    await r.deny('already_used');
    await r.deny('capacity');
    expect(await settled()).toEqual(['a0 01 00 a1']);
    expect(logged.lines.filter((l) => l.level === 'debug')).toHaveLength(2);
  });

  it('free passage holds the relay on past any pulse, and releasing switches it off', async () => {
    const r = lcus({ pulseMs: 200 });
    await r.grant('entrada', 200);
    await r.setFreePassage(true);
    time.advance(1000);
    await settled();
    expect(sim.isOn(1)).toBe(true);
    expect(r.status().freePassage).toBe(true);
    await r.grant('entrada', 200);
    time.advance(1000);
    await settled();
    expect(sim.isOn(1)).toBe(true);
    await r.setFreePassage(false);
    await settled();
    expect(sim.isOn(1)).toBe(false);
    expect(r.status().freePassage).toBe(false);
  });

  it('status: write-only, not fail-safe, with the warning; the warning is logged once', async () => {
    const r = lcus({ channel: 4 });
    const s = r.status();
    expect(s).toMatchObject({
      driver: 'lcus',
      path: pty.box,
      online: true,
      failSafe: false,
      freePassage: false,
      lastSeenAt: null,
      problem: LCUS_WARNING,
      device: { channel: 4 },
    });
    expect(s.problem).toMatch(/somente escrita/);
    expect(s.problem).toMatch(/não detecta falhas/);
    expect(s.problem).toMatch(/falha seguro/);
    r.status();
    await r.grant('saida', 100);
    expect(logged.lines.filter((l) => l.level === 'warn' && l.msg === LCUS_WARNING)).toHaveLength(1);
  });

  it('a lost port shows as offline, told once as it happens, and a grant then fails, so the lane can reverse the check-in', async () => {
    const r = lcus();
    const told: boolean[] = [];
    r.onOnline((online) => told.push(online));
    await pty.unplug();
    // This bare link has no probe: the hang-up shows for sure on the next write (serial-link.ts probes).
    await Promise.resolve(r.grant('entrada', 100)).catch(() => {});
    await waitUntil(() => told.length > 0, WAIT_MS, 'the port to report the loss');
    expect(told).toEqual([false]);
    expect(r.status().online).toBe(false);
    expect(r.status().problem).toMatch(/desconectada/);
    await expect(r.grant('entrada', 100)).rejects.toThrow();
    expect(told).toEqual([false]);
  });

  it('the module ignores a command with a wrong checksum', async () => {
    await link.write(Uint8Array.from([0xa0, 0x01, 0x01, 0xa3]));
    await link.write(lcusCommand(5, true));
    await waitUntil(() => sim.isOn(5), WAIT_MS, 'valid command');
    expect(sim.isOn(1)).toBe(false);
    expect(sim.rejected()).toBeGreaterThanOrEqual(1);
  });
});
