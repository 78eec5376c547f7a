import fs from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  DeliverPolicy,
  JetStreamApiCodes,
  JetStreamApiError,
  jetstream,
  jetstreamManager,
  type ConsumerMessages,
  type JetStreamClient,
  type JetStreamManager,
} from '@nats-io/jetstream';
import { connect, errors, nanos, type NatsConnection, type Subscription } from '@nats-io/transport-node';
import type { SiteConfig } from '../site-config.js';
import type { ClaimAnswer } from './site-claims.js';
import { STREAM, STREAM_SUBJECTS } from './site-messages.js';
import { certificateProblem, hubTls, refusedCertificate } from './hub-tls.js';
import type { RawMessage } from './site-apply.js';

// The hub as the site link uses it (docs/site.md): one NATS connection with JetStream, written against Debian's
// nats-server 2.9.10 (no filter_subjects arrays, no per-message TTL). Silent loss of the link (Wi-Fi gone, no
// RST) is noticed by the client's pings: PING_MS × MAX_PINGS_OUT.

const PING_MS = 1000;
const MAX_PINGS_OUT = 2;
const API_TIMEOUT_MS = 2000;
/** The stream keeps a week: a box away longer starts over from what is left. */
const KEEP_MS = 8 * 24 * 3600_000;
/** JetStream's default duplicate window, said explicitly: a republish within it is answered "duplicate". */
const DUPLICATE_WINDOW_MS = 2 * 60_000;

/** What is to fix when the box and the hub refuse each other: not a hub away. */
export type HubRefusal =
  /** The box refused the hub's certificate (Node's code: another CA, another name, expired). */
  | { motivo: 'certificado_do_hub'; code: string }
  /** The hub refused this box's user or password. */
  | { motivo: 'credenciais_recusadas' };

export type HubStatus =
  | { type: 'connected' | 'disconnected' }
  /** Disconnected, and the hub shows a certificate this box refuses, or refuses this box's password. */
  | { type: 'refused'; refusal: HubRefusal };

/**
 * Whether the hub refused this box's user or password: nats-server answers `-ERR 'Authorization Violation'`, which
 * the client raises as an AuthorizationError (@nats-io/nats-core 3.3, lib/errors.js `AuthorizationError.parse`,
 * lib/protocol.js `toError`): connect() rejects with it, and while reconnecting it comes as a status of type
 * 'error'. The same class says "authentication timeout" (a slow link, not the password), hence the message.
 */
const refusedCredentials = (err: unknown) =>
  err instanceof errors.AuthorizationError && /authorization violation/i.test(err.message);

/** Why a connection to the hub failed, when it is a refusal to fix rather than a hub away. */
export function refusalOf(err: unknown): HubRefusal | undefined {
  const code = refusedCertificate(err);
  if (code) return { motivo: 'certificado_do_hub', code };
  return refusedCredentials(err) ? { motivo: 'credenciais_recusadas' } : undefined;
}

/** How often a disconnected box looks at the hub's certificate (site-hub.ts's reconnection hides TLS errors). */
const CERTIFICATE_CHECK_MS = 2000;

export interface StreamReader {
  onMessage(m: RawMessage, pending: number): void;
  room(): Promise<void>;
  ended(err: unknown): void;
}

/** Messages asked of the hub at a time; the next ask waits for room (site-consumer.ts). */
const FETCH_MAX = 500;
/** How long one ask stays open for new messages before another is made. */
const FETCH_EXPIRES_MS = 10_000;

export interface Hub {
  readonly nc: NatsConnection;
  claim(subject: string, id: string, body: Uint8Array, expected: number, timeoutMs: number): Promise<ClaimAnswer>;
  /** Publishes a fact; its sequence, or null when the hub did not answer in time. */
  publish(subject: string, id: string, body: Uint8Array, timeoutMs: number): Promise<number | null>;
  /** A ticket's newest message on the hub. */
  latest(subject: string): Promise<RawMessage | null>;
  /** The stream (made when missing) and its last sequence. */
  ensureStream(replicas: number): Promise<{ firstSeq: number; lastSeq: number; created: boolean }>;
  /** The message at a sequence, or null when the hub has none there. */
  messageAt(seq: number): Promise<RawMessage | null>;
  lastSeq(): Promise<number>;
  /**
   * Delivers the stream's messages from `from` on, in order, until stopped, asking the hub for more only once `room`
   * resolves; `ended` is told when the reading stops by itself (the hub gone), never after `stop`.
   */
  consume(from: number, reader: StreamReader): Promise<{ stop(): void }>;
  close(): Promise<void>;
}

const connectAs = (config: SiteConfig, role: string) =>
  connect({
    servers: [...config.urls],
    name: `gate-${config.box}-${role}`,
    user: config.user,
    pass: fs.readFileSync(config.passwordFile, 'utf8').trim(),
    ...hubTls(config),
    maxReconnectAttempts: -1,
    reconnectTimeWait: 1000,
    // The client gives up for good after two refusals of the password in a row (nats-core lib/protocol.js,
    // handleAuthError): a box whose password the hub refused for a while would stay local until restarted, though
    // the hub's configuration was put back.
    ignoreAuthErrorAbort: true,
    pingInterval: PING_MS,
    maxPingOut: MAX_PINGS_OUT,
    timeout: API_TIMEOUT_MS,
    // Each request would capture two stack traces (nats-core request.js, util.js timeout): about 50 µs of a claim in
    // a CPU profile of the site bench.
    noAsyncTraces: true,
  });

/**
 * Two connections: one for claims and the API, one for reading the stream. On one socket, a claim's answer would
 * queue behind a catch-up's deliveries (a scan waiting hundreds of ms behind 20,000 movements).
 */
