import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createApiKey } from '../../src/auth/api-keys.js';
import { migrateToLatest, openDatabase } from '../../src/db/open.js';
import { pedidoSchema, type PedidoInput } from '../../src/orders/order.schemas.js';
import { upsertOrder } from '../../src/orders/orders.repo.js';
import { ensureTenant } from '../../src/tenants/tenants.repo.js';
import { tempDir, TZ } from '../support/box.js';
import { makeOrder } from '../support/fixtures.js';
import { ensureBuilt, serveGate, type Served } from '../support/gate-process.js';
import { prng } from '../support/prng.js';

// kill -9 at random moments under concurrent check-ins, on the same database cycle after cycle (as a
// box that loses power again and again). Each cycle starts the real `gate serve`, lets 8–16 clients
// send single check-ins, batches (committed 25 codes at a time), group QRs, re-sends and same-day
// reversals, and kills the process with SIGKILL after a random number of acknowledgements or a random
// delay. The next start recovers the database by itself; then the database is checked against every
// answer the clients got: nothing acknowledged is lost, nothing is checked in twice, state and event
// log agree. `npm run soak` runs 50 cycles; SOAK_CYCLES and SOAK_SEED reproduce a run.

const CYCLES = envInt('SOAK_CYCLES', 5, 1);
const SEED = envInt('SOAK_SEED', 0x5eed2026, 0);
const WHO = `SOAK_SEED=${SEED} SOAK_CYCLES=${CYCLES}`;
const CHECKIN = '/api/v1/api-qrcode-checkin';

function envInt(name: string, fallback: number, min: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const n = Number(raw);
  if (!Number.isSafeInteger(n) || n < min)
    throw new Error(`${name} must be an integer ≥ ${min} (got ${JSON.stringify(raw)})`);
  return n;
}

// Two streams from the seed: the data and each cycle's plan (clients, when to kill) replay exactly;
// the clients' moves draw from the other one in whatever order their answers arrive.
const rng = prng(SEED);
const int = (lo: number, hi: number) => lo + Math.floor(rng() * (hi - lo + 1));
const chance = (p: number) => rng() < p;
const planRng = prng(SEED ^ 0x9e3779b9);
const planInt = (lo: number, hi: number) => lo + Math.floor(planRng() * (hi - lo + 1));

/** A set with O(1) add, delete and uniform random pick (by the seeded generator). */
class Pool<T> {
  private items: T[] = [];
  private at = new Map<T, number>();
  get size() {
    return this.items.length;
  }
  has(x: T) {
    return this.at.has(x);
  }
  add(x: T) {
    if (this.at.has(x)) return;
    this.at.set(x, this.items.length);
    this.items.push(x);
  }
  delete(x: T) {
    const i = this.at.get(x);
    if (i === undefined) return;
    const last = this.items.pop()!;
    this.at.delete(x);
    if (i < this.items.length) {
      this.items[i] = last;
      this.at.set(last, i);
    }
  }
  pick(): T | undefined {
    return this.items.length === 0 ? undefined : this.items[Math.floor(rng() * this.items.length)];
  }
  take(): T | undefined {
    const x = this.pick();
    if (x !== undefined) this.delete(x);
    return x;
  }
}

// ---- what the clients were told (only answers received in full count) ----

/** A person's check-in or reversal at `at` (the server's timestamp), as an answer stated it. */
interface Fact {
  qr: string;
  at: string;
  cycle: number;
}
const acked = { checkins: [] as Fact[], reversals: [] as Fact[], alreadyUsed: [] as Fact[] };
const unexpected: string[] = [];
const totals = {
  requests: 0,
  batches: 0,
  groupCheckins: 0,
  groupReversals: 0,
  killsByAcks: 0,
  killsByDelay: 0,
  probes: 0,
  batchCodes: 0,
};

