import type { Log } from '../lib/log.js';
import type { RawMessage } from './site-apply.js';
import type { Hub } from './site-hub.js';

// The stream's messages as they arrive, applied in batches of up to BATCH, one batch at a time (each a background
// write, so a scan never waits behind a catch-up for more than one of them).

const BATCH = 100;

export function createConsumer({
  apply,
  from,
  log,
}: {
  apply: (batch: RawMessage[]) => Promise<void>;
  /** The next sequence to apply: after the one stored with the last batch. */
  from: () => number;
  log: Log;
}) {
  let consumer: { stop(): void } | undefined;
  let queue: RawMessage[] = [];
  let flushing: Promise<void> | undefined;
  let newest: number | null = null;
  let hub: Hub | undefined;

  async function flush() {
    while (queue.length > 0) {
      const batch = queue.slice(0, BATCH);
      queue = queue.slice(BATCH);
      try {
        await apply(batch);
      } catch (err) {
        log.error({ err }, 'site: falha ao aplicar mensagens do hub');
        queue = [];
        if (hub) void start(hub).catch(() => undefined);
      }
    }
    flushing = undefined;
  }
  const onMessage = (m: RawMessage, pending: number) => {
    queue.push(m);
    newest = Math.max(newest ?? 0, m.seq + pending);
    flushing ??= flush();
  };
  async function start(on: Hub) {
    stop();
    await flushing;
    hub = on;
    consumer = await on.consume(from(), onMessage);
  }
  function stop() {
    consumer?.stop();
    consumer = undefined;
    queue = [];
  }
  return {
    start,
    stop,
    /** The newest sequence the hub is known to have (from deliveries and probes). */
    newest: () => newest,
    saw: (seq: number) => void (newest = Math.max(newest ?? 0, seq)),
    async close() {
      stop();
      await flushing;
    },
  };
}
