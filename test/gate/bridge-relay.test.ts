import { setTimeout as sleep } from 'node:timers/promises';
import { SerialPort } from 'serialport';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createFrameReader,
  encodeFrame,
  NakReason,
  type BridgeMessage,
  type BridgeMessageOf,
  type BridgeTypeName,
} from '../../src/gate/relays/bridge/bridge-codec.js';
import { createBridgeRelay } from '../../src/gate/relays/bridge/bridge-relay.js';
import { BridgeCommandError, type BridgeTimings } from '../../src/gate/relays/bridge/bridge-state.js';
import type { LaneConfig } from '../../src/gate/lanes/lane-config.js';
import { openSerialLink, type SerialLink } from '../../src/gate/serial/serial-link.js';
import type { Log } from '../../src/lib/log.js';
import { openPtyPair, waitUntil, type PtyPair } from '../support/pty.js';

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c().catch(() => undefined);
});

type Body<M = BridgeMessage> = M extends BridgeMessage ? Omit<M, 'seq' | 'ack'> : never;
/**
 * How the scripted board answers a host command; `attempt` counts the times it saw that seq.
 * `ackThen`: the ACK and an event of the board's in one write, so the host reads them in one chunk.
 */
type Reply = 'ack' | 'drop' | { nak: number } | { ackSeq: number } | { ackThen: Body };
type Policy = (m: BridgeMessage, attempt: number) => Reply;
interface Seen {
  msg: BridgeMessage;
  hex: string;
}

/** A scripted bridge board on the device side of the pty: answers by policy, sends what it is told. */
async function openBoard(path: string) {
  const port = new SerialPort({ path, baudRate: 115200, autoOpen: false });
  await new Promise<void>((resolve, reject) => port.open((err) => (err ? reject(err) : resolve())));
  port.on('error', () => undefined);
  const seen: Seen[] = [];
  const attempts = new Map<number, number>();
  let policy: Policy = () => 'ack';
  let seq = 0;
  const write = (bytes: Uint8Array) => port.isOpen && port.write(Buffer.from(bytes));
  const reader = createFrameReader((d, wire) => {
    if (!d.ok) return;
    seen.push({ msg: d.message, hex: Buffer.from(wire).toString('hex') });
    if (d.message.type === 'ACK' || d.message.type === 'NAK') return;
    const m = d.message;
    const n = (attempts.get(m.seq) ?? 0) + 1;
    attempts.set(m.seq, n);
    const r = policy(m, n);
    if (r === 'drop') return;
    if (r === 'ack') write(encodeFrame({ type: 'ACK', seq: 0, ack: m.seq }));
    else if ('nak' in r) write(encodeFrame({ type: 'NAK', seq: 0, ack: m.seq, reason: r.nak }));
    else if ('ackThen' in r) {
      seq = seq >= 255 ? 1 : seq + 1;
      write(
        Buffer.concat([
          encodeFrame({ type: 'ACK', seq: 0, ack: m.seq }),
          encodeFrame({ ...r.ackThen, seq, ack: 0 } as BridgeMessage),
        ]),
      );
    } else write(encodeFrame({ type: 'ACK', seq: 0, ack: r.ackSeq }));
  });
  port.on('data', (chunk: Buffer) => reader.push(chunk));
  const board = {
    seen,
    of: <T extends BridgeTypeName>(type: T) =>
      seen.filter((s) => s.msg.type === type).map((s) => s.msg as BridgeMessageOf<T>),
    hexOf: (type: BridgeTypeName) => seen.filter((s) => s.msg.type === type).map((s) => s.hex),
    acksFor: (s: number) => seen.filter((x) => x.msg.type === 'ACK' && x.msg.ack === s).length,
    /** Host commands in the order they were first sent (retransmissions folded). */
    commands: () =>
      seen
        .filter((s, i) => !['ACK', 'NAK'].includes(s.msg.type) && seen.findIndex((o) => o.hex === s.hex) === i)
        .map((s) => s.msg.type),
    answer(p: Policy) {
      policy = p;
      attempts.clear();
    },
    /** Sends an event with the next seq, or with `withSeq` to play a retransmission. */
    send(body: Body, withSeq?: number): number {
      const s = withSeq ?? (seq = seq >= 255 ? 1 : seq + 1);
      write(encodeFrame({ ...body, seq: s, ack: 0 } as BridgeMessage));
      return s;
    },
    boot(resetCause = 0) {
      seq = 0;
      return board.send({ type: 'BOOT', fwMajor: 1, fwMinor: 2, resetCause });
    },
    close: () => new Promise<void>((resolve) => (port.isOpen ? port.close(() => resolve()) : resolve())),
  };
  cleanup.push(board.close);
  return board;
}
/** The error a driver call ended with, or null. */
const failure = (call: Promise<void> | void) =>
  Promise.resolve(call).then(
    () => null,
    (e: unknown) => e,
  );

