import type { ByteLink } from './byte-link.js';
import type { DriverLog } from './relay.js';
import { OsdpCommand, OsdpReply, createOsdpStreamReader, encodeOsdp, nextOsdpSequence, type OsdpPacket, type OsdpRejectReason } from './osdp-codec.js';
import { OsdpNakReason, nakReasonText, parsePdCap, parsePdId } from './osdp-messages.js';
import { OsdpCommandError, createOsdpRelay, type OsdpPd, type OsdpPdHandlers, type OsdpPdState, type OsdpRelayConfig } from './osdp-relay.js';
import type { RelayDriver } from './relay.js';
import { realTimers, type TimerFns } from './scanner-lines.js';

// The box as OSDP control panel (CP) on one half-duplex bus: one command in flight at a time, PDs
// served round robin. Per PD: ID then CAP with sequence 0, 1 (on first contact, after a lost port
// and after being offline), then POLL, or a queued command in its place, with sequence 1, 2, 3, 1...
// No reply within replyTimeoutMs → the same packet again (same sequence, so the PD repeats its
// last reply instead of acting twice); offlineAfter unanswered sends → offline: queued commands
// fail, and a single ID with sequence 0 probes it every offlineRetryMs until it answers.
// A reply counts only if it is a reply, well-formed, from the addressed PD and with the command's
// sequence; anything else is ignored, so it cannot complete (or repeat) an exchange.

export interface OsdpBus {
  readonly path: string;
  attach(address: number, handlers?: OsdpPdHandlers): OsdpPd;
  relay(config: OsdpRelayConfig): RelayDriver;
  /** Fails everything pending and closes the link. */
  close(): Promise<void>;
}

export interface OsdpBusOptions {
  link: ByteLink;
  log: DriverLog;
  timers?: TimerFns;
  now?: () => Date;
  /** Least time between two POLLs of one PD (default 100); queued commands do not wait for it. */
  pollIntervalMs?: number;
  /** Default 200: OSDP gives a PD 200 ms to answer. */
  replyTimeoutMs?: number;
  /** Sends of one command without a valid reply before the PD counts as offline (default 3). */
  offlineAfter?: number;
  /** Time between probes of an offline PD (default 1000). */
  offlineRetryMs?: number;
}

interface Pending {
  code: number;
  data: Uint8Array;
  resolve(reply: OsdpPacket): void;
  reject(err: Error): void;
  resent?: boolean;
}

interface Pd extends Omit<OsdpPdState, 'online' | 'sequence'> {
  handlers: OsdpPdHandlers;
  seq: number | null;
  queue: Pending[];
  /** Poll timer while online, probe timer while offline. */
  timer: unknown;
  pollDue: boolean;
  probeDue: boolean;
  /** Why the last reply awaited from this PD was thrown away, until a good one comes. */
  badReply: OsdpRejectReason | null;
}

interface InFlight {
  pd: Pd;
  code: number;
  seq: number;
  bytes: Uint8Array;
  pending: Pending | null;
  attempts: number;
  busy: boolean;
  timer: unknown;
}


const cmdName = (code: number) => Object.entries(OsdpCommand).find(([, c]) => c === code)?.[0] ?? `0x${code.toString(16)}`;