// Client-side pools, shared by every client and kept across cycles (same day, same database).
const fresh = new Pool<string>(); // person QRs never sent
const freshFamilies = new Pool<string>(); // group QRs (order numbers) never sent
const checkedIn = new Pool<string>(); // last acknowledged: checked in
const reversedPool = new Pool<string>(); // last acknowledged: reversed
const familiesIn = new Pool<string>(); // group QRs acknowledged checked in
const familiesOut = new Pool<string>(); // group QRs acknowledged reversed
const limbo = new Pool<string>(); // sent, no answer (killed): stored or not, both are fine
const recent: string[] = []; // codes just sent, to race on the same QR from two clients

// ---- the box ----

const children: ChildProcess[] = [];
let dir = '';
let dbFile = '';
let key = '';
let peopleLoaded = 0;
let familiesLoaded = 0;

beforeAll(async () => {
  ensureBuilt();
  dir = tempDir('gate-kill-');
  dbFile = path.join(dir, 'gate.db');
  const db = openDatabase(dbFile);
  try {
    await migrateToLatest(db);
    const now = new Date().toISOString();
    const tenantId = ensureTenant(db, 'parque', now);
    key = createApiKey(db, { tenantId, name: 'catraca', permissions: ['checkin'], nowIso: now }).key;
    const today = new Intl.DateTimeFormat('en-CA', { timeZone: TZ }).format(new Date());
    // Enough fresh people that no cycle runs out; most orders small (each check-in answer carries its
    // whole order), every 8th one with 250 people.
    const wanted = 1200 * CYCLES + 500;
    const orders: PedidoInput[] = [];
    for (let i = 1; peopleLoaded < wanted; i++) {
      const people = i % 8 === 0 ? 250 : int(5, 60);
      orders.push(makeOrder({ numero: `20261120-${pad(i)}`, prefix: `P${i}`, people, dataUso: today }));
      for (let n = 1; n <= people; n++) fresh.add(`P${i}-${n}`);
      peopleLoaded += people;
    }
    // Families: combo orders whose group QR (the order number) checks everyone in at once.
    const families = 12 * CYCLES + 8;
    for (let i = 1; i <= families; i++) {
      const people = int(2, 6);
      orders.push(
        makeOrder({
          numero: `20261121-${pad(i)}`,
          prefix: `F${i}`,
          people,
          dataUso: today,
          adicionais: [
            {
              adicional_id: 'a1',
              nome: 'Pipoca',
              quantidade: 1,
              preco_unitario: 10,
              subtotal: 10,
              combo_id: 'c1',
              is_brinde: false,
              codigo_integracao: '',
              adicional_qr_code: null,
            },
          ],
        }),
      );
      freshFamilies.add(`20261121-${pad(i)}`);
      peopleLoaded += people;
      familiesLoaded += 1;
    }
    db.sqlite.transaction(() => {
      for (const o of orders) upsertOrder(db, tenantId, pedidoSchema.parse(o), now);
    })();
  } finally {
    db.close();
  }
});

afterAll(() => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

function pad(n: number): string {
  if (n > 9999) throw new Error(`too many orders for YYYYMMDD-NNNN numbers (SOAK_CYCLES=${CYCLES} is too large)`);
  return String(n).padStart(4, '0');
}

async function start(): Promise<Served & { exited: Promise<void> }> {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    GATE_DATA_DIR: dir,
    GATE_PORT: '0',
    GATE_HOST: '127.0.0.1',
    GATE_TENANT: 'parque',
    GATE_LOG_LEVEL: 'info',
  };
  for (const name of ['GATE_CONFIG', 'GATE_CLOUD_URL', 'GATE_CLOUD_API_KEY', 'GATE_CLOUD_INTEGRATION_KEY'])
    delete env[name];
  const served = await serveGate(env, dir, children);
  const exited = new Promise<void>((resolve) => {
    if (served.child.exitCode !== null || served.child.signalCode !== null) resolve();
    else served.child.once('exit', () => resolve());
  });
  return { ...served, exited };
}

type Answer = { status: number; body: any };

async function send(url: string, method: 'POST' | 'PATCH', qr: string): Promise<Answer> {
  totals.requests += 1;
  const res = await fetch(url + CHECKIN, {
    method,
    headers: { 'content-type': 'application/json', 'x-api-key': key },
    body: JSON.stringify({ qr_code: qr, terminal: 'soak', operador: 'kill-9' }),
  });
  return { status: res.status, body: await res.json() };
}

