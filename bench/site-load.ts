import { performance } from 'node:perf_hooks';
import { setImmediate as yieldLoop, setTimeout as sleep } from 'node:timers/promises';
import Database from 'better-sqlite3';
import { Pool } from 'undici';

// What site.bench.ts does to the boxes besides autocannon: one check-in at a time, a paced trickle of them, and
// reading a box's own SQLite file (read-only, from the bench process) to see what it applied.

export const CHECKIN = '/api/v1/api-qrcode-checkin';

export interface Door {
  /** One check-in; its HTTP status and time to the whole answer, ms. */
  checkIn(qr: string, terminal: string): Promise<{ status: number; ms: number }>;
  close(): Promise<void>;
}

export function door(port: number, apiKey: string, connections = 1): Door {
  const pool = new Pool(`http://127.0.0.1:${port}`, { connections, pipelining: 1 });
  return {
    async checkIn(qr, terminal) {
      const t0 = performance.now();
      const res = await pool.request({
        path: CHECKIN,
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': apiKey },
        body: JSON.stringify({ qr_code: qr, terminal }),
      });
      await res.body.text();
      return { status: res.statusCode, ms: performance.now() - t0 };
    },
    close: () => pool.close(),
  };
}

/** A box's database as the bench reads it: what it shows of a ticket, of the site's stream, of its backlog. */
export function boxFile(file: string) {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  const used = db.prepare('SELECT checkin_em IS NOT NULL FROM people WHERE qr_code = ?').pluck();
  const applied = db.prepare('SELECT coalesce(max(applied_seq), 0) FROM site_state').pluck();
  const backlog = db.prepare('SELECT count(*) FROM site_moves WHERE seq IS NULL').pluck();
  return {
    used: (qr: string) => used.get(qr) === 1,
    applied: () => applied.get() as number,
    backlog: () => backlog.get() as number,
    close: () => db.close(),
  };
}

const nap = new Int32Array(new SharedArrayBuffer(4));

/**
 * Cross-box visibility of one scan: the check-in sent to A, then B's own database polled every ~0.1 ms (a short
 * blocking nap, then a turn of the event loop so A's answer is read meanwhile) until the ticket shows used there.
 * Times from the moment the request was handed to the client, ms; visible is NaN after `timeoutMs`.
 */
export async function visibleAt(
  a: Door,
  b: ReturnType<typeof boxFile>,
  qr: string,
  timeoutMs = 5000,
): Promise<{ status: number; answered: number; visible: number }> {
  const t0 = performance.now();
  let answer: { status: number; answeredAt: number } | undefined;
  const sent = a.checkIn(qr, 'bench-a').then((r) => (answer = { status: r.status, answeredAt: performance.now() }));
  let visible = NaN;
  while (performance.now() - t0 < timeoutMs) {
    if (b.used(qr)) {
      visible = performance.now() - t0;
      break;
    }
    Atomics.wait(nap, 0, 0, 0.1);
    await yieldLoop();
  }
  await sent;
  return { status: answer!.status, answered: answer!.answeredAt - t0, visible };
}

export interface Paced {
  /** Send time since the start (ms), latency (ms) and status of every check-in sent. */
  samples: { at: number; ms: number; status: number }[];
  /** performance.now() when it started. */
  started: number;
  stop(): Promise<void>;
}

/** Check-ins at `rate` per second (each on time, whether or not the previous answered) until stopped. */
export function paced(d: Door, rate: number, nextQr: () => string, terminal: string): Paced {
  const samples: Paced['samples'] = [];
  const inFlight = new Set<Promise<void>>();
  const t0 = performance.now();
  let running = true;
  const loop = (async () => {
    for (let i = 0; running; i++) {
      const due = t0 + (i * 1000) / rate;
      const wait = due - performance.now();
      if (wait > 0) await sleep(wait);
      if (!running) break;
      const at = performance.now() - t0;
      const p = d.checkIn(nextQr(), terminal).then(
        (r) => void samples.push({ at, ms: r.ms, status: r.status }),
        () => void samples.push({ at, ms: NaN, status: 0 }),
      );
      inFlight.add(p);
      void p.finally(() => inFlight.delete(p));
    }
  })();
  return {
    samples,
    started: t0,
    async stop() {
      running = false;
      await loop;
      await Promise.all(inFlight);
    },
  };
}

/** Resolves with performance.now() once `ready()` holds, polled every `everyMs`; rejects after `timeoutMs`. */
export async function when(what: string, ready: () => boolean | Promise<boolean>, timeoutMs: number, everyMs = 5) {
  const t0 = performance.now();
  for (;;) {
    if (await ready()) return performance.now();
    if (performance.now() - t0 > timeoutMs) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(everyMs);
  }
}
