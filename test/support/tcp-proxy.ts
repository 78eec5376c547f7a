import net from 'node:net';
import { prng } from './prng.js';

/**
 * What the proxy does with the link between a box and the hub:
 * - `pass`: forwards both ways;
 * - `reset`: every connection, current and new, ends at once with a TCP RST on both sides (a cable pulled from a
 *   switch that answers for the peer, a hub host rebooting);
 * - `blackhole`: connections stay open and new ones are accepted, but nothing crosses either way: bytes are read and
 *   dropped, a close on one side is not passed on (Wi-Fi gone, no RST: only the peers' pings can tell).
 * - `delay`: every byte still crosses, in order, but late (a congested Wi-Fi at the rush): each chunk, or a `fraction`
 *   of them, waits `ms` plus up to `jitterMs` (see Delay). A chunk never overtakes an earlier one of its direction,
 *   so a quick one waits behind a slow one, as on a real link.
 *
 * Back to `pass`, every connection that lived through a blackhole is reset on both sides, as the real link's return
 * does: each side's next packet meets a peer that gave the connection up (or whose bytes were lost, which TCP
 * cannot skip), and gets an RST. So clients reconnect at once instead of waiting for their connect timeout, and the
 * hub drops a box's old connection instead of keeping it until its own ping gives up. New connections forward.
 */
export type LinkMode = 'pass' | 'reset' | 'blackhole' | 'delay';

/**
 * How `delay` delays. Keep `ms + jitterMs` well under 1 s: the NATS client pings every second and drops a link after
 * 2 pings without answer, and a delay that long is a different fault (`blackhole`).
 */
export interface Delay {
  ms: number;
  /** Up to this much more, drawn per chunk (default 0). */
  jitterMs?: number;
  /** The share of chunks delayed (default 1); the others cross at once unless an earlier chunk still waits. */
  fraction?: number;
  /** Seeds the draws, so a run delays the same chunks each time (default 1). */
  seed?: number;
}

/** One direction's chunks on their way, oldest first, each with the time it is due. */
interface Lane {
  queue: { chunk: Buffer; due: number }[];
  timer: NodeJS.Timeout | undefined;
  /** The source closed: close the other side once the queue is written. */
  closing: boolean;
}

interface Link {
  client: net.Socket;
  upstream: net.Socket | undefined;
  /** Forwarding stopped by a blackhole: never resumes (its bytes were dropped). */
  dead: boolean;
  lanes: Lane[];
}

const reset = (s: net.Socket | undefined) => {
  if (s && !s.destroyed) s.resetAndDestroy();
};

/** A TCP proxy on 127.0.0.1 in front of `target`, whose link the test cuts and heals. */
export async function startTcpProxy(target: { host: string; port: number }) {
  const links = new Set<Link>();
  let mode: LinkMode = 'pass';
  let delay: Required<Delay> = { ms: 0, jitterMs: 0, fraction: 1, seed: 1 };
  let draw = prng(delay.seed);

  const drop = (link: Link) => {
    for (const lane of link.lanes) clearTimeout(lane.timer);
    reset(link.client);
    reset(link.upstream);
    links.delete(link);
  };

  /** When a chunk read now may go: at once, or late by the delay; never before the chunk ahead of it. */
  const dueOf = (lane: Lane) => {
    const late = mode === 'delay' && draw() < delay.fraction ? delay.ms + draw() * delay.jitterMs : 0;
    return Math.max(Date.now() + late, lane.queue.at(-1)?.due ?? 0);
  };

  /** Copies `from` to `to` while the link is alive, with backpressure, late when delayed (in order either way). */
  const forward = (link: Link, from: net.Socket, to: net.Socket) => {
    const lane: Lane = { queue: [], timer: undefined, closing: false };
    link.lanes.push(lane);
    const write = (chunk: Buffer) => {
      if (!to.write(chunk)) {
        from.pause();
        to.once('drain', () => from.resume());
      }
    };
    const release = () => {
      lane.timer = undefined;
      if (link.dead || to.destroyed) return void (lane.queue.length = 0);
      while (lane.queue.length > 0 && lane.queue[0]!.due <= Date.now()) write(lane.queue.shift()!.chunk);
      if (lane.queue.length > 0) lane.timer = setTimeout(release, lane.queue[0]!.due - Date.now());
      else if (lane.closing) {
        // The bytes that were on their way when the peer closed still arrive, then the close.
        to.end();
        links.delete(link);
      }
    };
    from.on('data', (chunk: Buffer) => {
      if (link.dead || to.destroyed) return;
      const due = dueOf(lane);
      if (lane.queue.length === 0 && due <= Date.now()) return write(chunk);
      lane.queue.push({ chunk, due });
      lane.timer ??= setTimeout(release, due - Date.now());
    });
    // A close while alive is passed on; while blackholed it is lost, like the FIN it stands for.
    from.on('close', () => {
      if (link.dead) return;
      if (lane.queue.length > 0) return void (lane.closing = true);
      to.destroy();
      links.delete(link);
    });
  };

  const server = net.createServer({ pauseOnConnect: true }, (client) => {
    const link: Link = { client, upstream: undefined, dead: mode === 'blackhole', lanes: [] };
    client.on('error', () => undefined);
    if (mode === 'reset') {
      client.resetAndDestroy();
      return;
    }
    links.add(link);
    client.on('close', () => {
      if (link.dead && (link.upstream === undefined || link.upstream.destroyed)) links.delete(link);
    });
    if (link.dead) {
      // Read and drop: the client's bytes go nowhere, and nothing ever comes back.
      client.on('data', () => undefined);
      client.resume();
      return;
    }
    // A switch forwards each segment as it comes, and the NATS client turns Nagle off on its own sockets
    // (@nats-io/transport-node, node_transport.js: setNoDelay(true)); left on here, a claim's small answer
    // waited behind unacknowledged bytes for the peer's delayed ACK (40 ms), which no real link adds.
    client.setNoDelay(true);
    const upstream = net.connect({ host: target.host, port: target.port, noDelay: true });
    link.upstream = upstream;
    upstream.on('error', () => undefined);
    forward(link, client, upstream);
    forward(link, upstream, client);
    // The hub refusing (down) reaches the client as a reset of the connection it thought it had.
    upstream.once('error', () => {
      if (!link.dead) drop(link);
    });
    upstream.once('connect', () => client.resume());
  });
  server.on('error', () => undefined);

  const port = await new Promise<number>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve((server.address() as net.AddressInfo).port));
  });

  return {
    port,
    url: `nats://127.0.0.1:${port}`,
    /** The current mode. */
    get current(): LinkMode {
      return mode;
    },
    /** Switches the link; takes effect at once on every connection (see LinkMode); `delay` with how (see Delay). */
    mode(next: LinkMode, how: Delay = { ms: 200 }) {
      const before = mode;
      mode = next;
      if (next === 'delay') {
        delay = { jitterMs: 0, fraction: 1, seed: 1, ...how };
        draw = prng(delay.seed);
      }
      if (next === 'reset') for (const link of [...links]) drop(link);
      else if (next === 'blackhole') for (const link of links) link.dead = true;
      else if (before !== 'pass') for (const link of [...links]) if (link.dead) drop(link);
    },
    /** Client connections open now (forwarding or blackholed). */
    connections(): number {
      return [...links].filter((l) => !l.client.destroyed).length;
    },
    async close() {
      for (const link of [...links]) drop(link);
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export type TcpProxy = Awaited<ReturnType<typeof startTcpProxy>>;