// ---- reading answers into facts ----

const REFUSALS_OK = new Set([
  'TICKET_ALREADY_USED',
  'TICKET_NOT_FOUND',
  'SEM_CHECKIN',
  'JA_ESTORNADO',
  // only if a run crosses midnight in the tenant's zone:
  'TICKET_EXPIRED',
  'TICKET_NOT_VALID_YET',
  'ESTORNO_NAO_PERMITIDO',
]);

interface CycleState {
  cycle: number;
  acks: number;
  onAck: () => void;
}

function granted(s: CycleState, d: any) {
  if (typeof d?.combo_qr_code === 'string') {
    totals.groupCheckins += 1;
    familiesIn.add(d.combo_qr_code);
    familiesOut.delete(d.combo_qr_code);
    // The order as it stood right after this commit: everyone shown checked in is durably so.
    for (const lot of d.pedido.lotes)
      for (const p of lot.pessoas) if (p.checkin_realizado) checkinFact(s, p.qr_code, p.checkin_em);
  } else if (typeof d?.qr_code === 'string' && typeof d.checkin_em === 'string') {
    checkinFact(s, d.qr_code, d.checkin_em);
  } else {
    unexpected.push(
      `cycle ${s.cycle}: a check-in granted without qr_code/checkin_em: ${JSON.stringify(d).slice(0, 300)}`,
    );
  }
}

/** An acknowledged check-in or reversal: the person moves between the checked-in and reversed pools. */
function acknowledged(s: CycleState, kind: 'checkins' | 'reversals', qr: string, at: string) {
  acked[kind].push({ qr, at, cycle: s.cycle });
  const [into, outOf] = kind === 'checkins' ? [checkedIn, reversedPool] : [reversedPool, checkedIn];
  into.add(qr);
  outOf.delete(qr);
  limbo.delete(qr);
  s.acks += 1;
  s.onAck();
}
const checkinFact = (s: CycleState, qr: string, at: string) => acknowledged(s, 'checkins', qr, at);
const reversedFact = (s: CycleState, qr: string, at: string) => acknowledged(s, 'reversals', qr, at);

function refused(s: CycleState, what: string, code: string, status: number, error: any) {
  if (status >= 500 || !REFUSALS_OK.has(error?.code)) {
    unexpected.push(`cycle ${s.cycle}: ${what} ${code} → ${status} ${JSON.stringify(error).slice(0, 300)}`);
    return;
  }
  // An answered "already used" (after its own commit) also states a durable check-in.
  const d = error.details;
  if (error.code === 'TICKET_ALREADY_USED' && typeof d?.qr_code === 'string' && typeof d.checkin_em === 'string') {
    acked.alreadyUsed.push({ qr: d.qr_code, at: d.checkin_em, cycle: s.cycle });
  }
}

function absorbCheckin(s: CycleState, sent: string, a: Answer) {
  if (a.status === 200 && Array.isArray(a.body?.data?.resultados)) {
    for (const item of a.body.data.resultados) {
      limbo.delete(item.qr_code);
      if (item.success) granted(s, item);
      else refused(s, 'POST batch item', item.qr_code, item.status, item.error);
    }
  } else {
    limbo.delete(sent);
    if (a.status === 200) granted(s, a.body.data);
    else refused(s, 'POST', sent, a.status, a.body?.error);
  }
}

function absorbReversal(s: CycleState, sent: string, a: Answer) {
  const one = (d: any) => {
    if (typeof d?.combo_qr_code === 'string') {
      totals.groupReversals += 1;
      familiesIn.delete(d.combo_qr_code);
      familiesOut.add(d.combo_qr_code);
    }
    const people = d?.pedido?.pessoa ? [d.pedido.pessoa] : (d?.pedido?.pessoas ?? []);
    if (people.length === 0)
      unexpected.push(`cycle ${s.cycle}: a reversal granted without people: ${JSON.stringify(d).slice(0, 300)}`);
    for (const p of people) reversedFact(s, p.qr_code, p.estornado_em);
  };
  if (a.status === 200 && Array.isArray(a.body?.data?.resultados)) {
    for (const item of a.body.data.resultados) {
      if (item.success) one(item);
      else refused(s, 'PATCH batch item', item.qr_code, item.status, item.error);
    }
  } else if (a.status === 200) one(a.body.data);
  else refused(s, 'PATCH', sent, a.status, a.body?.error);
}