type Board = Awaited<ReturnType<typeof openBoard>>;

function recordingLog() {
  const entries: { level: string; msg: string }[] = [];
  const at = (level: string) => (_obj: object, msg: string) => void entries.push({ level, msg });
  return { log: { info: at('info'), warn: at('warn'), error: at('error'), debug: at('debug') } satisfies Log, entries };
}

interface Options {
  failMode?: LaneConfig['failMode'];
  heartbeatTimeoutMs?: number;
  timings?: Partial<BridgeTimings>;
}

async function setup(opts: Options = {}) {
  const pair: PtyPair = await openPtyPair('bridge');
  cleanup.push(() => pair.close());
  const board = await openBoard(pair.device);
  const { log, entries } = recordingLog();
  const link: SerialLink = openSerialLink({
    path: pair.box,
    baudRate: 115200,
    log,
    backoff: { initialMs: 20, maxMs: 200 },
  });
  const config = {
    driver: 'bridge' as const,
    path: pair.box,
    baud: 115200 as const,
    pulseMs: 500,
    heartbeatTimeoutMs: opts.heartbeatTimeoutMs ?? 3000,
  };
  // A long boot wait unless a test is about it: HELLO then can only come from a BOOT.
  const relay = createBridgeRelay({
    link,
    config,
    failMode: opts.failMode ?? 'travada',
    log,
    timings: { bootWaitMs: 60_000, ...opts.timings },
  });
  cleanup.push(() => relay.close());
  const passages: number[] = [];
  const fires: boolean[] = [];
  relay.onPassage!(() => passages.push(Date.now()));
  relay.onFire!((a) => fires.push(a));
  return { pair, board, link, relay, passages, fires, entries };
}

async function online(t: { board: Board; relay: ReturnType<typeof createBridgeRelay> }) {
  await waitUntil(() => t.relay.status().device.session === 'booting', 5000, 'link open');
  t.board.boot();
  await waitUntil(() => t.relay.status().online, 5000, 'board online');
}

describe('bridge relay session setup', () => {
  it('discards input until a BOOT, ACKs it, then sends HELLO and HEARTBEAT with the configured values', async () => {
    const t = await setup({ heartbeatTimeoutMs: 4500 });
    await waitUntil(() => t.relay.status().device.session === 'booting', 5000, 'link open');
    // Leftovers from before the open: garbage and a valid event. Neither is answered.
    t.board.send({ type: 'PASSAGE', direction: 0 }, 9);
    t.board.send({ type: 'STATUS', inputs: 1, outputs: 0 }, 10);
    await sleep(200);
    expect(t.board.seen).toEqual([]);
    expect(t.passages).toEqual([]);

    const boot = t.board.boot(1);
    await waitUntil(() => t.relay.status().online, 5000, 'online');
    expect(t.board.commands().slice(0, 2)).toEqual(['HELLO', 'HEARTBEAT']);
    expect(t.board.acksFor(boot)).toBe(1);
    expect(t.board.acksFor(9) + t.board.acksFor(10)).toBe(0);
    expect(t.relay.status().device.inputs).toBeNull();
    expect(t.board.of('HELLO')[0]).toMatchObject({ failMode: 0 });
    expect(t.board.of('HEARTBEAT')[0]).toMatchObject({ timeoutMs: 4500 });
    expect(t.relay.status()).toMatchObject({
      driver: 'bridge',
      online: true,
      failSafe: true,
      problem: null,
      device: { firmware: '1.2', resetCause: 'watchdog' },
    });
    expect(t.relay.status().lastSeenAt).not.toBeNull();
  });

  it('sends HELLO anyway when no BOOT comes within 3 s, with the lane fail mode (livre → FREE)', async () => {
    const t = await setup({ failMode: 'livre', timings: { bootWaitMs: 3000 } });
    await waitUntil(() => t.relay.status().device.session === 'booting', 5000, 'link open');
    const opened = Date.now();
    await waitUntil(() => t.board.of('HELLO').length > 0, 10_000, 'HELLO');
    // Timers never fire early: this is the wait, not a speed claim.
    expect(Date.now() - opened).toBeGreaterThanOrEqual(2900);
    expect(t.board.of('HELLO')[0]).toMatchObject({ failMode: 1 });
    await waitUntil(() => t.relay.status().online, 5000, 'online');
  });
});

