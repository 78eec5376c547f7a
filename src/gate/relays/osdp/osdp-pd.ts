import {
  OsdpCommand,
  OsdpReply,
  type OsdpPacket,
  type OsdpRejectReason,
  type OsdpSecurityBlock,
} from './osdp-codec.js';
import { OsdpNakReason, nakReasonText, parsePdCap, parsePdId } from './osdp-messages.js';
import { OsdpCommandError, type OsdpPd, type OsdpPdHandlers, type OsdpPdState } from './osdp-relay.js';
import { Scs } from './osdp-secure.js';
import { createCpSecureSession, type CpSecureSession, type PdKeys } from './osdp-session.js';
import type { Log } from '../../../lib/log.js';
import type { TimerFns } from '../../../lib/timers.js';

// One PD as the CP sees it: what to send it next and what its replies mean. Phases:
//   id → cap → [chlng → scrypt → (keyset → chlng ...)] → restore → online,   offline on failure.
// The secure-channel steps run when the lanes file gives the PD a key (SCBK). `restore` puts back
// what the box holds on the PD's outputs (free passage) and sends whatever was queued while it
// was unreachable (a grant under way), so a PD that lost power never comes back as "online" with
// its turnstile in the wrong state. A restart (NAK 4, a reply out of sequence, a lost secure
// session) goes back to `id` at sequence 0 and keeps the queue.

export interface PdHooks {
  log: Log;
  path: string;
  timers: TimerFns;
  kick(): void;
  pollIntervalMs: number;
  offlineRetryMs: number;
  linkUp(): boolean;
  isClosed(): boolean;
}

export interface NextCommand {
  code: number;
  data: Uint8Array;
  scb?: OsdpSecurityBlock;
  sign?: (signed: Uint8Array) => Uint8Array;
}

interface Pending {
  code: number;
  data: Uint8Array;
  resolve(reply: OsdpPacket): void;
  reject(err: Error): void;
  /** Already sent again once after a restart. */
  retried?: boolean;
  /** Part of a restore: made anew by the next one, never carried over (it could be stale). */
  restoring?: boolean;
}

export interface Pd {
  readonly address: number;
  readonly phase: OsdpPdState['phase'];
  /** Sequence of the last command sent; null: the next one restarts with 0. */
  seq: number | null;
  lastSeenAt: string | null;
  /** Why the last reply awaited from this PD was thrown away, until a good one comes. */
  badReply: OsdpRejectReason | null;
  readonly handle: OsdpPd;
  attached(): boolean;
  next(): NextCommand | null;
  reply(command: number, packet: OsdpPacket): void;
  restart(why: string): void;
  goOffline(problem: string | null): void;
  failCurrent(err: OsdpCommandError): void;
  abort(err: OsdpCommandError, problem: string | null): void;
}

/** Restarts in a row without reaching online before the PD is left offline. */
const MAX_RESTARTS = 3;
export const osdpCommandName = (code: number) =>
  Object.entries(OsdpCommand).find(([, c]) => c === code)?.[0] ?? `0x${code.toString(16)}`;

