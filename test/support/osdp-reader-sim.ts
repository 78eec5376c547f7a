import { SerialPort } from 'serialport';
import {
  OsdpCommand,
  OsdpReply,
  createOsdpStreamReader,
  decodeOsdp,
  osdpCrc16,
  type OsdpPacket,
} from '../../src/gate/relays/osdp/osdp-codec.js';
import { Scs } from '../../src/gate/relays/osdp/osdp-secure.js';
import { createPdLink, type PdSecurity, type Reply } from './osdp-pd-link.js';
import {
  OsdpNakReason,
  OutControlCode,
  parseBuz,
  parseLed,
  parseOut,
  pdCapData,
  pdIdData,
  rawData,
  type BuzzerControl,
  type LedCommand,
  type OutControl,
  type PdCapability,
  type PdId,
} from '../../src/gate/relays/osdp/osdp-messages.js';

/**
 * OSDP peripherals (PDs) on the device side of a pty, in TypeScript: several addresses share the
 * bus like readers on one RS-485 pair. The link layer (sequence numbers, secure channel, what gets
 * no answer) is libosdp's PD, quirks included: see osdp-pd-link.ts. Knobs make a PD go silent,
 * corrupt or lose replies, answer for the wrong address, NAK a command, lose power, enforce the
 * secure channel, or scan a code (sent as RAW on a POLL, capped at 64 bytes like libosdp's
 * OSDP_EVENT_CARDREAD_MAX_DATALEN).
 */

export interface SimCommand {
  code: number;
  sequence: number;
  /** The command's data (decrypted when it came over the secure channel). */
  data: Uint8Array;
  /** performance.now() when read. */
  at: number;
  /** Answered with the cached last reply (sequence repeat). */
  repeat: boolean;
  /** Seen while silent: not answered. */
  ignored: boolean;
  /** Came inside an active secure session (SCS_15/17). */
  secure: boolean;
  /** Its security block type, null in clear. */
  scs: number | null;
}

export interface OutputChange {
  on: boolean;
  at: number;
}

export interface SimReader {
  readonly address: number;
  readonly received: SimCommand[];
  /** What went out, decoded far enough to tell (code and sequence; the data may be encrypted). */
  readonly sent: { code: number; sequence: number; at: number; scs: number | null }[];
  readonly outs: OutControl[];
  readonly leds: LedCommand[];
  readonly buzzes: BuzzerControl[];
  readonly security: PdSecurity;
  /** Effective state changes of one output (temporary over permanent). */
  output(n: number): { on: boolean; changes: OutputChange[] };
  /** How many RAW replies went out, counting repeats of a lost one. */
  rawSent(): number;
  sessionActive(): boolean;
  silent: boolean;
  /** Replies still to send with a broken CRC; Infinity for all. */
  corrupt: number;
  /** Replies still to drop after acting on the command (a reply lost on the wire). */
  lose: number;
  /** Answer as if from another address. */
  wrongAddress: boolean;
  nakNext(code: number, reason: number): void;
  /** Loses power and comes back at once: sequence, session, outputs and queued reads are gone. */
  powerCut(): void;
  /** performance.now() of each power cut. */
  readonly powerCuts: number[];
  /** Loses power right after sending its next reply with this sequence number (and code, if given), `times` times. */
  powerCutAfterReply(sequence: number, code?: number, times?: number): void;
  /** Queues the code as RAW card data for the next POLL; `spoil` loses, corrupts or delays its first send. */
  scan(code: string, spoil?: Spoil): void;
  keypad(keys: string): void;
}

export interface Spoil {
  lose?: number;
  corrupt?: number;
  /**
   * The first send is held back and goes out just before the reply to the CP's next new command:
   * a reply so late that the CP already resent, got the repeat, and moved on.
   */
  late?: boolean;
}

export interface ReaderOptions {
  address: number;
  id?: PdId;
  caps?: PdCapability[];
  /** The PD's SCBK; omitted with installMode, the PD has none until a KEYSET. */
  scbk?: Uint8Array;
  installMode?: boolean;
  enforceSecure?: boolean;
  /** Default true: CAP announces the secure channel and the PD runs it. */
  secureCapable?: boolean;
}

export interface OsdpSim {
  reader(address: number): SimReader;
  close(): Promise<void>;
}

/** libosdp include/osdp.h OSDP_EVENT_CARDREAD_MAX_DATALEN: a reader built on it sends at most this. */
export const READER_MAX_CARD_BYTES = 64;

const DEFAULT_CAPS: PdCapability[] = [
  { function: 1, compliance: 1, count: 1 }, // contact status
  { function: 2, compliance: 1, count: 2 }, // outputs
  { function: 4, compliance: 1, count: 1 }, // LED
  { function: 5, compliance: 1, count: 1 }, // buzzer
];
const SECURE_CAP: PdCapability = { function: 9, compliance: 1, count: 0 };