describe('bridge relay commands', () => {
  it('retransmits a GRANT with identical bytes while the ACK is lost and resolves on the ACK', async () => {
    const t = await setup();
    await online(t);
    t.board.answer((m, n) => (m.type === 'GRANT' && n < 3 ? 'drop' : 'ack'));
    await t.relay.grant('saida', 700);
    // A slow machine may squeeze in one more retransmission before the ACK lands: never a new frame.
    const grants = t.board.hexOf('GRANT');
    expect(grants.length).toBeGreaterThanOrEqual(3);
    expect(new Set(grants).size).toBe(1);
    expect(t.board.of('GRANT')[0]).toMatchObject({ direction: 1, pulseMs: 700 });
  });

  it('ignores an ACK for a stale seq and keeps retransmitting', async () => {
    const t = await setup();
    await online(t);
    t.board.answer((m, n) => (m.type !== 'GRANT' ? 'ack' : n === 1 ? { ackSeq: m.seq - 1 } : n === 2 ? 'drop' : 'ack'));
    await t.relay.grant('entrada', 500);
    // Accepting the stale ACK would have ended it after the first attempt.
    expect(t.board.hexOf('GRANT').length).toBeGreaterThanOrEqual(3);
    expect(new Set(t.board.hexOf('GRANT')).size).toBe(1);
    expect(t.board.of('GRANT')[0]).toMatchObject({ direction: 0, pulseMs: 500 });
  });

  it('after 10 unanswered attempts: offline, grant rejected, port reopened, grant never replayed', async () => {
    const t = await setup({ timings: { bootWaitMs: 300 } });
    await online(t);
    t.board.answer((m) => (m.type === 'GRANT' ? 'drop' : 'ack'));
    const err = await failure(t.relay.grant('entrada', 500));
    expect(err).toBeInstanceOf(BridgeCommandError);
    expect(String(err)).toMatch(/GRANT/);
    await waitUntil(() => t.board.hexOf('GRANT').length >= 10, 5000, 'ten GRANTs read');
    const grants = t.board.hexOf('GRANT');
    expect(grants).toHaveLength(10);
    expect(new Set(grants).size).toBe(1);
    expect(t.relay.status()).toMatchObject({
      online: false,
      problem: expect.stringMatching(/não respondeu a GRANT após 10 tentativas/),
    });
    await expect(t.relay.grant('entrada', 500)).rejects.toThrow(BridgeCommandError);

    // The board answers again; the link reopens the port and a new session starts.
    t.board.answer(() => 'ack');
    await waitUntil(() => t.link.status().reconnects >= 1, 5000, 'port reopened');
    await waitUntil(() => t.relay.status().online, 10_000, 'online again');
    expect(t.relay.status().problem).toBeNull();
    await sleep(300);
    expect(t.board.hexOf('GRANT')).toHaveLength(10);
    await t.relay.grant('entrada', 500);
    const types = t.board.seen.map((x) => x.msg.type);
    expect(types.lastIndexOf('GRANT')).toBeGreaterThan(types.lastIndexOf('HELLO'));
  });

  it('rejects a NAKed GRANT with the reason, takes a DENY NAKed for fire as done, and re-HELLOs on NAK 1', async () => {
    const t = await setup();
    await online(t);
    t.board.answer((m) =>
      m.type === 'GRANT' ? { nak: NakReason.BAD_PAYLOAD } : m.type === 'DENY' ? { nak: NakReason.FIRE_ACTIVE } : 'ack',
    );
    await expect(t.relay.grant('entrada', 500)).rejects.toThrow(/NAK 2/);
    await expect(t.relay.deny('already_used')).resolves.toBeUndefined();

    t.board.answer((m) => (m.type === 'GRANT' ? { nak: NakReason.NOT_READY } : 'ack'));
    const err = await failure(t.relay.grant('entrada', 500));
    expect(err).toMatchObject({ nakReason: 1 });
    await waitUntil(() => new Set(t.board.hexOf('HELLO')).size === 2, 5000, 'second HELLO');
    await waitUntil(() => t.relay.status().online, 5000, 'online');
  });

  it('wraps seq from 255 to 1, never using 0', async () => {
    const t = await setup();
    await online(t);
    const reasons = [
      'other',
      'already_used',
      'expired',
      'not_yet_valid',
      'not_found',
      'cancelled',
      'capacity',
    ] as const;
    for (let i = 0; i < 260; i++) await t.relay.deny(reasons[i % reasons.length]!);
    // Each reason has its own board pattern; a full area is 6.
    const patterns = t.board.seen
      .filter((x) => x.msg.type === 'DENY')
      .map((x) => (x.msg as { pattern: number }).pattern);
    expect(patterns.slice(0, 7)).toEqual([0, 1, 2, 3, 4, 5, 6]);
    // Retransmissions folded: a slow machine may repeat a frame.
    const seqs = t.board.seen
      .filter((s) => s.msg.type !== 'ACK')
      .map((s) => s.msg.seq)
      .filter((q, i, all) => q !== all[i - 1]);
    expect(seqs).not.toContain(0);
    const at = seqs.indexOf(255);
    expect(at).toBeGreaterThan(0);
    expect(seqs[at + 1]).toBe(1);
  });

  it('sends FREE and sends it again after a new session (HELLO drops it on the board)', async () => {
    const t = await setup();
    await online(t);
    await t.relay.setFreePassage(true);
    expect(t.board.of('FREE')).toMatchObject([{ on: 1 }]);
    expect(t.relay.status().freePassage).toBe(true);
    // The board lost it (watchdog expiry) and says so with the relay off, right behind the ACK that
    // ends the new session's handshake: the host, ready by then, orders it again.
    let frees = 1;
    t.board.answer((m) =>
      m.type === 'FREE' && ++frees === 2 ? { ackThen: { type: 'STATUS', inputs: 0, outputs: 0 } } : 'ack',
    );
    t.board.boot(4);
    await waitUntil(
      () => new Set(t.board.hexOf('FREE')).size === 3,
      5000,
      'FREE after resync, then after a STATUS with the relay off',
    );
    const sent = t.board.commands();
    // (Periodic heartbeats may follow; the session's first ones come a third of its timeout later.)
    expect(sent.slice(sent.lastIndexOf('HELLO'), sent.lastIndexOf('HELLO') + 4)).toEqual([
      'HELLO',
      'HEARTBEAT',
      'FREE',
      'FREE',
    ]);
    expect(t.board.of('FREE').at(-1)).toMatchObject({ on: 1 });
    await t.relay.setFreePassage(false);
    expect(t.board.of('FREE').at(-1)).toMatchObject({ on: 0 });
    t.board.send({ type: 'STATUS', inputs: 0, outputs: 0 });
    await sleep(200);
    expect(t.board.of('FREE').at(-1)).toMatchObject({ on: 0 });
  });
});

