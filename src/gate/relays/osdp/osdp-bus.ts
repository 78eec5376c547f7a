import type { ByteLink } from '../../serial/byte-link.js';
import {
  OsdpReply,
  createOsdpStreamReader,
  encodeOsdp,
  nextOsdpSequence,
  type OsdpPacket,
  type OsdpRejectReason,
} from './osdp-codec.js';
import { attachPd, type Pd } from './osdp-pd.js';
import type { PdHooks } from './osdp-pd-state.js';
import { createOsdpRelay } from './osdp-relay.js';
import { OsdpCommandError, osdpCommandName, type OsdpBus } from './osdp-types.js';
import { systemClock, type Clock } from '../../../clock.js';
import type { Log } from '../../../lib/log.js';
import { realTimers, type TimerFns } from '../../../lib/timers.js';

// The box as OSDP control panel (CP) on one half-duplex bus: one command in flight at a time, PDs
// served round robin (what each PD needs next is osdp-pd.ts's business). No reply within
// replyTimeoutMs → the same bytes again (same sequence, so the PD repeats its last reply instead
// of acting twice); offlineAfter unanswered sends → offline: queued commands fail, and a single ID
// with sequence 0 probes it every offlineRetryMs until it answers.
// A reply counts only if it is a reply, well-formed, from the addressed PD and with the command's
// sequence. Two exceptions, both as libosdp's CP (src/osdp_phy.c, src/osdp_cp.c): BUSY comes with
// sequence 0; and a NAK with another sequence, or any reply with another sequence after a resend,
// means the PD restarted (its NAK carries its own sequence, 0 after a power cut): the PD starts
// over at sequence 0 and its outputs are restored before it counts as online again. Any other
// reply with another sequence is a late copy of an earlier reply and is ignored.

export interface OsdpBusOptions {
  link: ByteLink;
  log: Log;
  timers?: TimerFns;
  clock?: Clock;
  /** Least time between two POLLs of one PD (default 100); queued commands do not wait for it. */
  pollIntervalMs?: number;
  /** Default 200: OSDP gives a PD 200 ms to answer. */
  replyTimeoutMs?: number;
  /** Sends of one command without a valid reply before the PD counts as offline (default 3). */
  offlineAfter?: number;
  /** Time between probes of an offline PD (default 1000). */
  offlineRetryMs?: number;
}

interface InFlight {
  pd: Pd;
  code: number;
  seq: number;
  bytes: Uint8Array;
  attempts: number;
  busy: boolean;
  timer: unknown;
}

