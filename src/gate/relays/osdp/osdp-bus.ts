import type { ByteLink } from '../../serial/byte-link.js';
import {
  OsdpReply,
  createOsdpStreamReader,
  encodeOsdp,
  nextOsdpSequence,
  type OsdpPacket,
  type OsdpRejectReason,
  type OsdpStreamReader,
} from './osdp-codec.js';
import { attachPd, type Pd } from './osdp-pd.js';
import type { PdHooks } from './osdp-pd-state.js';
import { createOsdpRelay } from './osdp-relay.js';
import type { PdKeys } from './osdp-session.js';
import { OsdpCommandError, osdpCommandName, type OsdpBus, type OsdpPdHandlers } from './osdp-types.js';
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

export interface InFlight {
  pd: Pd;
  code: number;
  seq: number;
  bytes: Uint8Array;
  attempts: number;
  busy: boolean;
  timer: unknown;
}

/** One bus's state; the steps below read and change it. */
export interface BusState {
  readonly link: ByteLink;
  readonly log: Log;
  readonly timers: TimerFns;
  readonly clock: Clock;
  readonly path: string;
  readonly replyTimeoutMs: number;
  readonly offlineAfter: number;
  /** What each PD borrows of the bus. */
  readonly hooks: PdHooks;
  readonly reader: OsdpStreamReader;
  readonly pds: Pd[];
  /** Index of the PD served last (round robin). */
  rr: number;
  inflight: InFlight | null;
  kickPending: boolean;
  closed: boolean;
}

export function createOsdpBus(opts: OsdpBusOptions): OsdpBus {
  const s = createBusState(opts);
  const offData = s.link.onData((chunk) => s.reader.push(chunk));
  const offState = s.link.onState((state) =>
    state === 'down'
      ? abortAll(
          s,
          new OsdpCommandError(`porta ${s.path} desconectada`, 'offline'),
          `Porta serial ${s.path} desconectada`,
        )
      : kick(s),
  );
  const bus: OsdpBus = {
    path: s.path,
    attach: (address, handlers = {}, keys = null) => attach(s, address, handlers, keys),
    relay(config) {
      if (config.path !== s.path) throw new Error(`OSDP relay for ${config.path} attached to the bus on ${s.path}`);
      return createOsdpRelay({ bus, config, log: s.log });
    },
    async close() {
      if (s.closed) return;
      s.closed = true;
      abortAll(s, new OsdpCommandError(`barramento OSDP ${s.path} fechado`, 'closed'), null);
      s.pds.splice(0);
      offData();
      offState();
      await s.link.close();
    },
  };
  return bus;
}

export function createBusState(opts: OsdpBusOptions): BusState {
  const { link, log, timers = realTimers, clock = systemClock } = opts;
  const path = link.path;
  const s: BusState = {
    link,
    log,
    timers,
    clock,
    path,
    replyTimeoutMs: opts.replyTimeoutMs ?? 200,
    offlineAfter: Math.max(1, opts.offlineAfter ?? 3),
    hooks: {
      log,
      path,
      timers,
      kick: () => kick(s),
      pollIntervalMs: opts.pollIntervalMs ?? 100,
      offlineRetryMs: opts.offlineRetryMs ?? 1000,
      linkUp: () => link.isUp(),
      isClosed: () => s.closed,
    },
    reader: createOsdpStreamReader(
      (packet) => onPacket(s, packet),
      (reason: OsdpRejectReason) => {
        if (s.inflight) s.inflight.pd.badReply = reason;
      },
    ),
    pds: [],
    rr: -1,
    inflight: null,
    kickPending: false,
    closed: false,
  };
  return s;
}

