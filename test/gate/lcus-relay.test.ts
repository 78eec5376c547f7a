import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ByteLink } from '../../src/gate/byte-link.js';
import { LCUS_WARNING, createLcusRelay, lcusCommand, type LcusRelayConfig } from '../../src/gate/lcus-relay.js';
import type { RelayDriver } from '../../src/gate/relay.js';
import { openLcusSim, type LcusSim } from '../support/lcus-sim.js';
import { openPortLink } from '../support/port-link.js';
import { openPtyPair, waitUntil, type PtyPair } from '../support/pty.js';

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex').replace(/(..)(?!$)/g, '$1 ');

function recordingLog() {
  const lines: { level: string; msg: string }[] = [];
  const at = (level: string) => (_obj: object, msg: string) => void lines.push({ level, msg });
  return { lines, log: { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') } };
}

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

  const config = (over: Partial<LcusRelayConfig> = {}): LcusRelayConfig => ({ driver: 'lcus', path: pty.box, baud: 9600, pulseMs: 300, channel: 1, ...over });

  beforeEach(async () => {
    pty = await openPtyPair('lcus');
    sim = await openLcusSim(pty.device);
    link = await openPortLink(pty.box);
    logged = recordingLog();
    relay = null;
  });

  afterEach(async () => {
    await relay?.close();
    await link.close();
    await sim.close();
    await pty.close();
  });

  it('switches the channel off at start, so a relay left on by a crash is released', async () => {
    relay = createLcusRelay({ link, config: config({ channel: 3 }), log: logged.log });
    await waitUntil(() => sim.commands.includes('a0 03 00 a3'), 3000, 'initial off');
  });

  it('grant pulses the configured channel on, then off after pulseMs, with the exact bytes', async () => {
    relay = createLcusRelay({ link, config: config({ channel: 2, pulseMs: 400 }), log: logged.log });
    await waitUntil(() => sim.changes.length === 1, 3000, 'initial off');
    await relay.grant('entrada', 400);
    await waitUntil(() => sim.isOn(2), 3000, 'relay on');
    await waitUntil(() => sim.changes.length === 3, 5000, 'relay off again');
    expect(sim.commands).toEqual(['a0 02 00 a2', 'a0 02 01 a3', 'a0 02 00 a2']);
    const [, on, off] = sim.changes;
    expect(on).toMatchObject({ channel: 2, on: true });
    expect(off).toMatchObject({ channel: 2, on: false });
    // Only "not right away": read times on a busy machine are too noisy for more.
    expect(off!.at - on!.at).toBeGreaterThanOrEqual(200);
    expect(sim.isOn(1)).toBe(false);
  });

  it('a second grant during a pulse keeps the relay on until the later pulse ends', async () => {
    relay = createLcusRelay({ link, config: config(), log: logged.log });
    await relay.grant('entrada', 600);
    await waitUntil(() => sim.isOn(1), 3000, 'relay on');
    await new Promise((r) => setTimeout(r, 300));
    await relay.grant('entrada', 600);
    await waitUntil(() => sim.changes.filter((c) => c.on).length === 2, 3000, 'second on');
    const secondOn = sim.changes.filter((c) => c.on)[1]!.at;
    await waitUntil(() => !sim.isOn(1), 5000, 'relay off');
    // Had the first pulse's timer survived, a second "off" would follow.
    await new Promise((r) => setTimeout(r, 700));
    const offs = sim.changes.filter((c) => !c.on && c.at > secondOn);
    expect(offs).toHaveLength(1);
    expect(offs[0]!.at - secondOn).toBeGreaterThanOrEqual(300);
  });

  it('deny writes nothing: the module has no lamp or buzzer', async () => {
    relay = createLcusRelay({ link, config: config(), log: logged.log });
    await waitUntil(() => sim.commands.length === 1, 3000, 'initial off');
    await relay.deny('already_used');
    await relay.deny('capacity');
    await new Promise((r) => setTimeout(r, 200));
    expect(sim.commands).toEqual(['a0 01 00 a1']);
    expect(logged.lines.filter((l) => l.level === 'debug')).toHaveLength(2);
  });

  it('free passage holds the relay on past any pulse, and releasing switches it off', async () => {
    relay = createLcusRelay({ link, config: config({ pulseMs: 200 }), log: logged.log });
    await relay.grant('entrada', 200);
    await relay.setFreePassage(true);
    await waitUntil(() => sim.isOn(1), 3000, 'relay on');
    await new Promise((r) => setTimeout(r, 600));
    expect(sim.isOn(1)).toBe(true);
    expect(relay.status().freePassage).toBe(true);
    await relay.grant('entrada', 200);
    await new Promise((r) => setTimeout(r, 600));
    expect(sim.isOn(1)).toBe(true);
    await relay.setFreePassage(false);
    await waitUntil(() => !sim.isOn(1), 3000, 'relay released');
    expect(relay.status().freePassage).toBe(false);
  });

  it('status: write-only, not fail-safe, with the warning; the warning is logged once', async () => {
    relay = createLcusRelay({ link, config: config({ channel: 4 }), log: logged.log });
    const s = relay.status();
    expect(s).toMatchObject({ driver: 'lcus', path: pty.box, online: true, failSafe: false, freePassage: false, lastSeenAt: null, problem: LCUS_WARNING, device: { channel: 4 } });
    expect(s.problem).toMatch(/somente escrita/);
    expect(s.problem).toMatch(/não detecta falhas/);
    expect(s.problem).toMatch(/falha seguro/);
    relay.status();
    await relay.grant('saida', 100);
    expect(logged.lines.filter((l) => l.level === 'warn' && l.msg === LCUS_WARNING)).toHaveLength(1);
  });

  it('a lost port shows as offline and a grant then fails, so the lane can reverse the check-in', async () => {
    relay = createLcusRelay({ link, config: config(), log: logged.log });
    await pty.unplug();
    // A pty hang-up shows on the next write.
    await Promise.resolve(relay.grant('entrada', 100)).catch(() => {});
    await waitUntil(() => !relay!.status().online, 3000, 'offline');
    expect(relay.status().problem).toMatch(/desconectada/);
    await expect(relay.grant('entrada', 100)).rejects.toThrow();
  });

  it('the module ignores a command with a wrong checksum', async () => {
    await link.write(Uint8Array.from([0xa0, 0x01, 0x01, 0xa3]));
    await link.write(lcusCommand(5, true));
    await waitUntil(() => sim.isOn(5), 3000, 'valid command');
    expect(sim.isOn(1)).toBe(false);
    expect(sim.rejected()).toBeGreaterThanOrEqual(1);
  });
});
