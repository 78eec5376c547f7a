import { SerialPort } from 'serialport';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  BRIDGE_TYPES,
  FailMode,
  NakReason,
  cobsEncode,
  createFrameReader,
  decodeFrame,
  encodeFrame,
  type BridgeDecodeResult,
  type BridgeMessage,
} from '../../src/gate/relays/bridge/bridge-codec.js';
import { crc16CcittFalse } from '../../src/lib/crc.js';
import { startBridgeBoard, type BridgeBoard } from '../support/bridge-board.js';
import { openPtyPair, waitUntil, type PtyPair } from '../support/pty.js';
import { prng } from '../support/prng.js';

// The host-built firmware on the device side of a pty; these tests play the gate box.

type Command = BridgeMessage extends infer M ? (M extends BridgeMessage ? Omit<M, 'seq' | 'ack'> : never) : never;
const BOARD_EVENTS = new Set(['BOOT', 'STATUS', 'PASSAGE', 'FIRE']);
const LONG_HEARTBEAT_MS = 60_000;

/** The box end: reads frames with the codec's reader and ACKs board events unless told not to. */
class Box {
  readonly frames: { message: BridgeMessage; hex: string }[] = [];
  autoAck = true;
  private seq = 0;
  private readonly reader = createFrameReader((decoded, wire) => this.receive(decoded, wire));

  private constructor(private readonly port: SerialPort) {
    port.on('data', (chunk: Buffer) => this.reader.push(chunk));
  }

  static async open(path: string): Promise<Box> {
    const port = new SerialPort({ path, baudRate: 115_200, autoOpen: false });
    await new Promise<void>((resolve, reject) => port.open((err) => (err ? reject(err) : resolve())));
    // Write errors reach the write callbacks; unheard, the same error as an event would crash the run.
    port.on('error', () => undefined);
    return new Box(port);
  }

  private receive(decoded: BridgeDecodeResult, wire: Uint8Array): void {
    if (!decoded.ok) return;
    this.frames.push({ message: decoded.message, hex: Buffer.from(wire).toString('hex') });
    if (!this.autoAck || !BOARD_EVENTS.has(decoded.message.type)) return;
    this.write(encodeFrame({ type: 'ACK', seq: 0, ack: decoded.message.seq })).catch(() => undefined); // port may be closing
  }

  async write(bytes: Uint8Array): Promise<void> {
    await new Promise<void>((resolve, reject) =>
      this.port.write(Buffer.from(bytes), (err) => (err ? reject(err) : resolve())),
    );
    await new Promise<void>((resolve) => this.port.drain(() => resolve()));
  }

  frame(command: Command): Uint8Array {
    this.seq = (this.seq % 255) + 1;
    return encodeFrame({ ...command, seq: this.seq, ack: 0 } as BridgeMessage);
  }

  /** Writes the bytes of a command and resolves with the board's answer to its seq: "ACK" or "NAK <reason>". */
  async send(bytes: Uint8Array): Promise<string> {
    const decoded = decodeFrame(bytes);
    if (!decoded.ok) throw new Error('send() takes a valid frame');
    const since = this.frames.length;
    await this.write(bytes);
    const answer = await this.waitFor(
      (m) => (m.type === 'ACK' || m.type === 'NAK') && m.ack === decoded.message.seq,
      since,
    );
    return answer.type === 'NAK' ? `NAK ${answer.reason}` : answer.type;
  }

  request(command: Command): Promise<string> {
    return this.send(this.frame(command));
  }

  waitFor(test: (m: BridgeMessage) => boolean, since = 0, timeoutMs = 5000): Promise<BridgeMessage> {
    return waitUntil(
      () => this.frames.slice(since).find((f) => test(f.message))?.message,
      timeoutMs,
      'a frame from the board',
    );
  }

  async close(): Promise<void> {
    if (this.port.isOpen) await new Promise<void>((resolve) => this.port.close(() => resolve()));
  }
}

const nak = (reason: number) => `NAK ${reason}`;

let pty: PtyPair;
let box: Box;
let board: BridgeBoard;

beforeEach(async () => {
  pty = await openPtyPair('bridge');
  box = await Box.open(pty.box);
  board = await startBridgeBoard(pty.device);
});

afterEach(async () => {
  await board?.stop();
  await box?.close();
  await pty?.close();
});