export function createOsdpBus(opts: OsdpBusOptions): OsdpBus {
  const { link, log, timers = realTimers, now = () => new Date() } = opts;
  const pollIntervalMs = opts.pollIntervalMs ?? 100;
  const replyTimeoutMs = opts.replyTimeoutMs ?? 200;
  const offlineAfter = Math.max(1, opts.offlineAfter ?? 3);
  const offlineRetryMs = opts.offlineRetryMs ?? 1000;
  const path = link.path;
  const pds: Pd[] = [];
  let rr = -1;
  let inflight: InFlight | null = null;
  let kickPending = false;
  let closed = false;

  const reader = createOsdpStreamReader(onPacket, (reason) => {
    if (inflight) inflight.pd.badReply = reason;
  });
  const offData = link.onData((chunk) => reader.push(chunk));
  const offState = link.onState((state) =>
    state === 'down' ? abortAll(new OsdpCommandError(`porta ${path} desconectada`, 'offline'), `Porta serial ${path} desconectada`) : kick(),
  );

  const attached = (pd: Pd) => pds.includes(pd);

  function kick(): void {
    if (kickPending || closed) return;
    kickPending = true;
    timers.setTimeout(() => {
      kickPending = false;
      pump();
    }, 0);
  }

  const ready = (pd: Pd) =>
    pd.phase === 'offline' ? pd.probeDue : pd.phase === 'online' ? pd.queue.length > 0 || pd.pollDue : true;

  function pump(): void {
    if (closed || inflight || !link.isUp()) return;
    for (let i = 1; i <= pds.length; i++) {
      const index = (rr + i) % pds.length;
      const pd = pds[index]!;
      if (!ready(pd)) continue;
      rr = index;
      if (pd.phase === 'online') {
        const pending = pd.queue.shift() ?? null;
        pd.pollDue = false;
        timers.clearTimeout(pd.timer);
        pd.timer = timers.setTimeout(() => {
          pd.pollDue = true;
          kick();
        }, pollIntervalMs);
        start(pd, pending?.code ?? OsdpCommand.POLL, pending?.data ?? new Uint8Array(0), pending);
      } else {
        pd.probeDue = false;
        start(pd, pd.phase === 'cap' ? OsdpCommand.CAP : OsdpCommand.ID, Uint8Array.of(0), null);
      }
      return;
    }
  }

  function start(pd: Pd, code: number, data: Uint8Array, pending: Pending | null): void {
    const seq = pd.seq === null ? 0 : nextOsdpSequence(pd.seq);
    pd.seq = seq;
    const bytes = encodeOsdp({ address: pd.address, reply: false, sequence: seq, useCrc: true, code, data });
    inflight = { pd, code, seq, bytes, pending, attempts: 0, busy: false, timer: null };
    transmit(inflight);
  }

  function transmit(f: InFlight): void {
    f.attempts++;
    reader.reset();
    f.timer = timers.setTimeout(() => noReply(f), replyTimeoutMs);
    // A failed write is a send nobody answers; the link reports the lost port on its own.
    link.write(f.bytes).catch((err: unknown) => log.debug({ err, path, address: f.pd.address }, 'OSDP write failed'));
  }

  function noReply(f: InFlight): void {
    if (inflight !== f) return;
    const { pd } = f;
    if (attached(pd) && f.attempts < (pd.phase === 'offline' ? 1 : offlineAfter)) {
      log.debug({ path, address: pd.address, command: cmdName(f.code), sequence: f.seq, attempt: f.attempts + 1 }, 'OSDP no reply, sending again');
      transmit(f);
      return;
    }
    inflight = null;
    if (!attached(pd)) return kick();
    if (f.busy) f.pending?.reject(new OsdpCommandError(`leitor OSDP ${pd.address} ocupado: ${cmdName(f.code)} não executado`, 'busy'));
    else goOffline(pd, f.pending);
    kick();
  }

  function failAll(pd: Pd, first: Pending | null, err: OsdpCommandError): void {
    first?.reject(err);
    for (const p of pd.queue.splice(0)) p.reject(err);
  }

  function goOffline(pd: Pd, failed: Pending | null): void {
    const was = pd.phase;
    pd.phase = 'offline';
    pd.seq = null;
    pd.problem =
      pd.badReply === 'secure_channel_unsupported'
        ? `Leitor OSDP no endereço ${pd.address} responde em canal seguro (secure channel), que não é suportado: configure-o em modo aberto`
        : pd.badReply
          ? `Leitor OSDP no endereço ${pd.address} não responde corretamente (respostas inválidas: ${pd.badReply})`
          : `Leitor OSDP no endereço ${pd.address} não responde`;
    failAll(pd, failed, new OsdpCommandError(`leitor OSDP ${pd.address} offline`, 'offline'));
    if (was !== 'offline') log.warn({ path, address: pd.address, wasOnline: was === 'online', badReply: pd.badReply }, 'OSDP PD offline');
    timers.clearTimeout(pd.timer);
    pd.timer = timers.setTimeout(() => {
      pd.probeDue = true;
      kick();
    }, offlineRetryMs);
  }

  /** Fails the exchange under way and every queue; each PD starts over (ID at sequence 0) when sent to again. */
  function abortAll(err: OsdpCommandError, problem: string | null): void {
    const f = inflight;
    inflight = null;
    if (f) timers.clearTimeout(f.timer);
    reader.reset();
    for (const pd of pds) {
      timers.clearTimeout(pd.timer);
      pd.phase = 'id';
      pd.seq = null;
      pd.problem = problem;
      failAll(pd, f?.pd === pd ? f.pending : null, err);
    }
  }

  function onPacket(packet: OsdpPacket): void {
    const f = inflight;
    // Not a reply: our own command echoed by an RS-485 adapter, or another CP.
    if (!packet.reply) return;
    if (!f || packet.address !== f.pd.address || packet.sequence !== f.seq) {
      log.debug({ path, address: packet.address, sequence: packet.sequence, code: packet.code }, 'OSDP stray reply ignored');
      return;
    }
    timers.clearTimeout(f.timer);
    inflight = null;
    const { pd } = f;
    pd.lastSeenAt = now().toISOString();
    pd.badReply = null;
    if (attached(pd)) handleReply(f, packet);
    kick();
  }

  function handleReply(f: InFlight, p: OsdpPacket): void {
    const { pd } = f;
    if (p.code === OsdpReply.BUSY) {
      // Alive but not ready: the same packet again shortly, as for a missing reply.
      f.busy = true;
      inflight = f;
      f.timer = timers.setTimeout(() => noReply(f), pollIntervalMs);
      return;
    }
    if (pd.phase !== 'online') return handshake(pd, p);
    if (p.code === OsdpReply.NAK) return nak(f, p.data[0] ?? 0);
    if (p.code === OsdpReply.ACK || p.code === OsdpReply.OSTATR) {
      if (pd.problem !== null) pd.problem = null;
      return f.pending?.resolve(p);
    }
    if (f.code === OsdpCommand.POLL || p.code === OsdpReply.RAW || p.code === OsdpReply.FMT || p.code === OsdpReply.KEYPAD) {
      pd.handlers.onPollReply?.(p);
      // A read in place of a command's ACK: the command is sent again, with a new sequence.
      if (f.pending) pd.queue.unshift(f.pending);
      return;
    }
    f.pending?.reject(new OsdpCommandError(`leitor OSDP ${pd.address}: resposta inesperada 0x${p.code.toString(16)} a ${cmdName(f.code)}`, 'unexpected'));
  }

  // Some readers answer ID or CAP with a NAK or an ACK; what matters here is that they answer.
  function handshake(pd: Pd, p: OsdpPacket): void {
    if (pd.phase === 'cap') {
      if (p.code === OsdpReply.PDCAP) pd.pdCap = parsePdCap(p.data);
      else log.warn({ path, address: pd.address, code: p.code }, 'OSDP CAP not answered with PDCAP');
      pd.phase = 'online';
      pd.problem = null;
      pd.pollDue = true;
      log.info({ path, address: pd.address, pdId: pd.pdId }, 'OSDP PD online');
      pd.handlers.onOnline?.();
      return;
    }
    if (p.code === OsdpReply.PDID) pd.pdId = parsePdId(p.data);
    else log.warn({ path, address: pd.address, code: p.code }, 'OSDP ID not answered with PDID');
    pd.phase = 'cap';
  }

  function nak(f: InFlight, reason: number): void {
    const { pd } = f;
    const text = nakReasonText(reason);
    pd.lastNak = `${cmdName(f.code)}: ${text}`;
    if (reason === OsdpNakReason.CHECK_CHARACTER || reason === OsdpNakReason.SEQUENCE) {
      // The PD did not take the packet: start its sequence over and send the command once more.
      pd.seq = null;
      if (f.pending && !f.pending.resent) {
        f.pending.resent = true;
        pd.queue.unshift(f.pending);
        return;
      }
    }
    if (reason === OsdpNakReason.SC_UNSUPPORTED || reason === OsdpNakReason.SC_CONDITIONS) pd.problem = `Leitor OSDP no endereço ${pd.address}: ${text}`;
    log.warn({ path, address: pd.address, command: cmdName(f.code), reason, text }, 'OSDP NAK');
    f.pending?.reject(new OsdpCommandError(`leitor OSDP ${pd.address} recusou ${cmdName(f.code)}: ${text}`, 'nak', reason));
  }

  function attach(address: number, handlers: OsdpPdHandlers = {}): OsdpPd {
    if (!Number.isInteger(address) || address < 0 || address > 126) throw new RangeError(`OSDP address must be 0..126, got ${address}`);
    if (pds.some((p) => p.address === address)) throw new Error(`OSDP address ${address} already on ${path}`);
    if (closed) throw new Error(`OSDP bus ${path} is closed`);
    const pd: Pd = {
      address, handlers, phase: 'id', seq: null, queue: [], pollDue: false, probeDue: false, timer: null,
      lastSeenAt: null, problem: null, lastNak: null, badReply: null, pdId: null, pdCap: null,
    };
    pds.push(pd);
    kick();
    return {
      address,
      send(code, data = new Uint8Array(0)) {
        if (closed || !attached(pd)) return Promise.reject(new OsdpCommandError(`barramento OSDP ${path} fechado`, 'closed'));
        if (!link.isUp()) return Promise.reject(new OsdpCommandError(`porta ${path} desconectada`, 'offline'));
        if (pd.phase === 'offline') return Promise.reject(new OsdpCommandError(`leitor OSDP ${address} offline`, 'offline'));
        return new Promise((resolve, reject) => {
          pd.queue.push({ code, data, resolve, reject });
          kick();
        });
      },
      state: () => ({
        address, phase: pd.phase, online: pd.phase === 'online' && link.isUp(), lastSeenAt: pd.lastSeenAt,
        problem: pd.problem, pdId: pd.pdId, pdCap: pd.pdCap, sequence: pd.seq, lastNak: pd.lastNak,
      }),
      detach() {
        const i = pds.indexOf(pd);
        if (i < 0) return;
        pds.splice(i, 1);
        timers.clearTimeout(pd.timer);
        failAll(pd, null, new OsdpCommandError(`leitor OSDP ${address} removido`, 'closed'));
      },
    };
  }

  const bus: OsdpBus = {
    path,
    attach,
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
