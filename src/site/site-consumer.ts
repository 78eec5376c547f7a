import { setTimeout as sleep } from 'node:timers/promises';
import type { Log } from '../lib/log.js';
import type { RawMessage } from './site-apply.js';
import type { Hub } from './site-hub.js';

// The stream's messages as they arrive, applied in order, one background write at a time, each holding the event
// loop a few ms at most (site-apply.ts): a scan never waits behind a catch-up for more than one of them.

const BATCH = 500;
const WAIT_FOR_CLAIM_MS = 5;

export function createConsumer({
  apply,
  from,
  log,
}: {
  /** Applies from the start of the batch; how many it applied (a write stops after a few ms). */
  apply: (batch: RawMessage[]) => Promise<number>;
  /** The next sequence to apply: after the one stored with the last batch. */
  from: () => number;
  log: Log;
}) {
  let consumer: { stop(): void } | undefined;
  let queue: RawMessage[] = [];
  let flushing: Promise<void> | undefined;
  let newest: number | null = null;
  let hub: Hub | undefined;
  /** A new consumer (stop, restart) makes a new queue: a batch of the old one must not trim it. */
  let generation = 0;

  async function flush() {
    while (queue.length > 0) {
      const started = generation;
      try {
        const done = await apply(queue.slice(0, BATCH));
        if (started === generation) queue = queue.slice(done);
        madeRoom();
        // Stopped before a claim of this box still being committed: it is there in a few ms.
        if (done === 0) await sleep(WAIT_FOR_CLAIM_MS);
      } catch (err) {
        log.error({ err }, 'site: falha ao aplicar mensagens do hub');
        queue = [];
        madeRoom();
        if (hub) void start(hub).catch(() => undefined);
      }
    }
    flushing = undefined;
  }
  /** The reading's next ask waits until the queue is down to half a batch: the hub sends no faster than it applies. */
  let waitingForRoom: (() => void) | undefined;
  const room = () =>
    queue.length <= BATCH / 2 ? Promise.resolve() : new Promise<void>((resolve) => (waitingForRoom = resolve));
  const letReadingOn = () => {
    const resolve = waitingForRoom;
    waitingForRoom = undefined;
    resolve?.();
  };
  const madeRoom = () => {
    if (queue.length <= BATCH / 2) letReadingOn();
  };
  const onMessage = (m: RawMessage, pending: number) => {
    queue.push(m);
    newest = Math.max(newest ?? 0, m.seq + pending);
    flushing ??= flush();
  };
  async function start(on: Hub) {
    stop();
    await flushing;
    hub = on;
    // A stopped reading delivers nothing more and never ends by itself (site-hub.ts readStream).
    consumer = await on.consume(from(), {
      onMessage,
      room,
      ended(err) {
        // The hub stopped the reading (gone, or it lost the consumer): the link's probe starts it again.
        log.warn({ err: String(err) }, 'site: leitura do hub interrompida');
        consumer = undefined;
      },
    });
  }
  function stop() {
    consumer?.stop();
    consumer = undefined;
    queue = [];
    generation++;
    letReadingOn();
  }
  return {
    start,
    stop,
    running: () => consumer !== undefined,
    /** The newest sequence the hub is known to have (from deliveries and probes). */
    newest: () => newest,
    saw: (seq: number) => void (newest = Math.max(newest ?? 0, seq)),
    async close() {
      stop();
      await flushing;
    },
  };
}