export function attach(
  s: BusState,
  address: number,
  handlers: OsdpPdHandlers,
  keys: PdKeys | null,
): ReturnType<OsdpBus['attach']> {
  if (!Number.isInteger(address) || address < 0 || address > 126)
    throw new RangeError(`OSDP address must be 0..126, got ${address}`);
  if (s.pds.some((p) => p.address === address)) throw new Error(`OSDP address ${address} already on ${s.path}`);
  if (s.closed) throw new Error(`OSDP bus ${s.path} is closed`);
  const pd = attachPd({ address, handlers, keys, hooks: s.hooks, detach: () => s.pds.splice(s.pds.indexOf(pd), 1) });
  s.pds.push(pd);
  kick(s);
  return pd.handle;
}

/** Serves the PDs on the next turn of the event loop, once however many asked. */
export function kick(s: BusState): void {
  if (s.kickPending || s.closed) return;
  s.kickPending = true;
  s.timers.setTimeout(() => {
    s.kickPending = false;
    pump(s);
  }, 0);
}

/** Sends the next PD's (round robin) next command, when nothing is in flight. */
export function pump(s: BusState): void {
  const { pds } = s;
  if (s.closed || s.inflight || !s.link.isUp()) return;
  for (let i = 1; i <= pds.length; i++) {
    const index = (s.rr + i) % pds.length;
    const pd = pds[index]!;
    const next = pd.next();
    if (!next) continue;
    s.rr = index;
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
    s.inflight = { pd, code: next.code, seq, bytes, attempts: 0, busy: false, timer: null };
    transmit(s, s.inflight);
    return;
  }
}

export function transmit(s: BusState, f: InFlight): void {
  f.attempts++;
  s.reader.reset();
  f.timer = s.timers.setTimeout(() => noReply(s, f), s.replyTimeoutMs);
  // A failed write is a send nobody answers; the link reports the lost port on its own.
  s.link
    .write(f.bytes)
    .catch((err: unknown) => s.log.debug?.({ err, path: s.path, address: f.pd.address }, 'OSDP write failed'));
}

export function noReply(s: BusState, f: InFlight): void {
  if (s.inflight !== f) return;
  const { pd } = f;
  if (pd.attached() && f.attempts < (pd.phase === 'offline' ? 1 : s.offlineAfter)) {
    s.log.debug?.(
      { path: s.path, address: pd.address, command: osdpCommandName(f.code), sequence: f.seq, attempt: f.attempts + 1 },
      'OSDP no reply, sending again',
    );
    transmit(s, f);
    return;
  }
  s.inflight = null;
  if (pd.attached()) {
    if (f.busy)
      pd.failCurrent(
        new OsdpCommandError(`leitor OSDP ${pd.address} ocupado: ${osdpCommandName(f.code)} não executado`, 'busy'),
      );
    else pd.goOffline(null);
  }
  kick(s);
}

/** Fails the exchange under way and every queue; each PD starts over (ID at sequence 0) when sent to again. */
export function abortAll(s: BusState, err: OsdpCommandError, problem: string | null): void {
  const f = s.inflight;
  s.inflight = null;
  if (f) s.timers.clearTimeout(f.timer);
  s.reader.reset();
  for (const pd of s.pds) pd.abort(err, problem);
}

export function onPacket(s: BusState, packet: OsdpPacket): void {
  const f = s.inflight;
  const { log, path } = s;
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
    return settle(s, f, () => f.pd.restart(`resposta com sequência ${packet.sequence} a um comando com ${f.seq}`));
  }
  if (isBusy) {
    // Alive but not ready: the same packet again shortly, as for a missing reply.
    s.timers.clearTimeout(f.timer);
    f.busy = true;
    f.timer = s.timers.setTimeout(() => noReply(s, f), s.hooks.pollIntervalMs);
    return;
  }
  settle(s, f, () => {
    f.pd.lastSeenAt = s.clock.nowIso();
    f.pd.badReply = null;
    f.pd.reply(f.code, packet);
  });
}

function settle(s: BusState, f: InFlight, then: () => void): void {
  s.timers.clearTimeout(f.timer);
  s.inflight = null;
  if (f.pd.attached()) then();
  kick(s);
}
