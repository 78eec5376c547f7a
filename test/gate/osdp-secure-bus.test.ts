import { afterEach, describe, expect, it } from 'vitest';
import type { ByteLink } from '../../src/gate/serial/byte-link.js';
import { OsdpCommand, OsdpReply } from '../../src/gate/relays/osdp/osdp-codec.js';
import { OutControlCode } from '../../src/gate/relays/osdp/osdp-messages.js';
import { Scs } from '../../src/gate/relays/osdp/osdp-secure.js';
import { exchanges, online, openOsdpHarness, polls, type OsdpHarness } from '../support/osdp-harness.js';
import { waitUntil } from '../support/pty.js';

// The secure channel between the box (CP) and readers that run it, over a pty. The simulated
// reader's link layer is libosdp's PD (test/support/osdp-pd-link.ts).

const KEY = '00112233445566778899aabbccddeeff';
const OTHER_KEY = 'ffeeddccbbaa99887766554433221100';
const bytes = (hex: string) => Uint8Array.from(Buffer.from(hex, 'hex'));

let h: OsdpHarness | null = null;
afterEach(async () => {
  await h?.close();
  h = null;
});

/** Everything the box logged and showed about its readers: keys must never be in it. */
const leaked = (hh: OsdpHarness, extra: unknown[] = []) => {
  const text = JSON.stringify([...hh.logged, ...extra]).toLowerCase();
  return [KEY, OTHER_KEY].filter((k) => text.includes(k));
};