export function createOsdpBus(opts: OsdpBusOptions): OsdpBus {
  const { link, log, timers = realTimers, clock = systemClock } = opts;
  const replyTimeoutMs = opts.replyTimeoutMs ?? 200;
  const offlineAfter = Math.max(1, opts.offlineAfter ?? 3);
  const path = link.path;
  const pds: Pd[] = [];
  let rr = -1;
  let inflight: InFlight | null = null;
  let kickPending = false;
  let closed = false;

  const reader = createOsdpStreamReader(onPacket, (reason: OsdpRejectReason) => {
    if (inflight) inflight.pd.badReply = reason;
  });
  const offData = link.onData((chunk) => reader.push(chunk));
  const offState = link.onState((state) =>
    state === 'down'
      ? abortAll(new OsdpCommandError(`porta ${path} desconectada`, 'offline'), `Porta serial ${path} desconectada`)
      : kick(),
  );

  function kick(): void {
    if (kickPending || closed) return;
    kickPending = true;
    timers.setTimeout(() => {
      kickPending = false;
      pump();
    }, 0);
  }

  const hooks: PdHooks = {
    log,
    path,
    timers,
    kick,
    pollIntervalMs: opts.pollIntervalMs ?? 100,
    offlineRetryMs: opts.offlineRetryMs ?? 1000,
    linkUp: () => link.isUp(),
    isClosed: () => closed,
  };

  function pump(): void {
    if (closed || inflight || !link.isUp()) return;
    for (let i = 1; i <= pds.length; i++) {
      const index = (rr + i) % pds.length;
      const pd = pds[index]!;
      const next = pd.next();
      if (!next) continue;
      rr = index;
      const seq = pd.seq === null ? 0 : nextOsdpSequence(pd.seq);
      pd.seq = seq;
      const packet: OsdpPacket = {
        address: pd.address,
        reply: false,
        sequence: seq,
        useCrc: true,
        code: next.code,
        data: next.data,
        scb: next.scb ?? null,
      };
      const bytes = encodeOsdp(packet, next.sign ? { sign: next.sign } : {});
      inflight = { pd, code: next.code, seq, bytes, attempts: 0, busy: false, timer: null };
      transmit(inflight);
      return;
    }
  }

  function transmit(f: InFlight): void {
    f.attempts++;
    reader.reset();
    f.timer = timers.setTimeout(() => noReply(f), replyTimeoutMs);
    // A failed write is a send nobody answers; the link reports the lost port on its own.
    link.write(f.bytes).catch((err: unknown) => log.debug?.({ err, path, address: f.pd.address }, 'OSDP write failed'));
  }

  function noReply(f: InFlight): void {
    if (inflight !== f) return;
    const { pd } = f;
    if (pd.attached() && f.attempts < (pd.phase === 'offline' ? 1 : offlineAfter)) {
      log.debug?.(
        { path, address: pd.address, command: osdpCommandName(f.code), sequence: f.seq, attempt: f.attempts + 1 },
        'OSDP no reply, sending again',
      );
      transmit(f);
      return;
    }
    inflight = null;
    if (pd.attached()) {
      if (f.busy)
        pd.failCurrent(
          new OsdpCommandError(`leitor OSDP ${pd.address} ocupado: ${osdpCommandName(f.code)} não executado`, 'busy'),
        );
      else pd.goOffline(null);
    }
    kick();
  }

  /** Fails the exchange under way and every queue; each PD starts over (ID at sequence 0) when sent to again. */
  function abortAll(err: OsdpCommandError, problem: string | null): void {
    const f = inflight;
    inflight = null;
    if (f) timers.clearTimeout(f.timer);
    reader.reset();
    for (const pd of pds) pd.abort(err, problem);
  }

  function onPacket(packet: OsdpPacket): void {
    const f = inflight;
    // Not a reply: our own command echoed by an RS-485 adapter, or another CP.
    if (!packet.reply) return;
    if (!f || packet.address !== f.pd.address) {
      log.debug?.(
        { path, address: packet.address, sequence: packet.sequence, code: packet.code },
        'OSDP stray reply ignored',
      );
      return;
    }
    const isBusy = packet.code === OsdpReply.BUSY && !packet.scb;
    if (packet.sequence !== f.seq && !isBusy) {
      if (packet.code !== OsdpReply.NAK && f.attempts === 1) {
        log.debug?.(
          { path, address: packet.address, sequence: packet.sequence, code: packet.code },
          'OSDP late reply ignored',
        );
        return;
      }
      return settle(f, () => f.pd.restart(`resposta com sequência ${packet.sequence} a um comando com ${f.seq}`));
    }
    if (isBusy) {
      // Alive but not ready: the same packet again shortly, as for a missing reply.
      timers.clearTimeout(f.timer);
      f.busy = true;
      f.timer = timers.setTimeout(() => noReply(f), hooks.pollIntervalMs);
      return;
    }
    settle(f, () => {
      f.pd.lastSeenAt = clock.nowIso();
      f.pd.badReply = null;
      f.pd.reply(f.code, packet);
    });
  }

  function settle(f: InFlight, then: () => void): void {
    timers.clearTimeout(f.timer);
    inflight = null;
    if (f.pd.attached()) then();
    kick();
  }

  const bus: OsdpBus = {
    path,
    attach(address, handlers = {}, keys = null) {
      if (!Number.isInteger(address) || address < 0 || address > 126)
        throw new RangeError(`OSDP address must be 0..126, got ${address}`);
      if (pds.some((p) => p.address === address)) throw new Error(`OSDP address ${address} already on ${path}`);
      if (closed) throw new Error(`OSDP bus ${path} is closed`);
      const pd = attachPd({ address, handlers, keys, hooks, detach: () => pds.splice(pds.indexOf(pd), 1) });
      pds.push(pd);
      kick();
      return pd.handle;
    },
    relay(config) {
      if (config.path !== path) throw new Error(`OSDP relay for ${config.path} attached to the bus on ${path}`);
      return createOsdpRelay({ bus, config, log });
    },
    async close() {
      if (closed) return;
      closed = true;
      abortAll(new OsdpCommandError(`barramento OSDP ${path} fechado`, 'closed'), null);
      pds.splice(0);
      offData();
      offState();
      await link.close();
    },
  };
  return bus;
}