// ---- one client's moves ----

/** A code some other client is sending right now, or just sent (races on one QR). */
const racy = () =>
  recent.length > 0 && chance(0.6) ? recent[Math.floor(rng() * recent.length)] : (checkedIn.pick() ?? limbo.pick());
function takeFresh(): string | undefined {
  const qr = fresh.take();
  if (qr) {
    recent.push(qr);
    if (recent.length > 32) recent.shift();
    limbo.add(qr); // until an answer says otherwise
  }
  return qr;
}

/** One request; false when the chosen move had nothing to act on (nothing sent). */
async function move(url: string, s: CycleState): Promise<boolean> {
  const r = rng();
  if (r < 0.5) {
    const qr = takeFresh() ?? racy();
    if (!qr) return false;
    absorbCheckin(s, qr, await send(url, 'POST', qr));
  } else if (r < 0.6) {
    const qr = limbo.size > 0 && chance(0.5) ? limbo.pick() : racy();
    if (!qr) return false;
    absorbCheckin(s, qr, await send(url, 'POST', qr));
  } else if (r < 0.68) {
    // A batch of 2–70 codes (up to three commits of 25): mostly fresh, some used, an unknown one, maybe a group QR.
    const codes: string[] = [];
    for (let n = int(2, 70); n > 0; n--) {
      const qr = chance(0.85) ? takeFresh() : racy();
      if (qr) codes.push(qr);
    }
    if (chance(0.3)) codes.push(`NOPE-${int(1, 1e6)}`);
    if (chance(0.3)) {
      const g = freshFamilies.take();
      if (g) codes.push(g);
    }
    if (codes.length === 0) return false;
    totals.batches += 1;
    totals.batchCodes += codes.length;
    const sent = codes.join(chance(0.5) ? ',' : ', ');
    absorbCheckin(s, sent, await send(url, 'POST', sent));
  } else if (r < 0.74) {
    const g = freshFamilies.take() ?? familiesOut.pick() ?? familiesIn.pick();
    if (!g) return false;
    absorbCheckin(s, g, await send(url, 'POST', g));
  } else if (r < 0.86) {
    const qr = checkedIn.pick();
    if (!qr) return false;
    absorbReversal(s, qr, await send(url, 'PATCH', qr));
  } else if (r < 0.89) {
    // A small reversal batch.
    const codes = [
      ...new Set(Array.from({ length: int(2, 5) }, () => checkedIn.pick()).filter((x): x is string => !!x)),
    ];
    if (codes.length === 0) return false;
    absorbReversal(s, codes.join(','), await send(url, 'PATCH', codes.join(',')));
  } else if (r < 0.93) {
    const g = familiesIn.pick();
    if (!g) return false;
    absorbReversal(s, g, await send(url, 'PATCH', g));
  } else {
    // A reversed person checks in again.
    const qr = reversedPool.pick();
    if (!qr) return false;
    absorbCheckin(s, qr, await send(url, 'POST', qr));
  }
  return true;
}

// ---- one power cut ----

