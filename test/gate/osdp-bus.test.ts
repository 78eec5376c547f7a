import { afterEach, describe, expect, it } from 'vitest';
import { OsdpCommand, nextOsdpSequence } from '../../src/gate/relays/osdp/osdp-codec.js';
import { OsdpColor, OutControlCode } from '../../src/gate/relays/osdp/osdp-messages.js';
import { OsdpCommandError } from '../../src/gate/relays/osdp/osdp-types.js';
import type { OsdpRelayConfig } from '../../src/gate/relays/relay-config.js';
import { TIMING, exchanges, online, openOsdpHarness, polls, type OsdpHarness } from '../support/osdp-harness.js';
import type { OsdpSim, ReaderOptions, SimCommand, SimReader } from '../support/osdp-reader-sim.js';
import { waitUntil } from '../support/pty.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let h: OsdpHarness | null = null;
let sim: OsdpSim | null = null;

async function start(readers: ReaderOptions[], before?: (sim: OsdpSim) => void) {
  h = await openOsdpHarness(readers);
  sim = h.sim;
  before?.(h.sim);
  return { sim: h.sim, bus: h.bus };
}

afterEach(async () => {
  await h?.close();
  h = sim = null;
});

const config = (address: number, over: Partial<OsdpRelayConfig> = {}): OsdpRelayConfig => h!.config(address, over);

function expectSequenceRule(cmds: SimCommand[]) {
  expect(cmds[0]!.sequence).toBe(0);
  for (let i = 1; i < cmds.length; i++)
    expect(cmds[i]!.sequence, `exchange ${i}`).toBe(nextOsdpSequence(cmds[i - 1]!.sequence));
}

