import net from 'node:net';

/**
 * What the proxy does with the link between a box and the hub:
 * - `pass`: forwards both ways;
 * - `reset`: every connection, current and new, ends at once with a TCP RST on both sides (a cable pulled from a
 *   switch that answers for the peer, a hub host rebooting);
 * - `blackhole`: connections stay open and new ones are accepted, but nothing crosses either way: bytes are read and
 *   dropped, a close on one side is not passed on (Wi-Fi gone, no RST: only the peers' pings can tell).
 *
 * Back to `pass`, every connection that lived through a blackhole is reset on both sides, as the real link's return
 * does: each side's next packet meets a peer that gave the connection up (or whose bytes were lost, which TCP
 * cannot skip), and gets an RST. So clients reconnect at once instead of waiting for their connect timeout, and the
 * hub drops a box's old connection instead of keeping it until its own ping gives up. New connections forward.
 */
export type LinkMode = 'pass' | 'reset' | 'blackhole';

interface Link {
  client: net.Socket;
  upstream: net.Socket | undefined;
  /** Forwarding stopped by a blackhole: never resumes (its bytes were dropped). */
  dead: boolean;
}

const reset = (s: net.Socket | undefined) => {
  if (s && !s.destroyed) s.resetAndDestroy();
};

/** A TCP proxy on 127.0.0.1 in front of `target`, whose link the test cuts and heals. */
export async function startTcpProxy(target: { host: string; port: number }) {
  const links = new Set<Link>();
  let mode: LinkMode = 'pass';

  const drop = (link: Link) => {
    reset(link.client);
    reset(link.upstream);
    links.delete(link);
  };

  /** Copies `from` to `to` while the link is alive, with backpressure. */
  const forward = (link: Link, from: net.Socket, to: net.Socket) => {
    from.on('data', (chunk: Buffer) => {
      if (link.dead || to.destroyed) return;
      if (!to.write(chunk)) {
        from.pause();
        to.once('drain', () => from.resume());
      }
    });
    // A close while alive is passed on; while blackholed it is lost, like the FIN it stands for.
    from.on('close', () => {
      if (!link.dead) {
        to.destroy();
        links.delete(link);
      }
    });
  };

  const server = net.createServer({ pauseOnConnect: true }, (client) => {
    const link: Link = { client, upstream: undefined, dead: mode === 'blackhole' };
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
    /** Switches the link; takes effect at once on every connection (see LinkMode). */
    mode(next: LinkMode) {
      const before = mode;
      mode = next;
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