async function cycle(c: number, url: string, child: ChildProcess, exited: Promise<void>) {
  const clients = planInt(8, 16);
  const byAcks = planRng() < 0.5;
  const killAtAcks = planInt(1, 600);
  const killAfterMs = planInt(20, 2500);
  let killed = false;
  const kill = (why: 'acks' | 'delay') => {
    if (killed) return;
    killed = true;
    totals[why === 'acks' ? 'killsByAcks' : 'killsByDelay'] += 1;
    child.kill('SIGKILL');
  };
  const s: CycleState = { cycle: c, acks: 0, onAck: () => byAcks && s.acks >= killAtAcks && kill('acks') };
  // By delay, or as a backstop when the acks never come (then the cycle fails below: no acks).
  const timer = setTimeout(() => kill('delay'), byAcks ? 10_000 : killAfterMs);
  const client = async () => {
    while (!killed) {
      try {
        // A move with nothing to act on must not spin on microtasks: timers and sockets need the loop.
        if (!(await move(url, s))) await yieldToLoop();
      } catch (error) {
        // In flight when the box died: not acknowledged, may or may not be stored.
        if (!killed) unexpected.push(`cycle ${c}: request failed before the kill: ${String(error)}`);
      }
    }
  };
  await Promise.all(Array.from({ length: clients }, client));
  clearTimeout(timer);
  await exited;
  expect(
    child.signalCode,
    `[${WHO}] cycle ${c}: the box must die by our SIGKILL, not by itself (exit ${child.exitCode})`,
  ).toBe('SIGKILL');
  expect(unexpected, `[${WHO}] cycle ${c}: unexpected answers`).toEqual([]);
  if (byAcks)
    expect(s.acks, `[${WHO}] cycle ${c}: killed by the backstop, not after ${killAtAcks} acks`).toBeGreaterThanOrEqual(
      killAtAcks,
    );
  return { clients, acks: s.acks, plan: byAcks ? `after ${killAtAcks} acks` : `after ${killAfterMs} ms` };
}

// ---- the database against the answers ----

interface PersonNow {
  id: number;
  qr_code: string;
  checkin_em: string | null;
  estornado_em: string | null;
}