describe('bridge relay board events', () => {
  it('delivers a PASSAGE once even when the board repeats it, re-ACKing the repeat', async () => {
    const t = await setup();
    await online(t);
    const s = t.board.send({ type: 'PASSAGE', direction: 0 });
    t.board.send({ type: 'PASSAGE', direction: 0 }, s);
    await waitUntil(() => t.board.acksFor(s) === 2, 5000, 'two ACKs');
    expect(t.passages).toHaveLength(1);
    const next = t.board.send({ type: 'PASSAGE', direction: 0 });
    await waitUntil(() => t.board.acksFor(next) === 1, 5000, 'ACK');
    expect(t.passages).toHaveLength(2);
  });

  it('delivers FIRE(1) and FIRE(0) to onFire, and STATUS to status().device (its fire bit too, once per change)', async () => {
    const t = await setup();
    await online(t);
    t.board.send({ type: 'FIRE', active: 1 });
    await waitUntil(() => t.fires.length === 1, 5000, 'fire on');
    expect(t.relay.status().device.fire).toBe(true);
    const off = t.board.send({ type: 'FIRE', active: 0 });
    await waitUntil(() => t.fires.length === 2, 5000, 'fire off');
    expect(t.fires).toEqual([true, false]);
    await waitUntil(() => t.board.acksFor(off) === 1, 5000, 'ACK of FIRE(0)');
    const st = t.board.send({ type: 'STATUS', inputs: 0b011, outputs: 0b0101 });
    await waitUntil(() => t.board.acksFor(st) === 1, 5000, 'ACK');
    expect(t.relay.status().device).toMatchObject({ inputs: 3, outputs: 5, fire: false });
    expect(t.fires).toEqual([true, false]);
    // A FIRE the board dropped (watchdog expiry) still shows in its next STATUS.
    t.board.send({ type: 'STATUS', inputs: 0b100, outputs: 0b0001 });
    await waitUntil(() => t.fires.length === 3, 5000, 'fire from STATUS');
    const again = t.board.send({ type: 'STATUS', inputs: 0b101, outputs: 0b0001 });
    await waitUntil(() => t.board.acksFor(again) === 1, 5000, 'ACK');
    expect(t.fires).toEqual([true, false, true]);
  });

  it('keeps heartbeats flowing at a third of the timeout', async () => {
    const t = await setup({ heartbeatTimeoutMs: 300 });
    await online(t);
    // Six distinct heartbeats (retransmissions repeat a seq, new heartbeats take new ones).
    await waitUntil(() => new Set(t.board.of('HEARTBEAT').map((h) => h.seq)).size >= 6, 10_000, 'heartbeats');
    expect(t.board.of('HEARTBEAT').every((h) => h.timeoutMs === 300)).toBe(true);
    expect(t.relay.status().online).toBe(true);
  });

  it('on a BOOT mid-session abandons the GRANT in flight and sets the session up again', async () => {
    const t = await setup();
    await online(t);
    t.board.answer((m) => (m.type === 'GRANT' ? 'drop' : 'ack'));
    const grant = failure(t.relay.grant('entrada', 500));
    await waitUntil(() => t.board.of('GRANT').length > 0, 5000, 'GRANT sent');
    t.board.answer(() => 'ack');
    t.board.boot(1);
    expect(await grant).toBeInstanceOf(BridgeCommandError);
    await waitUntil(() => new Set(t.board.hexOf('HELLO')).size === 2, 5000, 'HELLO again');
    await waitUntil(() => t.relay.status().online, 5000, 'online');
    const grants = t.board.of('GRANT').length;
    await sleep(300);
    expect(t.board.of('GRANT').length).toBe(grants);
    expect(t.relay.status().device.resetCause).toBe('watchdog');
  });
});

describe('bridge relay over an unplugged and replugged port', () => {
  it('goes offline on unplug and after replug waits for BOOT again before working', async () => {
    const t = await setup();
    await online(t);
    await t.pair.unplug();
    await waitUntil(() => !t.relay.status().online, 5000, 'offline');
    expect(t.relay.status().problem).toMatch(/desconectada/);
    await expect(t.relay.grant('entrada', 500)).rejects.toThrow(BridgeCommandError);

    await t.pair.replug();
    const board = await openBoard(t.pair.device);
    await waitUntil(() => t.relay.status().device.session === 'booting', 10_000, 'port reopened');
    await sleep(300);
    expect(board.seen).toEqual([]);
    board.boot();
    await waitUntil(() => t.relay.status().online, 5000, 'online again');
    expect(board.commands().slice(0, 2)).toEqual(['HELLO', 'HEARTBEAT']);
    // A fresh session on the host side starts at seq 1.
    expect(board.of('HELLO')[0]!.seq).toBe(1);
    await t.relay.grant('entrada', 500);
    expect(new Set(board.hexOf('GRANT')).size).toBe(1);
  });
});
