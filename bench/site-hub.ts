import fs from 'node:fs';
import { performance } from 'node:perf_hooks';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { STREAM } from '../src/site/site-messages.js';
import { siteLinkOf, startHub as startTestHub, type Hub } from '../test/support/site-hub.js';

// The site's hub for site.bench.ts: the tests' (test/support/site-hub.ts: Debian's nats-server with the
// configuration `gate site hub-config` writes, on loopback ports of its own), plus what the bench itself asks the
// hub: the floor (a bare JetStream publish-ack) and the site stream's last sequence.

export type BenchHub = Hub;
export { siteLinkOf };

export const startHub = (boxes: string[]): Promise<BenchHub> => startTestHub({ boxes });

/** The bench's own connection to the hub, as user gate-<box>. */
export async function benchClient(hub: BenchHub, box: string) {
  const nc = await connect({
    servers: [hub.url],
    user: `gate-${box}`,
    pass: fs.readFileSync(hub.passwordFile(box), 'utf8').trim(),
    maxReconnectAttempts: -1,
    reconnectTimeWait: 250,
  });
  const js = jetstream(nc);
  const jsm = await jetstreamManager(nc);
  return {
    /** The site stream's last sequence. */
    lastSeq: async () => (await jsm.streams.info(STREAM)).state.last_seq,
    /**
     * The floor of a claim: `count` publishes one at a time, each on a subject of its own expecting its last
     * sequence to be 0 (what a claim of a fresh ticket sends), on a stream of the bench's own with the site's
     * storage (file, one replica); the publish-ack round trip of each, in ms.
     */
    async publishAck(count: number): Promise<number[]> {
      await jsm.streams.add({ name: 'BENCH_FLOOR', subjects: ['bench.floor.>'] });
      const times: number[] = [];
      const body = new Uint8Array(400).fill(120); // about a movement's size
      for (let i = 0; i < count; i++) {
        const t0 = performance.now();
        await js.publish(`bench.floor.${i}`, body, { msgID: `floor-${i}`, expect: { lastSubjectSequence: 0 } });
        times.push(performance.now() - t0);
      }
      await jsm.streams.delete('BENCH_FLOOR');
      return times;
    },
    close: () => nc.close(),
  };
}