export function attachPd(o: {
  address: number;
  handlers: OsdpPdHandlers;
  keys: PdKeys | null;
  hooks: PdHooks;
  detach(): void;
}): Pd {
  const { address, handlers, hooks } = o;
  const { log, path, timers } = hooks;
  const sc: CpSecureSession | null = o.keys ? createCpSecureSession(o.keys) : null;
  const who = `Leitor OSDP no endereço ${address}`;
  let phase: OsdpPdState['phase'] = 'id';
  let queue: Pending[] = [];
  let restore: Pending[] = [];
  let current: Pending | null = null;
  let timer: unknown = null;
  let pollDue = false;
  let probeDue = false;
  let attached = true;
  let problem: string | null = null;
  /** What the log last said about this PD: 'online' or the problem; logs only on change. */
  let logged: string | null = null;
  let restarts = 0;
  let keyWritten = false;
  let restartsInRow = 0;
  let lastNak: string | null = null;
  let pdId: OsdpPdState['pdId'] = null;
  let pdCap: OsdpPdState['pdCap'] = null;

  function failAll(err: OsdpCommandError): void {
    for (const p of [current, ...queue, ...restore]) p?.reject(err);
    current = null;
    queue = [];
    restore = [];
  }

  function schedule(flag: 'poll' | 'probe', ms: number): void {
    timers.clearTimeout(timer);
    timer = timers.setTimeout(() => {
      if (flag === 'poll') pollDue = true;
      else probeDue = true;
      hooks.kick();
    }, ms);
  }

  const secured = (code: number, data: Uint8Array): NextCommand =>
    sc?.active ? { code, ...sc.wrap(data) } : { code, data };

  function next(): NextCommand | null {
    switch (phase) {
      case 'offline':
        if (!probeDue) return null;
        probeDue = false;
        return { code: OsdpCommand.ID, data: Uint8Array.of(0) };
      case 'id':
        return { code: OsdpCommand.ID, data: Uint8Array.of(0) };
      case 'cap':
        return { code: OsdpCommand.CAP, data: Uint8Array.of(0) };
      case 'chlng': {
        // As libosdp's CP: the handshake starts the sequence over.
        pd.seq = null;
        const c = sc!.challenge();
        return { code: OsdpCommand.CHLNG, data: c.data, scb: c.scb };
      }
      case 'scrypt': {
        const s = sc!.scrypt();
        return { code: OsdpCommand.SCRYPT, data: s.data, scb: s.scb };
      }
      case 'keyset':
        return secured(OsdpCommand.KEYSET, sc!.keysetData());
      case 'restore':
        current = restore.shift() ?? queue.shift() ?? null;
        if (current) return secured(current.code, current.data);
        becomeOnline();
        return next();
      case 'online':
        current = queue.shift() ?? null;
        if (!current && !pollDue) return null;
        pollDue = false;
        schedule('poll', hooks.pollIntervalMs);
        return current ? secured(current.code, current.data) : secured(OsdpCommand.POLL, new Uint8Array(0));
    }
  }

  function becomeOnline(): void {
    phase = 'online';
    problem = null;
    pollDue = true;
    restartsInRow = 0;
    if (logged !== 'online') log.info({ path, address, pdId, secure: sc?.active ?? false }, 'OSDP PD online');
    logged = 'online';
    handlers.onOnline?.(true);
  }

  function enterRestore(): void {
    phase = 'restore';
    restore = (handlers.restore?.() ?? []).map((c) => ({
      ...c,
      restoring: true,
      resolve: () => {},
      // Why is logged where it happens (a NAK, the PD going offline).
      reject: (err: Error) => log.debug?.({ err, path, address }, 'OSDP output not restored'),
    }));
  }

  function goOffline(why: string | null): void {
    const reason =
      why ??
      (pd.badReply ? `${who} não responde corretamente (respostas inválidas: ${pd.badReply})` : `${who} não responde`);
    phase = 'offline';
    pd.seq = null;
    sc?.reset();
    problem = reason;
    failAll(new OsdpCommandError(`leitor OSDP ${address} offline`, 'offline'));
    if (logged !== reason) log.warn({ path, address, problem: reason }, 'OSDP PD offline');
    logged = reason;
    schedule('probe', hooks.offlineRetryMs);
    handlers.onOnline?.(false);
  }

  function restart(why: string): void {
    restarts++;
    if (++restartsInRow > MAX_RESTARTS) return goOffline(`${who} reinicia repetidamente (${why})`);
    log.warn(
      { path, address, why },
      'OSDP PD restarted or lost its session: starting over, then restoring its outputs',
    );
    if (current && !current.restoring) {
      if (current.retried)
        current.reject(
          new OsdpCommandError(
            `leitor OSDP ${address} reiniciou duas vezes durante ${osdpCommandName(current.code)}`,
            'offline',
          ),
        );
      else queue.unshift({ ...current, retried: true });
    }
    current = null;
    restore = [];
    const wasOnline = phase === 'online';
    phase = 'id';
    pd.seq = null;
    sc?.reset();
    pollDue = false;
    timers.clearTimeout(timer);
    problem = `${who} reiniciou ou perdeu a sessão: restabelecendo`;
    logged = problem;
    if (wasOnline) handlers.onOnline?.(false);
  }

  function wrongKey(): void {
    if (sc!.tryNextKey()) phase = 'chlng';
    else goOffline(`${who}: a chave do canal seguro (SCBK) não confere com a do leitor`);
  }

  function reply(command: number, p: OsdpPacket): void {
    let data = p.data;
    const macked = (p.scb?.type ?? 0) >= Scs.REPLY_MAC;
    if (sc?.active && macked) {
      const opened = sc.open(p);
      if (!opened.ok) return restart(opened.why === 'mac' ? 'MAC da resposta inválido' : 'bloco cifrado inválido');
      data = opened.data;
    } else if (macked) {
      return restart('resposta em canal seguro sem sessão');
    } else if (
      sc?.active &&
      p.code !== OsdpReply.NAK &&
      !(command === OsdpCommand.KEYSET && p.code === OsdpReply.ACK)
    ) {
      // A PD that dropped the session answers NAKs in clear (libosdp); anything else in clear is not ours.
      return restart('resposta sem canal seguro durante a sessão');
    }
    if (p.code === OsdpReply.NAK) return nak(command, data[0] ?? 0);
    if (phase === 'restore' || phase === 'online') return online(command, p.code, { ...p, data });
    step(p.code, data);
  }

  /** One handshake step; `code` null for a NAK to ID or CAP. */
  function step(code: number | null, data: Uint8Array): void {
    switch (phase) {
      case 'offline': // the probe was answered
      case 'id':
        if (code === OsdpReply.PDID) pdId = parsePdId(data);
        else log.warn({ path, address, code }, 'OSDP ID not answered with PDID');
        phase = 'cap';
        return;
      case 'cap':
        if (code === OsdpReply.PDCAP) pdCap = parsePdCap(data);
        else log.warn({ path, address, code }, 'OSDP CAP not answered with PDCAP');
        if (sc) phase = 'chlng';
        else enterRestore();
        return;
      case 'chlng':
        if (code === OsdpReply.CCRYPT && sc!.acceptCcrypt(data)) phase = 'scrypt';
        else wrongKey();
        return;
      case 'scrypt':
        if (code !== OsdpReply.RMAC_I || !sc!.acceptRmacI(data)) return wrongKey();
        if (sc!.needsKeyset) phase = 'keyset';
        else enterRestore();
        return;
      case 'keyset':
        if (code !== OsdpReply.ACK) return goOffline(`${who} não confirmou a nova chave do canal seguro`);
        sc!.keysetDone();
        keyWritten = true;
        log.info({ path, address }, 'OSDP PD took the configured SCBK: starting a session with it');
        phase = 'chlng';
        return;
    }
  }

  function online(command: number, code: number, p: OsdpPacket): void {
    const pending = current;
    current = null;
    if (code === OsdpReply.ACK || code === OsdpReply.OSTATR) {
      if (phase === 'online') problem = null;
      return pending?.resolve(p);
    }
    if (command === OsdpCommand.POLL || code === OsdpReply.RAW || code === OsdpReply.FMT || code === OsdpReply.KEYPAD) {
      handlers.onPollReply?.(p);
      // A read in place of a command's ACK: the command is sent again, with a new sequence.
      if (pending) queue.unshift(pending);
      return;
    }
    pending?.reject(
      new OsdpCommandError(
        `leitor OSDP ${address}: resposta inesperada 0x${code.toString(16)} a ${osdpCommandName(command)}`,
        'unexpected',
      ),
    );
  }

  function nak(command: number, reason: number): void {
    const text = nakReasonText(reason);
    lastNak = `${osdpCommandName(command)}: ${text}`;
    if (reason === OsdpNakReason.SEQUENCE || reason === OsdpNakReason.CHECK_CHARACTER)
      return restart(`NAK ${reason} a ${osdpCommandName(command)}`);
    // Some readers answer ID or CAP with a NAK; what matters here is that they answer.
    if (phase === 'offline' || phase === 'id' || phase === 'cap') return step(null, new Uint8Array(0));
    if (phase === 'chlng' || phase === 'scrypt') {
      if (reason === OsdpNakReason.SC_UNSUPPORTED && phase === 'chlng')
        return goOffline(`${who} não suporta canal seguro (secure channel), mas a pista tem chave configurada`);
      return wrongKey();
    }
    if (phase === 'keyset') return goOffline(`${who} recusou a nova chave do canal seguro (${text})`);
    if (reason === OsdpNakReason.SC_CONDITIONS) {
      if (sc) return restart(`NAK ${reason}: sessão segura perdida`);
      return goOffline(`${who} exige canal seguro (secure channel): configure a chave (scbk) da pista`);
    }
    log.warn({ path, address, command: osdpCommandName(command), reason, text }, 'OSDP NAK');
    const pending = current;
    current = null;
    pending?.reject(
      new OsdpCommandError(`leitor OSDP ${address} recusou ${osdpCommandName(command)}: ${text}`, 'nak', reason),
    );
  }

  const pd: Pd = {
    address,
    get phase() {
      return phase;
    },
    seq: null,
    lastSeenAt: null,
    badReply: null,
    attached: () => attached,
    next,
    reply,
    restart,
    goOffline,
    failCurrent(err) {
      current?.reject(err);
      current = null;
    },
    abort(err, why) {
      timers.clearTimeout(timer);
      phase = 'id';
      pd.seq = null;
      sc?.reset();
      problem = why;
      logged = why;
      failAll(err);
      // why null: the bus is closing, not the port lost.
      if (why !== null) handlers.onOnline?.(false);
    },
    handle: {
      address,
      send(code, data = new Uint8Array(0)) {
        if (hooks.isClosed() || !attached)
          return Promise.reject(new OsdpCommandError(`barramento OSDP ${path} fechado`, 'closed'));
        if (!hooks.linkUp()) return Promise.reject(new OsdpCommandError(`porta ${path} desconectada`, 'offline'));
        if (phase === 'offline')
          return Promise.reject(new OsdpCommandError(`leitor OSDP ${address} offline`, 'offline'));
        return new Promise((resolve, reject) => {
          queue.push({ code, data, resolve, reject });
          hooks.kick();
        });
      },
      state: () => ({
        address,
        phase,
        online: phase === 'online' && hooks.linkUp(),
        lastSeenAt: pd.lastSeenAt,
        problem,
        pdId,
        pdCap,
        sequence: pd.seq,
        lastNak,
        secure: sc?.active ?? false,
        keyConfigured: sc !== null,
        restarts,
        keyWritten,
      }),
      detach() {
        if (!attached) return;
        attached = false;
        o.detach();
        timers.clearTimeout(timer);
        failAll(new OsdpCommandError(`leitor OSDP ${address} removido`, 'closed'));
      },
    },
  };
  return pd;
}