describe('OSDP secure channel', () => {
  it('a reader with a key: CHLNG from sequence 0, SCRYPT, then every command carries a MAC and data is encrypted', async () => {
    h = await openOsdpHarness([{ address: 1, scbk: bytes(KEY), enforceSecure: true }]);
    const relay = h.bus.relay(h.config(1, { scbk: KEY }));
    const codes: string[] = [];
    relay.onScan!((c) => codes.push(c));
    await online(relay);
    const r = h.sim.reader(1);
    expect(relay.status().device).toMatchObject({ secureChannel: true, keyConfigured: true });
    expect(r.sessionActive()).toBe(true);
    const ex = exchanges(r);
    expect(ex.slice(0, 5).map((c) => [c.code, c.sequence])).toEqual([
      [OsdpCommand.ID, 0],
      [OsdpCommand.CAP, 1],
      [OsdpCommand.CHLNG, 0],
      [OsdpCommand.SCRYPT, 1],
      [OsdpCommand.OUT, 2],
    ]);
    await relay.grant('entrada', 300);
    expect(r.output(0).on).toBe(true);
    r.scan('QR-SEGURO-0001');
    await waitUntil(() => codes.length === 1, 5000, 'scan');
    expect(codes).toEqual(['QR-SEGURO-0001']);
    // After the handshake nothing goes in clear: the enforcing reader would have NAKed it.
    expect(
      exchanges(r)
        .slice(4)
        .every((c) => c.secure),
    ).toBe(true);
    expect(r.outs.map((o) => o.control)).toEqual([
      OutControlCode.PERMANENT_OFF_AFTER_TIMED,
      OutControlCode.TEMPORARY_ON,
    ]);
    expect(h.logged.filter((l) => l.msg === 'OSDP NAK')).toEqual([]);
    expect(leaked(h, [relay.status()])).toEqual([]);
  });

  it('the wrong key: offline with one clear reason, said once in the log however often it is probed', async () => {
    h = await openOsdpHarness([{ address: 2, scbk: bytes(OTHER_KEY), enforceSecure: true }]);
    const relay = h.bus.relay(h.config(2, { scbk: KEY }));
    const r = h.sim.reader(2);
    await waitUntil(() => r.received.filter((c) => c.code === OsdpCommand.CHLNG).length >= 4, 8000, 'several attempts');
    expect(relay.status()).toMatchObject({ online: false });
    expect(relay.status().problem).toMatch(/chave do canal seguro \(SCBK\) não confere/);
    expect(h.logged.filter((l) => l.level === 'warn')).toHaveLength(1);
    await expect(Promise.resolve(relay.grant('entrada', 300))).rejects.toMatchObject({ kind: 'offline' });
    expect(leaked(h, [relay.status()])).toEqual([]);
  });

  it('a reader that enforces the secure channel while the box has no key: offline with that reason, logged once, not per poll', async () => {
    h = await openOsdpHarness([{ address: 3, scbk: bytes(KEY), enforceSecure: true }]);
    const relay = h.bus.relay(h.config(3));
    const r = h.sim.reader(3);
    await waitUntil(() => r.received.filter((c) => c.code === OsdpCommand.ID).length >= 4, 8000, 'several probes');
    expect(relay.status().online).toBe(false);
    expect(relay.status().problem).toMatch(/exige canal seguro.*configure a chave \(scbk\)/);
    expect(h.logged.filter((l) => l.level === 'warn').map((l) => l.msg)).toEqual(['OSDP PD offline']);
    // It answers ID and CAP in clear and refuses the rest: the box stops at the first refusal and never polls.
    expect(r.received.filter((c) => c.code === OsdpCommand.POLL)).toEqual([]);
    expect(r.sent.filter((s) => s.code === OsdpReply.NAK).length).toBeGreaterThanOrEqual(3);
  });

  it('a reader that does not run the secure channel while the lane has a key: offline with that reason', async () => {
    h = await openOsdpHarness([{ address: 4, secureCapable: false }]);
    const relay = h.bus.relay(h.config(4, { scbk: KEY }));
    await waitUntil(
      () => relay.status().problem !== null && !relay.status().problem!.includes('reiniciou'),
      8000,
      'problem',
    );
    expect(relay.status().problem).toMatch(/não suporta canal seguro/);
    expect(relay.status().online).toBe(false);
  });

  it('install mode: a session on SCBK-D gives the reader the lane key (KEYSET), then a session on that key', async () => {
    h = await openOsdpHarness([{ address: 5, installMode: true }]);
    const relay = h.bus.relay(h.config(5, { scbk: KEY, installMode: true }));
    await online(relay);
    const r = h.sim.reader(5);
    expect(Buffer.from(r.security.scbk!).toString('hex')).toBe(KEY);
    expect(r.security.installMode).toBe(false);
    const chlngs = r.received.filter((c) => c.code === OsdpCommand.CHLNG);
    // Own key first (the reader cannot prove it), then SCBK-D (key byte 0), then the new key.
    expect(chlngs.length).toBe(3);
    expect(r.received.filter((c) => c.code === OsdpCommand.KEYSET && c.secure)).toHaveLength(1);
    expect(relay.status().device.secureChannel).toBe(true);
    expect(h.logged.some((l) => l.msg.startsWith('OSDP PD took the configured SCBK'))).toBe(true);
    await relay.grant('entrada', 300);
    expect(r.output(0).on).toBe(true);
    expect(leaked(h, [relay.status()])).toEqual([]);
  });

  it('without install mode the box never falls back to SCBK-D', async () => {
    h = await openOsdpHarness([{ address: 6, installMode: true }]);
    const relay = h.bus.relay(h.config(6, { scbk: KEY }));
    const r = h.sim.reader(6);
    await waitUntil(() => relay.status().problem?.includes('não confere'), 8000, 'refused');
    expect(r.security.scbk).toBeNull();
    expect(r.received.some((c) => c.code === OsdpCommand.KEYSET)).toBe(false);
  });

  it('a power cut during a fire alarm: new session with new keys, output back on before online', async () => {
    h = await openOsdpHarness([{ address: 7, scbk: bytes(KEY), enforceSecure: true }]);
    const relay = h.bus.relay(h.config(7, { scbk: KEY }));
    await online(relay);
    const r = h.sim.reader(7);
    await relay.setFreePassage(true);
    r.powerCutAfterReply(2);
    await waitUntil(() => r.powerCuts.length === 1, 5000, 'cut');
    const cut = r.powerCuts[0]!;
    await waitUntil(() => r.output(0).on && relay.status().online, 5000, 'restored');
    const after = exchanges(r)
      .filter((c) => c.at > cut)
      .map((c) => c.code);
    expect(after.slice(1, 6)).toEqual([
      OsdpCommand.ID,
      OsdpCommand.CAP,
      OsdpCommand.CHLNG,
      OsdpCommand.SCRYPT,
      OsdpCommand.OUT,
    ]);
    expect(r.sessionActive()).toBe(true);
  });

  it('a command garbled on the wire: no answer, the reader drops its session, the box re-keys and the grant still goes through', async () => {
    let garbleNext = false;
    const wrapLink = (link: ByteLink): ByteLink => ({
      ...link,
      write(data) {
        if (!garbleNext) return link.write(data);
        garbleNext = false;
        const bad = data.slice();
        bad[bad.length - 1]! ^= 0xff;
        return link.write(bad);
      },
    });
    h = await openOsdpHarness([{ address: 8, scbk: bytes(KEY), enforceSecure: true }], { wrapLink });
    const relay = h.bus.relay(h.config(8, { scbk: KEY }));
    await online(relay);
    const r = h.sim.reader(8);
    await waitUntil(() => polls(r) >= 3, 5000, 'polling');
    garbleNext = true;
    await relay.grant('entrada', 300);
    expect(r.output(0).on).toBe(true);
    expect(r.received.filter((c) => c.code === OsdpCommand.CHLNG)).toHaveLength(2);
    // The resend of the garbled packet found no session: NAK 6 in clear, then a new handshake.
    expect(r.sent.some((s) => s.code === OsdpReply.NAK)).toBe(true);
    expect(relay.status().device.restarts).toBe(1);
  });

  it('SCS types on the wire: 15 for a command without data, 17 with data; the reader answers 16 and 18', async () => {
    h = await openOsdpHarness([{ address: 9, scbk: bytes(KEY) }]);
    const relay = h.bus.relay(h.config(9, { scbk: KEY }));
    await online(relay);
    const r = h.sim.reader(9);
    await relay.grant('entrada', 300);
    r.scan('QR-1');
    await waitUntil(() => r.sent.some((s) => s.code === OsdpReply.RAW), 5000, 'RAW sent');
    const scs = (code: number) =>
      new Set(r.received.filter((c) => c.code === code && c.at > r.received[3]!.at).map((c) => c.scs));
    expect(scs(OsdpCommand.POLL)).toEqual(new Set([Scs.CMD_MAC]));
    expect(scs(OsdpCommand.OUT)).toEqual(new Set([Scs.CMD_ENC]));
    expect(new Set(r.sent.filter((s) => s.code === OsdpReply.ACK && s.scs !== null).map((s) => s.scs))).toEqual(
      new Set([Scs.REPLY_MAC]),
    );
    expect(r.sent.filter((s) => s.code === OsdpReply.RAW).map((s) => s.scs)).toEqual([Scs.REPLY_ENC]);
  });
});