/** Checks the database (the box may be running: a read snapshot) and returns each person's state. */
function verify(what: string): Map<string, PersonNow> {
  const label = `[${WHO}] ${what}`;
  const db = new Database(dbFile, { fileMustExist: true });
  try {
    db.pragma('busy_timeout = 5000');
    expect(db.pragma('journal_mode', { simple: true }), label).toBe('wal');
    expect(db.pragma('integrity_check', { simple: true }), `${label}: integrity_check`).toBe('ok');
    expect(db.pragma('foreign_key_check'), `${label}: foreign_key_check`).toEqual([]);
    return db.transaction(() => {
      const people = db.prepare('select id, qr_code, checkin_em, estornado_em from people').all() as PersonNow[];
      const events = db
        .prepare(
          "select id, person_id, action, occurred_at, details from events where result = 'ok' and action in ('checkin', 'estorno') and person_id is not null order by id",
        )
        .all() as {
        id: number;
        person_id: number;
        action: 'checkin' | 'estorno';
        occurred_at: string;
        details: string | null;
      }[];
      const byQr = new Map(people.map((p) => [p.qr_code, p]));
      const log = new Map<number, typeof events>();
      for (const e of events) {
        let l = log.get(e.person_id);
        if (!l) log.set(e.person_id, (l = []));
        l.push(e);
      }
      const problems: string[] = [];

      for (const p of people) {
        const l = log.get(p.id) ?? [];
        // Check-in, reversal, check-in...: never two check-ins without a reversal between, never a reversal of nothing.
        l.forEach((e, i) => {
          const expected = i % 2 === 0 ? 'checkin' : 'estorno';
          if (e.action !== expected)
            problems.push(
              `${p.qr_code}: event ${e.id} is '${e.action}' where '${expected}' was due (${l.map((x) => x.action).join(',')})`,
            );
          if (e.action === 'estorno' && i > 0 && JSON.parse(e.details ?? '{}').checkin_em !== l[i - 1]!.occurred_at)
            problems.push(
              `${p.qr_code}: reversal ${e.id} undoes ${e.details}, not the check-in at ${l[i - 1]!.occurred_at}`,
            );
        });
        // The person's row says what the last event says.
        const last = l[l.length - 1];
        if (!last) {
          if (p.checkin_em !== null || p.estornado_em !== null)
            problems.push(`${p.qr_code}: checkin_em ${p.checkin_em} / estornado_em ${p.estornado_em} with no event`);
        } else if (last.action === 'checkin') {
          if (p.checkin_em !== last.occurred_at)
            problems.push(`${p.qr_code}: checkin_em ${p.checkin_em}, last event a check-in at ${last.occurred_at}`);
        } else if (p.checkin_em !== null || p.estornado_em !== last.occurred_at) {
          problems.push(
            `${p.qr_code}: checkin_em ${p.checkin_em} / estornado_em ${p.estornado_em}, last event a reversal at ${last.occurred_at}`,
          );
        }
      }

      // Every acknowledged check-in is stored with its event, and stands unless a reversal came after it.
      const find = (f: Fact, action: 'checkin' | 'estorno') => {
        const p = byQr.get(f.qr);
        const l = (p && log.get(p.id)) ?? [];
        const i = l.findIndex((e) => e.action === action && e.occurred_at === f.at);
        return { p, l, i };
      };
      for (const f of acked.checkins) {
        const { p, l, i } = find(f, 'checkin');
        if (!p) problems.push(`acknowledged check-in of an unknown person ${f.qr}`);
        else if (i < 0)
          problems.push(`${f.qr}: check-in acknowledged in cycle ${f.cycle} at ${f.at} has no 'ok' event`);
        else if (p.checkin_em !== f.at && !l.slice(i + 1).some((e) => e.action === 'estorno'))
          problems.push(
            `${f.qr}: check-in acknowledged in cycle ${f.cycle} at ${f.at} is gone (checkin_em ${p.checkin_em}) with no reversal after it`,
          );
      }
      for (const f of acked.alreadyUsed) {
        if (find(f, 'checkin').i < 0)
          problems.push(
            `${f.qr}: TICKET_ALREADY_USED answered in cycle ${f.cycle} for a check-in at ${f.at} that has no 'ok' event`,
          );
      }
      // Every acknowledged reversal is stored with its event, and stands unless a check-in came after it.
      for (const f of acked.reversals) {
        const { p, l, i } = find(f, 'estorno');
        if (!p) problems.push(`acknowledged reversal of an unknown person ${f.qr}`);
        else if (i < 0)
          problems.push(`${f.qr}: reversal acknowledged in cycle ${f.cycle} at ${f.at} has no 'ok' event`);
        else if (
          (p.checkin_em !== null || p.estornado_em !== f.at) &&
          !l.slice(i + 1).some((e) => e.action === 'checkin')
        )
          problems.push(
            `${f.qr}: reversal acknowledged in cycle ${f.cycle} at ${f.at} is gone (checkin_em ${p.checkin_em}, estornado_em ${p.estornado_em})`,
          );
      }
      expect(problems.slice(0, 25), `${label}: ${problems.length} problem(s)`).toEqual([]);
      return new Map(people.map((p) => [p.qr_code, p]));
    })();
  } finally {
    db.close();
  }
}

/** After a restart: acknowledged check-ins and reversals of earlier cycles are remembered by the box. */
async function probe(url: string, now: Map<string, PersonNow>, label: string) {
  const sample = <T>(xs: T[], n: number) => {
    const pool = new Pool<T>();
    xs.forEach((x) => pool.add(x));
    return Array.from({ length: Math.min(n, pool.size) }, () => pool.take()!);
  };
  const stillIn = [
    ...new Map(acked.checkins.filter((f) => now.get(f.qr)?.checkin_em === f.at).map((f) => [f.qr, f])).values(),
  ];
  const stillOut = [
    ...new Map(
      acked.reversals
        .filter((f) => now.get(f.qr)?.checkin_em === null && now.get(f.qr)?.estornado_em === f.at)
        .map((f) => [f.qr, f]),
    ).values(),
  ];
  const wrong: string[] = [];
  await Promise.all([
    ...sample(stillIn, 25).map(async (f) => {
      const a = await send(url, 'POST', f.qr);
      if (a.status !== 409 || a.body.error?.code !== 'TICKET_ALREADY_USED' || a.body.error.details?.checkin_em !== f.at)
        wrong.push(
          `${f.qr} (checked in at ${f.at}, cycle ${f.cycle}) → ${a.status} ${JSON.stringify(a.body.error ?? a.body.data).slice(0, 200)}`,
        );
    }),
    ...sample(stillOut, 10).map(async (f) => {
      const a = await send(url, 'PATCH', f.qr);
      if (a.status !== 423 || a.body.error?.code !== 'JA_ESTORNADO' || a.body.error.details?.estornado_em !== f.at)
        wrong.push(
          `${f.qr} (reversed at ${f.at}, cycle ${f.cycle}) → ${a.status} ${JSON.stringify(a.body.error ?? a.body.data).slice(0, 200)}`,
        );
    }),
  ]);
  totals.probes += Math.min(25, stillIn.length) + Math.min(10, stillOut.length);
  expect(wrong, `[${WHO}] ${label}: codes resent after the restart`).toEqual([]);
}

