import { afterEach, describe, expect, it } from 'vitest';
import { OsdpCommand, OsdpReply } from '../../src/gate/relays/osdp/osdp-codec.js';
import { OutControlCode } from '../../src/gate/relays/osdp/osdp-messages.js';
import { exchanges, online, openOsdpHarness, sequenceBreaks, type OsdpHarness } from '../support/osdp-harness.js';
import { waitUntil } from '../support/pty.js';

// A reader that loses power (a fire alarm cutting a circuit, a flaky PSU) and comes back at once.
// After the cut it answers with NAKs carrying its own sequence (libosdp's PD), which the box must
// take as a restart: sequence 0, ID, CAP, then its outputs back before anything else.

let h: OsdpHarness | null = null;
afterEach(async () => {
  await h?.close();
  h = null;
});

describe('OSDP reader restarts', () => {
  it.each([0, 1, 2, 3])(
    'a power cut right after its reply with sequence %i, during a fire alarm: the output is back on before the lane counts as online',
    async (position) => {
      h = await openOsdpHarness([{ address: 1 }]);
      const relay = h.bus.relay(h.config(1));
      await online(relay);
      const r = h.sim.reader(1);
      await relay.setFreePassage(true);
      expect(r.output(0).on).toBe(true);

      if (position === 0) {
        // Sequence 0 only comes in a handshake: cut now, and again right after it answers the recovery's ID.
        r.powerCutAfterReply(0, OsdpReply.PDID);
        r.powerCut();
      } else {
        r.powerCutAfterReply(position);
      }
      await waitUntil(() => r.powerCuts.length === (position === 0 ? 2 : 1), 5000, 'power cut');
      const lastCut = r.powerCuts.at(-1)!;
      expect(r.output(0).on).toBe(false);
      await waitUntil(() => r.output(0).on && relay.status().online, 5000, 'output restored and PD online');

      // Its first answer after the cut is a NAK with its own sequence, 0; the box starts over at once.
      const answered = r.sent.filter((s) => s.at > lastCut);
      expect(answered[0]).toMatchObject({ code: OsdpReply.NAK, sequence: 0 });
      const after = exchanges(r).filter((c) => c.at > lastCut);
      const id = after.findIndex((c) => c.code === OsdpCommand.ID && c.sequence === 0);
      expect(after.slice(id, id + 3).map((c) => c.code)).toEqual([OsdpCommand.ID, OsdpCommand.CAP, OsdpCommand.OUT]);
      // Only the command the PD answered with that NAK came before: no POLL while the output was off.
      expect(id).toBe(1);
      expect(r.outs.at(-1)).toEqual({ output: 0, control: OutControlCode.PERMANENT_ON_ABORT_TIMED, timer: 0 });
      expect(sequenceBreaks(after.slice(id))).toEqual([]);

      // "Online" only once the output was restored.
      const restoredAt = after[id + 2]!.at;
      const onlineLog = h.logged.filter((l) => l.msg === 'OSDP PD online').at(-1)!;
      expect(onlineLog.at).toBeGreaterThanOrEqual(restoredAt);
      expect(relay.status()).toMatchObject({ online: true, problem: null, freePassage: true });
      expect(relay.status().device.restarts).toBe(position === 0 ? 2 : 1);
      expect(h.logged.filter((l) => l.msg.startsWith('OSDP PD restarted'))).toHaveLength(position === 0 ? 2 : 1);
    },
  );

  it('a grant under way when the reader loses power is sent again after the restore, and succeeds', async () => {
    h = await openOsdpHarness([{ address: 2 }]);
    const relay = h.bus.relay(h.config(2, { pulseMs: 800 }));
    await online(relay);
    const r = h.sim.reader(2);
    r.powerCut();
    await relay.grant('entrada', 800);
    expect(r.output(0).on).toBe(true);
    await waitUntil(() => r.leds.length === 1 && r.buzzes.length === 1, 3000, 'grant LED and beep');
    const lastCut = r.powerCuts.at(-1)!;
    const codes = exchanges(r)
      .filter((c) => c.at > lastCut && c.code !== OsdpCommand.POLL)
      .map((c) => c.code);
    // The first command after the cut (the grant's OUT, or a POLL already in flight) got the NAK;
    // after ID, CAP and the restored permanent state the grant's OUT goes (again).
    expect(codes.slice(-6)).toEqual([
      OsdpCommand.ID,
      OsdpCommand.CAP,
      OsdpCommand.OUT,
      OsdpCommand.OUT,
      OsdpCommand.LED,
      OsdpCommand.BUZ,
    ]);
    expect(codes.length === 6 || codes[0] === OsdpCommand.OUT).toBe(true);
    expect(relay.status().device.restarts).toBe(1);
    expect(r.outs.slice(-2).map((o) => o.control)).toEqual([
      OutControlCode.PERMANENT_OFF_AFTER_TIMED,
      OutControlCode.TEMPORARY_ON,
    ]);
  });

  it('a reader that keeps restarting during its own recovery is left offline with the reason, not retried in a tight loop', async () => {
    h = await openOsdpHarness([{ address: 3 }]);
    const relay = h.bus.relay(h.config(3));
    await online(relay);
    const r = h.sim.reader(3);
    // Every answer to the recovery's ID is followed by another cut.
    r.powerCutAfterReply(0, OsdpReply.PDID, Infinity);
    r.powerCut();
    await waitUntil(() => relay.status().problem?.includes('reinicia repetidamente'), 8000, 'left offline');
    expect(h.logged.filter((l) => l.msg === 'OSDP PD offline')).toHaveLength(1);
    r.powerCutAfterReply(-1);
    expect(relay.status().online).toBe(false);
    await waitUntil(() => relay.status().online, 8000, 'back once it behaves');
  });
});