describe('OSDP control panel over a pty', () => {
  it('handshakes with ID then CAP from sequence 0, then polls 1, 2, 3, 1...; PDID and PDCAP in status', async () => {
    const { sim, bus } = await start([{ address: 1 }]);
    const relay = bus.relay(config(1));
    await online(relay);
    const r = sim.reader(1);
    await waitUntil(() => polls(r) >= 8, 5000, 'polls');
    const ex = exchanges(r);
    expect(ex.slice(0, 2).map((c) => [c.code, c.sequence])).toEqual([
      [OsdpCommand.ID, 0],
      [OsdpCommand.CAP, 1],
    ]);
    // Coming online, the output is told its permanent state (off, letting a pulse finish).
    expect(ex[2]).toMatchObject({ code: OsdpCommand.OUT });
    expect(r.outs[0]).toEqual({ output: 0, control: OutControlCode.PERMANENT_OFF_AFTER_TIMED, timer: 0 });
    expect(ex.slice(3).every((c) => c.code === OsdpCommand.POLL)).toBe(true);
    expectSequenceRule(ex);
    const s = relay.status();
    expect(s).toMatchObject({
      driver: 'osdp',
      path: h!.pty.box,
      online: true,
      failSafe: true,
      freePassage: false,
      problem: null,
    });
    expect(s.lastSeenAt).not.toBeNull();
    expect(s.device).toMatchObject({
      address: 1,
      output: 0,
      vendor: '0a0b0c',
      model: 7,
      version: 1,
      serial: 1001,
      firmware: '2.1.0',
      capabilities: '1:1:1 2:1:2 4:1:1 5:1:1 9:1:0',
      secureChannel: false,
      keyConfigured: false,
      restarts: 0,
    });
  });

  it('two PDs on one bus: each gets its own handshake, sequence and commands', async () => {
    const { sim, bus } = await start([{ address: 1 }, { address: 5 }]);
    const a = bus.relay(config(1, { output: 0 }));
    const b = bus.relay(config(5, { output: 1 }));
    await online(a);
    await online(b);
    const [ra, rb] = [sim.reader(1), sim.reader(5)];
    await a.grant('entrada', 300);
    await b.deny('expired');
    await waitUntil(() => polls(ra) >= 4 && polls(rb) >= 4, 5000, 'both polled');
    expect(ra.outs.filter((o) => o.control === OutControlCode.TEMPORARY_ON)).toEqual([
      { output: 0, control: OutControlCode.TEMPORARY_ON, timer: 3 },
    ]);
    expect(rb.outs.filter((o) => o.control === OutControlCode.TEMPORARY_ON)).toEqual([]);
    expect(ra.leds.map((l) => l.temporary.onColor)).toEqual([OsdpColor.GREEN]);
    expect(rb.leds.map((l) => l.temporary.onColor)).toEqual([OsdpColor.RED]);
    expectSequenceRule(exchanges(ra));
    expectSequenceRule(exchanges(rb));
    expect(exchanges(rb)[0]!.code).toBe(OsdpCommand.ID);
  });

  it('grant: OUT timed on for pulseMs on the configured output, green LED, one short beep', async () => {
    const { sim, bus } = await start([{ address: 3 }]);
    const relay = bus.relay(config(3, { output: 1, pulseMs: 700 }));
    await online(relay);
    const r = sim.reader(3);
    await relay.grant('entrada', 700);
    // Resolved on the PD's ACK: the output is already on.
    expect(r.output(1).on).toBe(true);
    expect(r.outs.at(-1)).toEqual({ output: 1, control: OutControlCode.TEMPORARY_ON, timer: 7 });
    await waitUntil(() => r.leds.length === 1 && r.buzzes.length === 1, 3000, 'LED and beep');
    expect(r.leds[0]!.temporary).toMatchObject({ onColor: OsdpColor.GREEN, offColor: OsdpColor.GREEN, offTime: 0 });
    expect(r.leds[0]!.temporary.timer).toBeGreaterThanOrEqual(7);
    expect(r.buzzes[0]).toEqual({ reader: 0, tone: 2, onTime: 1, offTime: 0, count: 1 });
    await waitUntil(() => !r.output(1).on, 5000, 'output off after the pulse');
    const [on, off] = r.output(1).changes;
    expect(on!.on && !off!.on).toBe(true);
    expect(off!.at - on!.at).toBeGreaterThanOrEqual(350);
    expect(r.output(0).changes).toEqual([]);
  });

  it('every deny reason has its own blink and beeps: red for the ticket, amber for a full area', async () => {
    const { sim, bus } = await start([{ address: 2 }]);
    const relay = bus.relay(config(2));
    await online(relay);
    const r = sim.reader(2);
    for (const reason of [
      'other',
      'already_used',
      'expired',
      'not_yet_valid',
      'not_found',
      'cancelled',
      'capacity',
    ] as const)
      await relay.deny(reason);
    expect(r.leds).toHaveLength(7);
    expect(r.leds.every((l) => l.temporary.control === 2 && l.permanent.control === 0)).toBe(true);
    expect(r.leds.map((l) => l.temporary.onColor)).toEqual([...Array(6).fill(OsdpColor.RED), OsdpColor.AMBER]);
    const looks = r.leds.map((l, i) => JSON.stringify([l.temporary, r.buzzes[i]]));
    expect(new Set(looks).size).toBe(7);
    expect(r.outs.filter((o) => o.control === OutControlCode.TEMPORARY_ON)).toEqual([]);
  });

  it.each([
    ['lost', { lose: 1 }],
    ['corrupted', { corrupt: 1 }],
    // The repeat and then the late copy both reach the CP, the late one during the next POLL.
    ['late', { late: true }],
  ])(
    'a scan whose first reply is %s arrives once: the CP repeats the POLL and the PD repeats the RAW',
    async (_name, spoil) => {
      const { sim, bus } = await start([{ address: 1 }]);
      const relay = bus.relay(config(1));
      const codes: string[] = [];
      relay.onScan!((c) => codes.push(c));
      await online(relay);
      const r = sim.reader(1);
      r.scan('QR-2026-000123', spoil);
      await waitUntil(() => codes.length > 0, 5000, 'scan');
      await sleep(600);
      expect(codes).toEqual(['QR-2026-000123']);
      expect(r.rawSent()).toBe(2);
      // A late copy of an earlier reply is not a restart.
      expect(relay.status().device.restarts).toBe(0);
      expect(r.received.some((c) => c.repeat && c.code === OsdpCommand.POLL)).toBe(true);
      r.scan('QR-2');
      await waitUntil(() => codes.length === 2, 5000, 'second scan');
      expect(codes).toEqual(['QR-2026-000123', 'QR-2']);
    },
  );

  it('keypad input is not a scan', async () => {
    const { sim, bus } = await start([{ address: 1 }]);
    const relay = bus.relay(config(1));
    const codes: string[] = [];
    relay.onScan!((c) => codes.push(c));
    await online(relay);
    sim.reader(1).keypad('1234#');
    sim.reader(1).scan('ABC');
    await waitUntil(() => codes.length > 0, 5000, 'scan');
    await sleep(300);
    expect(codes).toEqual(['ABC']);
  });

  it('a silent PD goes offline after the retries (same sequence) and comes back from sequence 0', async () => {
    const { sim, bus } = await start([{ address: 4 }]);
    const relay = bus.relay(config(4));
    await online(relay);
    const r = sim.reader(4);
    r.silent = true;
    await waitUntil(() => !relay.status().online, 8000, 'offline');
    const unanswered = r.received.filter((c) => c.ignored);
    const [first] = unanswered;
    expect(
      unanswered.slice(0, TIMING.offlineAfter).every((c) => c.code === first!.code && c.sequence === first!.sequence),
    ).toBe(true);
    expect(relay.status().problem).toMatch(/endereço 4 não responde/);
    const grant = Promise.resolve(relay.grant('entrada', 500));
    await expect(grant).rejects.toBeInstanceOf(OsdpCommandError);
    await expect(grant).rejects.toMatchObject({ kind: 'offline' });
    // Still probed while offline, with ID at sequence 0.
    await waitUntil(
      () => r.received.filter((c) => c.ignored && c.code === OsdpCommand.ID && c.sequence === 0).length >= 2,
      8000,
      'probes',
    );
    const seenBefore = r.received.length;
    r.silent = false;
    await online(relay);
    const back = r.received.slice(seenBefore).filter((c) => !c.ignored);
    expect(back.slice(0, 2).map((c) => [c.code, c.sequence])).toEqual([
      [OsdpCommand.ID, 0],
      [OsdpCommand.CAP, 1],
    ]);
    expect(relay.status().problem).toBeNull();
    await relay.grant('entrada', 300);
    expect(r.output(0).on).toBe(true);
  });

  type Knob = (r: SimReader) => void;
  it.each<[string, Knob, Knob, RegExp]>([
    ['a broken CRC', (r) => void (r.corrupt = Infinity), (r) => void (r.corrupt = 0), /respostas inválidas/],
    ['another address', (r) => void (r.wrongAddress = true), (r) => void (r.wrongAddress = false), /não responde/],
  ])('replies with %s never count as replies', async (_name, spoil, mend, problem) => {
    const { bus } = await start([{ address: 1 }], (s) => spoil(s.reader(1)));
    const relay = bus.relay(config(1));
    const r = sim!.reader(1);
    await waitUntil(() => r.received.length >= TIMING.offlineAfter + 1, 8000, 'several tries');
    await waitUntil(() => relay.status().problem !== null, 8000, 'problem');
    expect(relay.status()).toMatchObject({ online: false, lastSeenAt: null });
    expect(relay.status().problem).toMatch(problem);
    mend(r);
    await online(relay);
    expect(relay.status().lastSeenAt).not.toBeNull();
  });

  it('free passage holds the output on through grants, and is restored when the PD comes back', async () => {
    const { sim, bus } = await start([{ address: 1 }]);
    const relay = bus.relay(config(1, { pulseMs: 200 }));
    await online(relay);
    const r = sim.reader(1);
    await relay.setFreePassage(true);
    expect(r.output(0).on).toBe(true);
    expect(relay.status().freePassage).toBe(true);
    await relay.grant('entrada', 200);
    await sleep(700);
    expect(r.output(0).on).toBe(true);
    await relay.setFreePassage(false);
    expect(r.output(0).on).toBe(false);

    r.silent = true;
    await waitUntil(() => !relay.status().online, 8000, 'offline');
    await expect(relay.setFreePassage(true)).rejects.toMatchObject({ kind: 'offline' });
    r.silent = false;
    await online(relay);
    await waitUntil(() => r.output(0).on, 5000, 'free passage applied on return');
  });

  it('a NAK rejects the command with its reason', async () => {
    const { sim, bus } = await start([{ address: 1 }]);
    const relay = bus.relay(config(1));
    await online(relay);
    // The output's state is restored first on coming online; the NAK is for the grant's OUT.
    await waitUntil(() => sim.reader(1).outs.length === 1, 5000, 'output restored');
    sim.reader(1).nakNext(OsdpCommand.OUT, 3);
    const grant = Promise.resolve(relay.grant('entrada', 500));
    await expect(grant).rejects.toMatchObject({ kind: 'nak', nakReason: 3 });
    await expect(grant).rejects.toThrow(/não suportado/);
    expect(relay.status().device.lastNak).toMatch(/^OUT: /);
    expect(relay.status().online).toBe(true);
  });

  it('a lost port takes every PD offline and fails commands at once', async () => {
    const { bus } = await start([{ address: 1 }, { address: 2 }]);
    const a = bus.relay(config(1));
    const b = bus.relay(config(2));
    await online(a);
    await online(b);
    await h!.pty.unplug();
    await waitUntil(() => !a.status().online && !b.status().online, 8000, 'offline');
    expect(a.status().problem).toMatch(/desconectada/);
    await expect(Promise.resolve(b.grant('entrada', 500))).rejects.toMatchObject({ kind: 'offline' });
  });

  it('refuses a second relay at the same address and one for another port', async () => {
    const { bus } = await start([{ address: 1 }]);
    bus.relay(config(1));
    expect(() => bus.relay(config(1))).toThrow(/already/);
    expect(() => bus.relay({ ...config(2), path: '/dev/ttyUSB9' })).toThrow(/attached to the bus/);
  });
});
