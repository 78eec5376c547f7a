import { SerialPort } from 'serialport';
import { OsdpCommand, OsdpReply, createOsdpStreamReader, encodeOsdp, nextOsdpSequence, osdpCrc16, type OsdpPacket } from '../../src/gate/osdp-codec.js';
import {
  OsdpNakReason, OutControlCode, parseBuz, parseLed, parseOut, pdCapData, pdIdData, rawData,
  type BuzzerControl, type LedCommand, type OutControl, type PdCapability, type PdId,
} from '../../src/gate/osdp-messages.js';

/**
 * OSDP peripherals (PDs) on the device side of a pty, in TypeScript: several addresses share the
 * bus like readers on one RS-485 pair. Each follows the spec's sequence rules: 0 restarts, the
 * expected next number is processed, a repeat gets the last reply again without acting twice,
 * anything else a NAK. Knobs make it go silent, corrupt or lose replies, answer for the wrong
 * address or in secure-channel framing, NAK a command, or scan a code (sent as RAW on a POLL).
 */

export interface SimCommand {
  code: number;
  sequence: number;
  data: Uint8Array;
  /** performance.now() when read. */
  at: number;
  /** Answered with the stored last reply (sequence repeat). */
  repeat: boolean;
  /** Seen while silent: not answered. */
  ignored: boolean;
}

export interface OutputChange {
  on: boolean;
  at: number;
}

export interface SimReader {
  readonly address: number;
  readonly received: SimCommand[];
  readonly outs: OutControl[];
  readonly leds: LedCommand[];
  readonly buzzes: BuzzerControl[];
  /** Effective state changes of one output (temporary over permanent). */
  output(n: number): { on: boolean; changes: OutputChange[] };
  /** How many RAW replies went out, counting repeats of a lost one. */
  rawSent(): number;
  silent: boolean;
  /** Replies still to send with a broken CRC; Infinity for all. */
  corrupt: number;
  /** Replies still to drop after acting on the command (a reply lost on the wire). */
  lose: number;
  /** Answer as if from another address. */
  wrongAddress: boolean;
  /** Frame replies with the secure-channel flag (as a reader in secure mode would). */
  secure: boolean;
  nakNext(code: number, reason: number): void;
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
}

export interface OsdpSim {
  reader(address: number): SimReader;
  close(): Promise<void>;
}

const DEFAULT_CAPS: PdCapability[] = [
  { function: 1, compliance: 1, count: 1 }, // contact status
  { function: 2, compliance: 1, count: 2 }, // outputs
  { function: 4, compliance: 1, count: 1 }, // LED
  { function: 5, compliance: 1, count: 1 }, // buzzer
];