async function bringOnline(failMode: number = FailMode.LOCKED, timeoutMs = LONG_HEARTBEAT_MS): Promise<void> {
  await box.waitFor((m) => m.type === 'BOOT');
  expect(await box.request({ type: 'HELLO', failMode })).toBe('ACK');
  expect(await box.request({ type: 'HEARTBEAT', timeoutMs })).toBe('ACK');
  await board.waitFor('online', 1);
}

describe('bridge firmware (host build) on a pty', () => {
  it('boots with the relay off and repeats the same BOOT until it is acknowledged', async () => {
    box.autoAck = false;
    expect(board.events.find((e) => e.what === 'relay')?.value).toBe(0);
    expect(board.relayOn()).toBe(false);
    await waitUntil(() => box.frames.filter((f) => f.message.type === 'BOOT').length >= 3, 5000, 'three BOOTs');
    const boots = box.frames.filter((f) => f.message.type === 'BOOT');
    expect(new Set(boots.map((b) => b.hex)).size).toBe(1);
    expect(boots[0]!.message).toEqual({ type: 'BOOT', seq: 1, ack: 0, fwMajor: 1, fwMinor: 0, resetCause: 0 });

    await box.write(encodeFrame({ type: 'ACK', seq: 0, ack: 1 }));
    await sleep(300); // a retry already on the wire may still arrive
    const settled = box.frames.length;
    await sleep(500);
    expect(box.frames.slice(settled).filter((f) => f.message.type === 'BOOT')).toEqual([]);
    expect(board.relayOn()).toBe(false);
  });

  it('NAKs a GRANT before HELLO with reason 1, the same way when it is repeated', async () => {
    const grant = box.frame({ type: 'GRANT', direction: 0, pulseMs: 500 });
    expect(await box.send(grant)).toBe(nak(NakReason.NOT_READY));
    expect(await box.send(grant)).toBe(nak(NakReason.NOT_READY));
    expect(await box.request({ type: 'HEARTBEAT', timeoutMs: 1000 })).toBe(nak(NakReason.NOT_READY));
    expect(board.relayOn()).toBe(false);
    expect(board.events.some((e) => e.what === 'grant')).toBe(false);
  });

  it('pulses the relay for a GRANT, timed by the board, and reports the passage with its direction', async () => {
    await bringOnline();
    await box.waitFor((m) => m.type === 'STATUS');
    const since = board.mark();
    expect(await box.request({ type: 'GRANT', direction: 1, pulseMs: 300 })).toBe('ACK');
    const on = await board.waitFor('relay', 1, { since });
    const off = await board.waitFor('relay', 0, { since: on.index });
    expect(off.boardMs - on.boardMs).toBeGreaterThanOrEqual(300);
    await board.waitFor('led green', 1, { since });
    await board.waitFor('buzzer', 1, { since });

    const framesBefore = box.frames.length;
    await board.setPassage();
    expect(await box.waitFor((m) => m.type === 'PASSAGE', framesBefore)).toMatchObject({ direction: 1 });
  });

  it('reports a passage with no grant since boot as IN', async () => {
    await bringOnline();
    await board.setPassage();
    expect(await box.waitFor((m) => m.type === 'PASSAGE')).toMatchObject({ direction: 0 });
  });

  it('re-acknowledges a retransmitted GRANT without pulsing the relay again', async () => {
    await bringOnline();
    const since = board.mark();
    const grant = box.frame({ type: 'GRANT', direction: 0, pulseMs: 200 });
    expect(await box.send(grant)).toBe('ACK');
    expect(await box.send(grant)).toBe('ACK');
    await board.waitFor('relay', 0, { since: (await board.waitFor('relay', 1, { since })).index });
    expect(await box.send(grant)).toBe('ACK');
    await sleep(400);
    expect(board.events.slice(since).filter((e) => e.what === 'relay' && e.value === 1)).toHaveLength(1);
    expect(board.events.slice(since).filter((e) => e.what === 'grant')).toHaveLength(1);
    expect(board.relayOn()).toBe(false);
  });

  it('shows each DENY pattern 0..6 with its own count of red flashes and beeps', async () => {
    await bringOnline();
    // [red flashes, beeps] per pattern (PROTOCOL.md table): counted, not timed. 6 is a full area.
    const expected = [
      [1, 2],
      [1, 1],
      [2, 2],
      [3, 3],
      [4, 4],
      [5, 5],
      [6, 6],
    ] as const;
    const seen: number[][] = [];
    let genericRedMs = 0;
    for (const [pattern, [red, beeps]] of expected.entries()) {
      const since = board.mark();
      expect(await box.request({ type: 'DENY', pattern })).toBe('ACK');
      await board.waitFor('deny', pattern, { since });
      await board.waitForCount('led red', red, { since, value: 0, timeoutMs: 10_000 });
      await board.waitForCount('buzzer', beeps, { since, value: 0, timeoutMs: 10_000 });
      await sleep(350); // longer than a flash period: an extra flash would have started
      const events = board.events.slice(since);
      const changes = (what: string, value: number) => events.filter((e) => e.what === what && e.value === value);
      seen.push([changes('led red', 1).length, changes('buzzer', 1).length]);
      if (pattern === 0) genericRedMs = changes('led red', 0)[0]!.boardMs - changes('led red', 1)[0]!.boardMs;
    }
    expect(seen).toEqual(expected.map((pair) => [...pair]));
    expect(new Set(seen.map((pair) => pair.join('/'))).size).toBe(7);
    expect(await box.request({ type: 'DENY', pattern: 7 })).toBe(nak(NakReason.BAD_PAYLOAD));
    expect(genericRedMs).toBeGreaterThanOrEqual(800); // board tick times: the long flash is never cut short
    expect(board.relayOn()).toBe(false);
  });

  it('holds the relay on FREE 1 until FREE 0, and refuses FREE 2', async () => {
    await bringOnline();
    const since = board.mark();
    expect(await box.request({ type: 'FREE', on: 2 })).toBe(nak(NakReason.BAD_PAYLOAD));
    expect(await box.request({ type: 'FREE', on: 1 })).toBe('ACK');
    await board.waitFor('relay', 1, { since });
    await sleep(600);
    expect(board.relayOn()).toBe(true);
    const held = board.mark();
    expect(await box.request({ type: 'FREE', on: 0 })).toBe('ACK');
    await board.waitFor('relay', 0, { since: held });
    expect(board.events.slice(since).filter((e) => e.what === 'relay')).toHaveLength(2);
  });

  it('never energises the relay for noise, partial frames or GRANTs with a bad CRC', async () => {
    await bringOnline();
    const rand = prng(0xb0a2d);
    const pick = (n: number) => Math.floor(rand() * n);
    const chunks = Array.from({ length: 3000 }, (_, i) => {
      const kind = pick(3);
      if (kind === 0) return Uint8Array.from({ length: 1 + pick(60) }, () => pick(256)); // noise, zeros included
      if (kind === 1) {
        const full = box.frame({ type: 'GRANT', direction: 0, pulseMs: 500 });
        const cut = full.subarray(0, 1 + pick(full.length - 2)); // some closed by a 0x00, some run into the next
        return i % 2 ? cut : Uint8Array.from([...cut, 0]);
      }
      const raw = Uint8Array.from([1, BRIDGE_TYPES.GRANT.code, 1 + (i % 255), 0, 3, 0, 0xf4, 0x01]);
      const crc = crc16CcittFalse(raw) ^ (1 + pick(0xfffe));
      return Uint8Array.from([...cobsEncode(Uint8Array.from([...raw, crc & 0xff, crc >> 8])), 0]);
    });
    const since = board.mark();
    for (let i = 0; i < chunks.length; i += 100) await box.write(Buffer.concat(chunks.slice(i, i + 100)));
    await box.write(Uint8Array.of(0));
    // The board still parses: a real frame after all that is answered.
    expect(await box.request({ type: 'DENY', pattern: 4 })).toBe('ACK');
    const after = board.events.slice(since);
    expect(after.filter((e) => e.what === 'relay' || e.what === 'grant' || e.what === 'free')).toEqual([]);
    expect(board.relayOn()).toBe(false);
  });

  it('on heartbeat silence releases the relay, drops the pulse and a FREE, and refuses commands until a HEARTBEAT', async () => {
    await bringOnline(FailMode.LOCKED, 1000);
    const since = board.mark();
    expect(await box.request({ type: 'FREE', on: 1 })).toBe('ACK');
    expect(await box.request({ type: 'GRANT', direction: 0, pulseMs: 60_000 })).toBe('ACK');
    const granted = await board.waitFor('grant', undefined, { since });
    const offline = await board.waitFor('online', 0, { since, timeoutMs: 10_000 });
    expect(offline.boardMs - granted.boardMs).toBeGreaterThanOrEqual(1000);
    await board.waitFor('relay', 0, { since: granted.index });
    await board.waitFor('led red', 1, { since: offline.index });
    expect(await box.request({ type: 'GRANT', direction: 0, pulseMs: 500 })).toBe(nak(NakReason.NOT_READY));

    const back = board.mark();
    expect(await box.request({ type: 'HEARTBEAT', timeoutMs: LONG_HEARTBEAT_MS })).toBe('ACK');
    await board.waitFor('online', 1, { since: back });
    await board.waitFor('led red', 0, { since: back });
    expect(board.relayOn()).toBe(false);
  });

  it('applies fail mode FREE while offline: relay held before the first HEARTBEAT and after the watchdog fires', async () => {
    await box.waitFor((m) => m.type === 'BOOT');
    const since = board.mark();
    expect(await box.request({ type: 'HELLO', failMode: FailMode.FREE })).toBe('ACK');
    await board.waitFor('relay', 1, { since });
    expect(await box.request({ type: 'HEARTBEAT', timeoutMs: 1000 })).toBe('ACK');
    const online = await board.waitFor('relay', 0, { since });
    const offline = await board.waitFor('online', 0, { since: online.index, timeoutMs: 10_000 });
    await board.waitFor('relay', 1, { since: offline.index });
    expect(await box.request({ type: 'HEARTBEAT', timeoutMs: LONG_HEARTBEAT_MS })).toBe('ACK');
    await board.waitFor('relay', 0, { since: offline.index });
  });

  it('holds the relay while the fire input is asserted: FIRE(1), GRANT ACKed, DENY NAKed 4, release → FIRE(0)', async () => {
    await bringOnline();
    const since = board.mark();
    const framesBefore = box.frames.length;
    await board.setFire(true);
    await board.waitFor('relay', 1, { since });
    expect(await box.waitFor((m) => m.type === 'FIRE', framesBefore)).toMatchObject({ active: 1 });
    await box.waitFor((m) => m.type === 'STATUS' && (m.inputs & 4) !== 0, framesBefore);
    expect(await box.request({ type: 'DENY', pattern: 1 })).toBe(nak(NakReason.FIRE_ACTIVE));
    expect(await box.request({ type: 'GRANT', direction: 0, pulseMs: 50 })).toBe('ACK');
    await sleep(200);
    expect(board.relayOn()).toBe(true);

    const released = box.frames.length;
    await board.setFire(false);
    await board.waitFor('relay', 0, { since });
    expect(await box.waitFor((m) => m.type === 'FIRE', released)).toMatchObject({ active: 0 });
    expect(
      board.events
        .slice(since)
        .filter((e) => e.what === 'relay')
        .map((e) => e.value),
    ).toEqual([1, 0]);
  });

  it('after a board reset sends BOOT again (reset cause external) with the relay off and wants a new HELLO', async () => {
    await bringOnline();
    expect(await box.request({ type: 'FREE', on: 1 })).toBe('ACK');
    await board.waitFor('relay', 1);
    const framesBefore = box.frames.length;
    const boot = await board.reset();
    expect(boot.value).toBe(3);
    expect(board.relayOn()).toBe(false);
    expect(await box.waitFor((m) => m.type === 'BOOT', framesBefore)).toMatchObject({ seq: 1, resetCause: 3 });
    expect(await box.request({ type: 'GRANT', direction: 0, pulseMs: 500 })).toBe(nak(NakReason.NOT_READY));
    await bringOnline();
    expect(await box.request({ type: 'GRANT', direction: 0, pulseMs: 100 })).toBe('ACK');
    await board.waitFor('relay', 1, { since: boot.index });
  });

  it('restart() (the helper) runs a fresh board on the same tty: power-on BOOT, relay off', async () => {
    await bringOnline();
    const framesBefore = box.frames.length;
    const boot = await board.restart();
    expect(boot.value).toBe(0);
    expect(board.relayOn()).toBe(false);
    expect(await box.waitFor((m) => m.type === 'BOOT', framesBefore)).toMatchObject({ seq: 1, resetCause: 0 });
  });
});
