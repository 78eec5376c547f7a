import { OsdpCommand, type OsdpPacket, type OsdpRejectReason } from './osdp-codec.js';
import { abort, becomeOnline, goOffline, restart } from './osdp-pd-phases.js';
import { onReply } from './osdp-pd-replies.js';
import {
  createPdState,
  failAll,
  schedule,
  secured,
  type NextCommand,
  type PdOptions,
  type PdState,
} from './osdp-pd-state.js';
import { OsdpCommandError, type OsdpPd, type OsdpPdState } from './osdp-types.js';

// One PD as the CP sees it: what to send it next and what its replies mean. Phases:
//   id → cap → [chlng → scrypt → (keyset → chlng ...)] → restore → online,   offline on failure.
// The secure-channel steps run when the lanes file gives the PD a key (SCBK). `restore` puts back
// what the box holds on the PD's outputs (free passage) and sends whatever was queued while it
// was unreachable (a grant under way), so a PD that lost power never comes back as "online" with
// its turnstile in the wrong state. A restart (NAK 4, a reply out of sequence, a lost secure
// session) goes back to `id` at sequence 0 and keeps the queue.
// The steps are module-level functions over one PdState (osdp-pd-state.ts): the phase moves in
// osdp-pd-phases.ts, the replies in osdp-pd-replies.ts, what to send next and the relay's handle here.

/** What the bus drives of one PD. */
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

export function attachPd(o: PdOptions): Pd {
  const s = createPdState(o);
  return {
    address: s.address,
    get phase() {
      return s.phase;
    },
    get seq() {
      return s.seq;
    },
    set seq(seq) {
      s.seq = seq;
    },
    get lastSeenAt() {
      return s.lastSeenAt;
    },
    set lastSeenAt(at) {
      s.lastSeenAt = at;
    },
    get badReply() {
      return s.badReply;
    },
    set badReply(reason) {
      s.badReply = reason;
    },
    attached: () => s.attached,
    next: () => nextCommand(s),
    reply: (command, packet) => onReply(s, command, packet),
    restart: (why) => restart(s, why),
    goOffline: (why) => goOffline(s, why),
    failCurrent(err) {
      s.current?.reject(err);
      s.current = null;
    },
    abort: (err, why) => abort(s, err, why),
    handle: pdHandle(s),
  };
}

/** What to send the PD now, by phase; null: nothing until a timer or a queued command. */
export function nextCommand(s: PdState): NextCommand | null {
  const { sc } = s;
  switch (s.phase) {
    case 'offline':
      if (!s.probeDue) return null;
      s.probeDue = false;
      return { code: OsdpCommand.ID, data: Uint8Array.of(0) };
    case 'id':
      return { code: OsdpCommand.ID, data: Uint8Array.of(0) };
    case 'cap':
      return { code: OsdpCommand.CAP, data: Uint8Array.of(0) };
    case 'chlng': {
      // As libosdp's CP: the handshake starts the sequence over.
      s.seq = null;
      const c = sc!.challenge();
      return { code: OsdpCommand.CHLNG, data: c.data, scb: c.scb };
    }
    case 'scrypt': {
      const c = sc!.scrypt();
      return { code: OsdpCommand.SCRYPT, data: c.data, scb: c.scb };
    }
    case 'keyset':
      return secured(s, OsdpCommand.KEYSET, sc!.keysetData());
    case 'restore':
      s.current = s.restore.shift() ?? s.queue.shift() ?? null;
      if (s.current) return secured(s, s.current.code, s.current.data);
      becomeOnline(s);
      return nextCommand(s);
    case 'online':
      s.current = s.queue.shift() ?? null;
      if (!s.current && !s.pollDue) return null;
      s.pollDue = false;
      schedule(s, 'poll', s.hooks.pollIntervalMs);
      return s.current ? secured(s, s.current.code, s.current.data) : secured(s, OsdpCommand.POLL, new Uint8Array(0));
  }
}

/** What the PD's relay holds: send, state, detach. */
export function pdHandle(s: PdState): OsdpPd {
  const { address, hooks } = s;
  return {
    address,
    send(code, data = new Uint8Array(0)) {
      if (hooks.isClosed() || !s.attached)
        return Promise.reject(new OsdpCommandError(`barramento OSDP ${hooks.path} fechado`, 'closed'));
      if (!hooks.linkUp()) return Promise.reject(new OsdpCommandError(`porta ${hooks.path} desconectada`, 'offline'));
      if (s.phase === 'offline')
        return Promise.reject(new OsdpCommandError(`leitor OSDP ${address} offline`, 'offline'));
      return new Promise((resolve, reject) => {
        s.queue.push({ code, data, resolve, reject });
        hooks.kick();
      });
    },
    state: () => pdSnapshot(s),
    detach() {
      if (!s.attached) return;
      s.attached = false;
      s.unlink();
      hooks.timers.clearTimeout(s.timer);
      failAll(s, new OsdpCommandError(`leitor OSDP ${address} removido`, 'closed'));
    },
  };
}

export function pdSnapshot(s: PdState): OsdpPdState {
  return {
    address: s.address,
    phase: s.phase,
    online: s.phase === 'online' && s.hooks.linkUp(),
    lastSeenAt: s.lastSeenAt,
    problem: s.problem,
    pdId: s.pdId,
    pdCap: s.pdCap,
    sequence: s.seq,
    lastNak: s.lastNak,
    secure: s.sc?.active ?? false,
    keyConfigured: s.sc !== null,
    restarts: s.restarts,
    keyWritten: s.keyWritten,
  };
}
