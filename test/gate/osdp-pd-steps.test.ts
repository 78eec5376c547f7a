import { describe, expect, it } from 'vitest';
import { OsdpCommand, OsdpReply, type OsdpPacket } from '../../src/gate/relays/osdp/osdp-codec.js';
import { OsdpNakReason } from '../../src/gate/relays/osdp/osdp-messages.js';
import { nextCommand, pdSnapshot } from '../../src/gate/relays/osdp/osdp-pd.js';
import { onNak, onReply } from '../../src/gate/relays/osdp/osdp-pd-replies.js';
import { createPdState, type PdHooks } from '../../src/gate/relays/osdp/osdp-pd-state.js';
import type { Log } from '../../src/lib/log.js';
import { manualTimers } from '../support/manual-timers.js';

// One PD's steps reached on their own, over a PdState, with no bus and no port: the phase moves a
// reader goes through are plain functions (osdp-pd.ts). The bus tests run the same steps on a wire.
const silent: Log = { info: () => {}, warn: () => {}, error: () => {} };

function pd(keys: { scbk: Uint8Array; fallback: Uint8Array[] } | null = null) {
  const t = manualTimers();
  const online: boolean[] = [];
  const hooks: PdHooks = {
    log: silent,
    path: '/dev/pts/x',
    timers: t.timers,
    kick: () => {},
    pollIntervalMs: 100,
    offlineRetryMs: 1000,
    linkUp: () => true,
    isClosed: () => false,
  };
  const s = createPdState({ address: 3, handlers: { onOnline: (o) => online.push(o) }, keys, hooks, detach: () => {} });
  return { s, t, online };
}
const reply = (code: number, data = new Uint8Array(0)): OsdpPacket => ({
  address: 3,
  reply: true,
  sequence: 1,
  useCrc: true,
  code,
  data,
  scb: null,
});

describe('an OSDP PD, step by step', () => {
  it('ID, then CAP, then (no key, nothing to restore) online and polled', () => {
    const { s, online } = pd();
    expect(nextCommand(s)?.code).toBe(OsdpCommand.ID);
    onReply(s, OsdpCommand.ID, reply(OsdpReply.PDID, new Uint8Array(12)));
    expect(s.phase).toBe('cap');
    expect(nextCommand(s)?.code).toBe(OsdpCommand.CAP);
    onReply(s, OsdpCommand.CAP, reply(OsdpReply.PDCAP));
    expect(s.phase).toBe('restore');
    expect(nextCommand(s)?.code).toBe(OsdpCommand.POLL);
    expect(pdSnapshot(s)).toMatchObject({ phase: 'online', online: true, problem: null, keyConfigured: false });
    expect(online).toEqual([true]);
  });

  it('a reader without a secure channel, for a lane with a key: offline, named, probed again later', () => {
    const { s, t, online } = pd({ scbk: new Uint8Array(16).fill(7), fallback: [] });
    s.phase = 'chlng';
    onNak(s, OsdpCommand.CHLNG, OsdpNakReason.SC_UNSUPPORTED);
    expect(pdSnapshot(s)).toMatchObject({
      phase: 'offline',
      online: false,
      keyConfigured: true,
      problem: 'Leitor OSDP no endereço 3 não suporta canal seguro (secure channel), mas a pista tem chave configurada',
    });
    expect(online).toEqual([false]);
    expect(nextCommand(s)).toBeNull();
    t.advance(1000);
    expect(nextCommand(s)?.code).toBe(OsdpCommand.ID);
  });
});