it(
  `keeps every acknowledged check-in and reversal through ${CYCLES} kill -9 cycles under concurrent load`,
  { timeout: CYCLES * 20_000 },
  async () => {
    const began = Date.now();
    const log: string[] = [];
    for (let c = 1; c <= CYCLES; c++) {
      let box: Awaited<ReturnType<typeof start>> | undefined;
      try {
        box = await start();
        if (c > 1) {
          // The box recovered the database the last SIGKILL left; check it against every answer so far.
          const now = verify(`after cycle ${c - 1} (restarted)`);
          await probe(box.url, now, `start of cycle ${c}`);
        }
        const r = await cycle(c, box.url, box.child, box.exited);
        log.push(`cycle ${c}: ${r.clients} clients, killed ${r.plan}, ${r.acks} acks`);
      } catch (error) {
        box?.child.kill('SIGKILL');
        if (error instanceof Error && !error.message.includes(WHO))
          error.message = `[${WHO}] cycle ${c}: ${error.message}\n${log.join('\n')}`;
        throw error;
      }
    }

    // One last start on what the last SIGKILL left, then a clean stop, then the database at rest.
    const box = await start();
    try {
      const now = verify(`after cycle ${CYCLES} (restarted)`);
      await probe(box.url, now, 'final restart');
      box.child.kill('SIGTERM');
      await box.exited;
      expect(box.child.exitCode, `[${WHO}] the box stops cleanly on SIGTERM after ${CYCLES} power cuts`).toBe(0);
    } finally {
      box.child.kill('SIGKILL');
    }
    const final = verify('at rest, after a clean stop');
    const db = openDatabase(dbFile);
    try {
      // FULL: a commit survives power loss, not only a crash (kill -9 alone cannot tell, so it is pinned here).
      expect(db.sqlite.pragma('synchronous', { simple: true }), `[${WHO}] synchronous of the box's connection`).toBe(2);
      expect(db.sqlite.pragma('journal_mode', { simple: true }), `[${WHO}] journal_mode`).toBe('wal');
    } finally {
      db.close();
    }

    expect(acked.checkins.length, `[${WHO}] no check-in was acknowledged at all`).toBeGreaterThan(0);
    expect(acked.reversals.length, `[${WHO}] no reversal was acknowledged at all`).toBeGreaterThan(0);
    const checkedInNow = [...final.values()].filter((p) => p.checkin_em !== null).length;
    console.log(
      [
        `kill -9 soak (${WHO}): ${CYCLES} cycles in ${((Date.now() - began) / 1000).toFixed(1)} s, ${peopleLoaded} people (${familiesLoaded} group-QR orders)`,
        `  proven: ${acked.checkins.length} acknowledged check-ins, ${acked.reversals.length} acknowledged reversals, ${acked.alreadyUsed.length} TICKET_ALREADY_USED answers: all stored with their events, none twice`,
        `  load: ${totals.requests} requests, ${totals.batches} batches (${totals.batchCodes} codes), ${totals.groupCheckins} group check-ins, ${totals.groupReversals} group reversals; ${totals.probes} codes resent after restarts`,
        `  kills: ${totals.killsByAcks} after a random number of acks, ${totals.killsByDelay} after a random delay; ${checkedInNow} people checked in at the end, ${limbo.size} codes never answered`,
        ...log.map((l) => `  ${l}`),
      ].join('\n'),
    );
  },
);