function createReader(opts: ReaderOptions, send: (bytes: Uint8Array) => void): SimReader & { handle(p: OsdpPacket): void } {
  const { address } = opts;
  const id = opts.id ?? { vendor: 0x0a0b0c, model: 7, version: 1, serial: 1000 + address, firmware: '2.1.0' };
  const caps = opts.caps ?? DEFAULT_CAPS;
  type Reply = { code: number; data: Uint8Array } & Spoil;
  const events: Reply[] = [];
  const naks = new Map<number, number>();
  const outputs = new Map<number, { permanent: boolean; temp: { on: boolean; timer: ReturnType<typeof setTimeout> } | null; changes: OutputChange[]; on: boolean }>();
  let lastSeq: number | null = null;
  let lastReply: Reply | null = null;
  let raws = 0;
  let held: Uint8Array | null = null;

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
      case OutControlCode.PERMANENT_OFF_ABORT_TIMED: abort(); o.permanent = false; break;
      case OutControlCode.PERMANENT_ON_ABORT_TIMED: abort(); o.permanent = true; break;
      case OutControlCode.PERMANENT_OFF_AFTER_TIMED: o.permanent = false; break;
      case OutControlCode.PERMANENT_ON_AFTER_TIMED: o.permanent = true; break;
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
    const nak = naks.get(p.code);
    if (nak !== undefined) {
      naks.delete(p.code);
      return { code: OsdpReply.NAK, data: Uint8Array.of(nak) };
    }
    const ack = { code: OsdpReply.ACK, data: new Uint8Array(0) };
    const bad = { code: OsdpReply.NAK, data: Uint8Array.of(OsdpNakReason.COMMAND_LENGTH) };
    switch (p.code) {
      case OsdpCommand.POLL:
        return events.shift() ?? ack;
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

  function transmit(sequence: number, useCrc: boolean, reply: Reply): void {
    if (reply.code === OsdpReply.RAW) raws++;
    if ((reply.lose ?? 0) > 0 || sim.lose > 0) {
      if ((reply.lose ?? 0) > 0) reply.lose!--;
      else sim.lose--;
      return;
    }
    const bytes = encodeOsdp({ address: sim.wrongAddress ? (address + 1) % 0x7f : address, reply: true, sequence, useCrc, code: reply.code, data: reply.data });
    const p = bytes.subarray(1); // past the mark byte
    if (sim.secure) {
      p[4]! |= 0x08;
      if (useCrc) {
        const crc = osdpCrc16(p.subarray(0, p.length - 2));
        p[p.length - 2] = crc & 0xff;
        p[p.length - 1] = crc >> 8;
      }
    }
    if ((reply.corrupt ?? 0) > 0 || sim.corrupt > 0) {
      if ((reply.corrupt ?? 0) > 0) reply.corrupt!--;
      else sim.corrupt--;
      p[p.length - 1]! ^= 0x5a;
    }
    if (reply.late) {
      reply.late = false;
      held = bytes;
    } else send(bytes);
  }

  const sim = {
    address,
    received: [] as SimCommand[],
    outs: [] as OutControl[],
    leds: [] as LedCommand[],
    buzzes: [] as BuzzerControl[],
    output: (n: number) => ({ on: outputState(n).on, changes: outputState(n).changes }),
    rawSent: () => raws,
    silent: false,
    corrupt: 0,
    lose: 0,
    wrongAddress: false,
    secure: false,
    nakNext: (code: number, reason: number) => void naks.set(code, reason),
    scan(code: string, spoil: Spoil = {}) {
      const bytes = new TextEncoder().encode(code);
      events.push({ code: OsdpReply.RAW, data: rawData({ reader: 0, format: 0, bitCount: bytes.length * 8, data: bytes }), ...spoil });
    },
    keypad(keys: string) {
      events.push({ code: OsdpReply.KEYPAD, data: Uint8Array.from([0, keys.length, ...Buffer.from(keys, 'latin1')]) });
    },
    handle(p: OsdpPacket) {
      const seen: SimCommand = { code: p.code, sequence: p.sequence, data: p.data, at: performance.now(), repeat: false, ignored: sim.silent };
      sim.received.push(seen);
      if (sim.silent) return;
      if (p.sequence !== 0 && p.sequence === lastSeq && lastReply) {
        seen.repeat = true;
        return transmit(p.sequence, p.useCrc, lastReply);
      }
      if (p.sequence !== 0 && (lastSeq === null || p.sequence !== nextOsdpSequence(lastSeq))) {
        return transmit(p.sequence, p.useCrc, { code: OsdpReply.NAK, data: Uint8Array.of(OsdpNakReason.SEQUENCE) });
      }
      if (held) send(held);
      held = null;
      lastSeq = p.sequence;
      lastReply = act(p);
      transmit(p.sequence, p.useCrc, lastReply);
    },
  };
  return sim;
}

export async function openOsdpSim(path: string, readers: ReaderOptions[], baudRate = 9600): Promise<OsdpSim> {
  const port = new SerialPort({ path, baudRate, autoOpen: false });
  await new Promise<void>((resolve, reject) => port.open((err) => (err ? reject(err) : resolve())));
  port.on('error', () => {});
  const send = (bytes: Uint8Array) => port.write(Buffer.from(bytes));
  const byAddress = new Map(readers.map((r) => [r.address, createReader(r, send)]));
  const stream = createOsdpStreamReader((p) => {
    if (!p.reply) byAddress.get(p.address)?.handle(p);
  });
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