/** Rewrites a finished packet (mark byte first) and fixes its CRC. */
function patch(bytes: Uint8Array, change: (p: Uint8Array) => void): Uint8Array {
  const out = bytes.slice();
  const p = out.subarray(1);
  change(p);
  const crc = osdpCrc16(p.subarray(0, p.length - 2));
  p[p.length - 2] = crc & 0xff;
  p[p.length - 1] = crc >> 8;
  return out;
}

type Event = Reply & Spoil;

function createReader(opts: ReaderOptions, send: (bytes: Uint8Array) => void) {
  const { address } = opts;
  const id = opts.id ?? { vendor: 0x0a0b0c, model: 7, version: 1, serial: 1000 + address, firmware: '2.1.0' };
  const capable = opts.secureCapable ?? true;
  const caps = opts.caps ?? (capable ? [...DEFAULT_CAPS, SECURE_CAP] : DEFAULT_CAPS);
  const security: PdSecurity = {
    scbk: opts.scbk ?? null,
    installMode: opts.installMode ?? false,
    enforceSecure: opts.enforceSecure ?? false,
    capable,
  };
  const events: Event[] = [];
  const naks = new Map<number, number>();
  const outputs = new Map<
    number,
    {
      permanent: boolean;
      temp: { on: boolean; timer: ReturnType<typeof setTimeout> } | null;
      changes: OutputChange[];
      on: boolean;
    }
  >();
  let raws = 0;
  let held: Uint8Array | null = null;
  let spoil: Spoil = {};
  let cutAfter: { sequence: number; code: number | undefined; times: number } | null = null;

  function outputState(n: number) {
    let o = outputs.get(n);
    if (!o) outputs.set(n, (o = { permanent: false, temp: null, changes: [], on: false }));
    return o;
  }

  function settle(n: number): void {
    const o = outputState(n);
    const on = o.temp ? o.temp.on : o.permanent;
    if (on !== o.on) o.changes.push({ on, at: performance.now() });
    o.on = on;
  }

  function applyOut(c: OutControl): void {
    const o = outputState(c.output);
    const abort = () => {
      if (o.temp) clearTimeout(o.temp.timer);
      o.temp = null;
    };
    switch (c.control) {
      case OutControlCode.PERMANENT_OFF_ABORT_TIMED:
        abort();
        o.permanent = false;
        break;
      case OutControlCode.PERMANENT_ON_ABORT_TIMED:
        abort();
        o.permanent = true;
        break;
      case OutControlCode.PERMANENT_OFF_AFTER_TIMED:
        o.permanent = false;
        break;
      case OutControlCode.PERMANENT_ON_AFTER_TIMED:
        o.permanent = true;
        break;
      case OutControlCode.TEMPORARY_ON:
      case OutControlCode.TEMPORARY_OFF: {
        abort();
        const timer = setTimeout(() => {
          o.temp = null;
          settle(c.output);
        }, c.timer * 100);
        timer.unref();
        o.temp = { on: c.control === OutControlCode.TEMPORARY_ON, timer };
        break;
      }
    }
    settle(c.output);
  }

  function act(p: OsdpPacket): Reply {
    if (current) current.data = p.data;
    if (held) send(held);
    held = null;
    spoil = {};
    const nak = naks.get(p.code);
    if (nak !== undefined) {
      naks.delete(p.code);
      return { code: OsdpReply.NAK, data: Uint8Array.of(nak) };
    }
    const ack = { code: OsdpReply.ACK, data: new Uint8Array(0) };
    const bad = { code: OsdpReply.NAK, data: Uint8Array.of(OsdpNakReason.COMMAND_LENGTH) };
    switch (p.code) {
      case OsdpCommand.POLL: {
        const event = events.shift();
        if (!event) return ack;
        spoil = event;
        return event;
      }
      case OsdpCommand.ID:
        return { code: OsdpReply.PDID, data: pdIdData(id) };
      case OsdpCommand.CAP:
        return { code: OsdpReply.PDCAP, data: pdCapData(caps) };
      case OsdpCommand.OUT: {
        const outs = parseOut(p.data);
        if (!outs) return bad;
        for (const o of outs) {
          sim.outs.push(o);
          applyOut(o);
        }
        return ack;
      }
      case OsdpCommand.LED: {
        const led = parseLed(p.data);
        if (!led) return bad;
        sim.leds.push(led);
        return ack;
      }
      case OsdpCommand.BUZ: {
        const buz = parseBuz(p.data);
        if (!buz) return bad;
        sim.buzzes.push(buz);
        return ack;
      }
      default:
        return { code: OsdpReply.NAK, data: Uint8Array.of(OsdpNakReason.UNKNOWN_COMMAND) };
    }
  }

  const link = createPdLink(address, security, act);

  function transmit(bytes: Uint8Array): void {
    const sent = decodeOsdp(bytes);
    if (sent.ok) {
      sim.sent.push({
        code: sent.packet.code,
        sequence: sent.packet.sequence,
        at: performance.now(),
        scs: sent.packet.scb?.type ?? null,
      });
      if (sent.packet.code === OsdpReply.RAW) raws++;
      if (
        cutAfter &&
        cutAfter.sequence === sent.packet.sequence &&
        (cutAfter.code ?? sent.packet.code) === sent.packet.code
      ) {
        if (--cutAfter.times <= 0) cutAfter = null;
        queueMicrotask(() => sim.powerCut());
      }
    }
    if ((spoil.lose ?? 0) > 0 || sim.lose > 0) {
      if ((spoil.lose ?? 0) > 0) spoil.lose!--;
      else sim.lose--;
      return;
    }
    let out = sim.wrongAddress ? patch(bytes, (p) => void (p[1] = 0x80 | ((address + 1) % 0x7f))) : bytes;
    if ((spoil.corrupt ?? 0) > 0 || sim.corrupt > 0) {
      if ((spoil.corrupt ?? 0) > 0) spoil.corrupt!--;
      else sim.corrupt--;
      out = out.slice();
      out[out.length - 1]! ^= 0x5a;
    }
    if (spoil.late) {
      spoil.late = false;
      held = out;
    } else send(out);
  }

  const sim = {
    address,
    received: [] as SimCommand[],
    sent: [] as SimReader['sent'],
    outs: [] as OutControl[],
    leds: [] as LedCommand[],
    buzzes: [] as BuzzerControl[],
    security,
    output: (n: number) => ({ on: outputState(n).on, changes: outputState(n).changes }),
    rawSent: () => raws,
    sessionActive: () => link.sessionActive(),
    silent: false,
    corrupt: 0,
    lose: 0,
    wrongAddress: false,
    nakNext: (code: number, reason: number) => void naks.set(code, reason),
    powerCuts: [] as number[],
    powerCut() {
      sim.powerCuts.push(performance.now());
      link.reset();
      events.length = 0;
      held = null;
      for (const [n, o] of outputs) {
        if (o.temp) clearTimeout(o.temp.timer);
        o.temp = null;
        o.permanent = false;
        settle(n);
      }
    },
    powerCutAfterReply: (sequence: number, code?: number, times = 1) => void (cutAfter = { sequence, code, times }),
    scan(code: string, s: Spoil = {}) {
      const bytes = new TextEncoder().encode(code).subarray(0, READER_MAX_CARD_BYTES);
      events.push({
        code: OsdpReply.RAW,
        data: rawData({ reader: 0, format: 0, bitCount: bytes.length * 8, data: bytes }),
        ...s,
      });
    },
    keypad(keys: string) {
      events.push({ code: OsdpReply.KEYPAD, data: Uint8Array.from([0, keys.length, ...Buffer.from(keys, 'latin1')]) });
    },
    garbled: () => link.garbled(),
    handle(p: OsdpPacket) {
      const seen: SimCommand = {
        code: p.code,
        sequence: p.sequence,
        data: p.data,
        at: performance.now(),
        repeat: false,
        ignored: sim.silent,
        secure: (p.scb?.type ?? 0) >= Scs.CMD_MAC,
        scs: p.scb?.type ?? null,
      };
      sim.received.push(seen);
      if (sim.silent) return;
      current = seen;
      const { bytes, repeat } = link.receive(p);
      current = null;
      seen.repeat = repeat;
      transmit(bytes);
    },
  };
  /** The command being handled: act() records its decrypted data there. */
  let current: SimCommand | null = null;
  return sim;
}

export async function openOsdpSim(path: string, readers: ReaderOptions[], baudRate = 9600): Promise<OsdpSim> {
  const port = new SerialPort({ path, baudRate, autoOpen: false });
  await new Promise<void>((resolve, reject) => port.open((err) => (err ? reject(err) : resolve())));
  port.on('error', () => {});
  const send = (bytes: Uint8Array) => port.write(Buffer.from(bytes));
  const byAddress = new Map(readers.map((r) => [r.address, createReader(r, send)]));
  const stream = createOsdpStreamReader(
    (p) => {
      if (!p.reply) byAddress.get(p.address)?.handle(p);
    },
    // Every PD on the pair sees a garbled packet before it can tell whom it was for.
    () => byAddress.forEach((r) => r.garbled()),
  );
  port.on('data', (chunk: Buffer) => stream.push(chunk));
  return {
    reader(address) {
      const r = byAddress.get(address);
      if (!r) throw new Error(`no simulated reader at ${address}`);
      return r;
    },
    async close() {
      if (port.isOpen) await new Promise<void>((resolve) => port.close(() => resolve()));
    },
  };
}
