import { setTimeout as sleep } from 'node:timers/promises';
import { jetstream } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectHub, type Hub as SiteHub } from '../../src/site/site-hub.js';
import { createConsumer } from '../../src/site/site-consumer.js';
import type { Log } from '../../src/lib/log.js';
import type { RawMessage } from '../../src/site/site-apply.js';
import { startHub, siteLinkOf, type TestHub } from '../support/site-hub.js';
import { eventually } from '../support/sync-gate.js';

// A box coming back after an hour away reads the stream only as fast as it applies it: it asks the hub for 500
// messages at a time, and for more once it is down to 250 (docs/site.md, "Applying the other boxes' movements").
// Before, the client pulled again as messages arrived, and a returning box decoded 20,000 at once while its gates
// waited (`npm run bench:site`, catch-up: a scan's p99 about 250 ms in its first second, 40–100 ms after).

const BOXES = ['norte', 'sul'];
const MESSAGES = 1_300;
let hub: TestHub;
let site: SiteHub;

beforeAll(async () => {
  hub = await startHub({ boxes: BOXES });
  site = await connectHub(siteLinkOf(hub, 'norte', BOXES), () => undefined);
  await site.ensureStream(1);
  const nc = await connect({
    servers: hub.url,
    user: 'gate-sul',
    pass: fs.readFileSync(hub.passwordFile('sul'), 'utf8').trim(),
  });
  const js = jetstream(nc);
  const sent = [];
  for (let i = 0; i < MESSAGES; i++) sent.push(js.publish(`gate.site.parque.p.${i}`, new TextEncoder().encode('{}')));
  await Promise.all(sent);
  await nc.close();
}, 60_000);
afterAll(async () => {
  await site?.close();
  await hub?.close();
});

/** A box that applies `perWrite` messages per write of `ms`, recording their sequences, resuming after the last. */
const slowBox = (applied: number[], o: { perWrite: number; ms: number }) =>
  createConsumer({
    from: () => (applied.at(-1) ?? 0) + 1,
    log: { warn: () => undefined, error: () => undefined } as unknown as Log,
    apply: async (batch: RawMessage[]) => {
      await sleep(o.ms);
      const done = batch.slice(0, o.perWrite);
      applied.push(...done.map((m) => m.seq));
      return done.length;
    },
  });

describe('reading the stream', () => {
  it('asks for 500 messages, and for the next ones only when there is room', async () => {
    const got: number[] = [];
    let open!: () => void;
    const reading = await site.consume(1, {
      onMessage: (m) => got.push(m.seq),
      room: () => new Promise<void>((resolve) => (open = resolve)),
      ended: () => undefined,
    });
    try {
      await eventually('the first 500', () => got.length === 500, 10_000);
      await sleep(300);
      expect(got).toHaveLength(500);
      open();
      await eventually('the next 500', () => got.length === 1000, 10_000);
      await sleep(300);
      expect(got).toHaveLength(1000);
      open();
      await eventually('the last 300', () => got.length === MESSAGES, 10_000);
      expect(got).toEqual(Array.from({ length: MESSAGES }, (_, i) => i + 1));
    } finally {
      reading.stop();
    }
  });

  it('a slow box applies everything in order, never more than 750 messages received ahead of it', async () => {
    const applied: number[] = [];
    let delivered = 0;
    let ahead = 0;
    const counted: SiteHub = {
      ...site,
      consume: (from, reader) =>
        site.consume(from, {
          ...reader,
          onMessage(m, pending) {
            ahead = Math.max(ahead, ++delivered - applied.length);
            reader.onMessage(m, pending);
          },
        }),
    };
    // 20 messages per write, 5 ms each: 4,000/s.
    const consumer = slowBox(applied, { perWrite: 20, ms: 5 });
    await consumer.start(counted);
    try {
      await eventually('all applied', () => applied.length === MESSAGES, 30_000);
      expect(applied).toEqual(Array.from({ length: MESSAGES }, (_, i) => i + 1));
      expect(ahead).toBeGreaterThan(250);
      expect(ahead).toBeLessThanOrEqual(750);
    } finally {
      await consumer.close();
    }
  }, 40_000);

  it('a reading stopped and started again, again and again, applies every message once and in order', async () => {
    const applied: number[] = [];
    const consumer = slowBox(applied, { perWrite: 50, ms: 1 });
    await consumer.start(site);
    try {
      // As the link does when the hub comes and goes.
      for (let i = 0; i < 8 && applied.length < MESSAGES; i++) {
        await sleep(5 + i);
        // Twice at once: the first reading is stopped while it is still asking the hub.
        await consumer.start(site);
        await consumer.start(site);
      }
      await eventually('all applied', () => applied.length >= MESSAGES, 30_000);
      await sleep(200);
      expect(applied).toEqual(Array.from({ length: MESSAGES }, (_, i) => i + 1));
    } finally {
      await consumer.close();
    }
  }, 40_000);
});