export async function connectHub(config: SiteConfig, onStatus: (s: HubStatus) => void): Promise<Hub> {
  const nc = await connectAs(config, 'decisoes');
  const reader = await connectAs(config, 'leitura').catch(async (err: unknown) => {
    await nc.close();
    throw err;
  });
  let down = false;
  let watching = false;
  const watchCertificate = async () => {
    while (down && !nc.isClosed()) {
      await sleep(CERTIFICATE_CHECK_MS);
      const code = down ? await certificateProblem(config) : undefined;
      if (code && down) onStatus({ type: 'refused', refusal: { motivo: 'certificado_do_hub', code } });
    }
  };
  void (async () => {
    for await (const s of nc.status()) {
      if (s.type === 'error' && refusedCredentials(s.error))
        onStatus({ type: 'refused', refusal: { motivo: 'credenciais_recusadas' } });
      if (s.type === 'disconnect') {
        onStatus({ type: 'disconnected' });
        down = true;
        if (config.caFile && !watching) {
          watching = true;
          void watchCertificate()
            .catch(() => undefined)
            .finally(() => (watching = false));
        }
      }
      if (s.type === 'reconnect') {
        down = false;
        onStatus({ type: 'connected' });
      }
    }
  })().catch(() => undefined);
  const js: JetStreamClient = jetstream(nc, { timeout: API_TIMEOUT_MS });
  const jsm: JetStreamManager = await jetstreamManager(nc, { timeout: API_TIMEOUT_MS, checkAPI: false });
  return {
    nc,
    async claim(subject, id, body, expected, timeoutMs) {
      try {
        const ack = await js.publish(subject, body, {
          msgID: id,
          expect: { lastSubjectSequence: expected },
          timeout: timeoutMs,
        });
        // "duplicate": this very claim was stored before (a retry within the window): it is ours.
        return { kind: 'won', seq: ack.seq };
      } catch (err) {
        if (err instanceof JetStreamApiError && err.code === JetStreamApiCodes.StreamWrongLastSequence)
          return { kind: 'lost' };
        return { kind: 'unreachable' };
      }
    },
    async publish(subject, id, body, timeoutMs) {
      try {
        return (await js.publish(subject, body, { msgID: id, timeout: timeoutMs })).seq;
      } catch {
        return null;
      }
    },
    async latest(subject) {
      const m = await jsm.streams.getMessage(STREAM, { last_by_subj: subject });
      return m && raw(m);
    },
    async ensureStream(replicas) {
      try {
        const { state } = await jsm.streams.info(STREAM);
        return { firstSeq: state.first_seq, lastSeq: state.last_seq, created: false };
      } catch (err) {
        if (!(err instanceof JetStreamApiError && err.code === JetStreamApiCodes.StreamNotFound)) throw err;
      }
      const info = await jsm.streams.add({
        name: STREAM,
        subjects: [STREAM_SUBJECTS],
        num_replicas: replicas,
        max_age: nanos(KEEP_MS),
        duplicate_window: nanos(DUPLICATE_WINDOW_MS),
      });
      return { firstSeq: info.state.first_seq, lastSeq: info.state.last_seq, created: true };
    },
    async messageAt(seq) {
      const m = await jsm.streams.getMessage(STREAM, { seq });
      return m && raw(m);
    },
    async lastSeq() {
      return (await jsm.streams.info(STREAM)).state.last_seq;
    },
    consume: (from, to) => readStream(reader, from, to),
    async close() {
      await Promise.all([nc, reader].map((c) => c.drain().catch(() => c.close())));
    },
  };
}

/** A stored or delivered message, as the applier takes it. */
const raw = (m: {
  seq: number;
  subject: string;
  data: Uint8Array;
  headers?: { get(k: string): string } | undefined;
}): RawMessage => ({
  seq: m.seq,
  subject: m.subject,
  data: m.data,
  msgId: m.headers?.get('Nats-Msg-Id') || undefined,
});

/**
 * Reads the stream ask by ask, each made after the last one's messages were taken: a client consume() pulls again as
 * messages arrive, so a box coming back would decode a whole catch-up at once, its scans waiting hundreds of ms.
 */
async function readStream(reader: NatsConnection, from: number, to: StreamReader): Promise<{ stop(): void }> {
  const consumer = await jetstream(reader, { timeout: API_TIMEOUT_MS }).consumers.get(STREAM, {
    deliver_policy: DeliverPolicy.StartSequence,
    opt_start_seq: Math.max(1, from),
  });
  let stopped = false;
  let asked: ConsumerMessages | undefined;
  void (async () => {
    while (!stopped) {
      const ask = await consumer.fetch({ max_messages: FETCH_MAX, expires: FETCH_EXPIRES_MS });
      asked = ask;
      // Stopped while the ask was being made: nothing of it may reach the next reading's queue.
      if (stopped) void ask.stop();
      for await (const m of ask) {
        if (stopped) break;
        to.onMessage(raw(m), m.info.pending);
      }
      if (!stopped) await to.room();
    }
  })().catch((err: unknown) => {
    if (!stopped) to.ended(err);
  });
  return {
    stop() {
      stopped = true;
      void asked?.stop();
    },
  };
}

/** Core NATS (not stored) messages between the boxes: their presence. */
export function listen(nc: NatsConnection, subject: string, onData: (subject: string, data: Uint8Array) => void) {
  const sub: Subscription = nc.subscribe(subject, {
    callback: (err, m) => {
      if (!err) onData(m.subject, m.data);
    },
  });
  return () => sub.unsubscribe();
}
