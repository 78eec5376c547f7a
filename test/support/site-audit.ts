import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import Database from 'better-sqlite3';
import { expect } from 'vitest';
import type { FakeCloud } from './fake-cloud.js';
import type { Answer, SiteBox } from './site-box.js';

// The audit a multi-box run ends with (DESIGN.md, "the degraded path is the product"): every movement a box answered
// 200 is once in its own log and once in every other box's, once at the cloud or a classified conflict; every ticket
// let in while already inside is a duplo_no_site on every box naming both entries, and nothing else is; no box
// rejects another's messages; every queue is at 0. Each finding names the box and the ticket.

export type Action = 'checkin' | 'estorno';

/** One answer a box gave the test. */
export interface Scan {
  box: string;
  qr: string;
  action: Action;
  status: number;
  body: any;
}

/** Every answer the test got from the boxes, kept for the audit. */
export function createLedger() {
  const scans: Scan[] = [];
  const keep = (box: SiteBox, qr: string, action: Action, answer: Answer): Scan => {
    const scan = { box: box.name, qr, action, status: answer.status, body: answer.body };
    scans.push(scan);
    return scan;
  };
  return {
    scans,
    keep,
    checkin: async (box: SiteBox, qr: string) => keep(box, qr, 'checkin', await box.checkin(qr)),
    reverse: async (box: SiteBox, qr: string) => keep(box, qr, 'estorno', await box.reverse(qr)),
    /** The 200s for this ticket (and action), in the order the test got them. */
    granted: (qr: string, action: Action = 'checkin') =>
      scans.filter((s) => s.qr === qr && s.action === action && s.status === 200),
    /** Every ticket the run scanned. */
    tickets: () => [...new Set(scans.map((s) => s.qr))],
  };
}
export type Ledger = ReturnType<typeof createLedger>;

/** Runs `work` over `items`, `lanes` at a time (a rush of several entrances at once). */
export async function inParallel<T>(items: T[], lanes: number, work: (item: T, i: number) => Promise<void>) {
  let next = 0;
  const lane = async () => {
    for (let i = next++; i < items.length; i = next++) await work(items[i]!, i);
  };
  await Promise.all(Array.from({ length: lanes }, lane));
}

export interface EventRow {
  id: number;
  action: string;
  qr_code: string | null;
  result: string;
  /** The box that made it, when not this one. */
  site_box: string | null;
  /** 1: decided without the site. */
  sem_site: number;
  occurred_at: string;
}

/** Reads a box's own database, read-only, beside the running box. */
function readDb<T>(box: SiteBox, read: (db: Database.Database) => T): T {
  const db = new Database(path.join(box.dataDir, 'gate.db'), { readonly: true, fileMustExist: true });
  try {
    return read(db);
  } finally {
    db.close();
  }
}

/** A box's check-ins and reversals, refusals included. */
export const eventsOf = (box: SiteBox): EventRow[] =>
  readDb(
    box,
    (db) =>
      db
        .prepare(
          `select id, action, qr_code, result, site_box, sem_site, occurred_at from events
           where action in ('checkin', 'estorno') order by id`,
        )
        .all() as EventRow[],
  );

/** The outbox's pending rows, and how many of them have no time set for a next attempt. */
const pendingPushes = (box: SiteBox) =>
  readDb(
    box,
    (db) =>
      db
        .prepare(
          `select count(*) as pendentes, count(*) filter (where next_attempt_at is null) as sem_proxima
           from sync_push where status = 'pendente'`,
        )
        .get() as { pendentes: number; sem_proxima: number },
  );

const usedAt = (box: SiteBox) =>
  readDb(
    box,
    (db) => new Set(db.prepare('select qr_code from people where checkin_em is not null').pluck().all() as string[]),
  );

/** What a box shows of its queues: the site's and the cloud's. */
async function queuesOf(box: SiteBox) {
  const view = await box.siteView();
  const { fila } = (await box.get('/api/local/sync')).body.data;
  return {
    modo: view.modo,
    atraso: view.atraso,
    pendentes: view.pendentes,
    estacionadas: view.estacionadas,
    nuvem_pendentes: fila.pendentes as number,
    proxima_tentativa_em: fila.proxima_tentativa_em as string | null,
  };
}
const SETTLED = { modo: 'site', atraso: 0, pendentes: 0, estacionadas: 0, nuvem_pendentes: 0 };
const isSettled = (q: Awaited<ReturnType<typeof queuesOf>>) =>
  Object.entries(SETTLED).every(([k, v]) => q[k as keyof typeof q] === v);

/**
 * Waits (at most `limitMs`) until every box is on the site with nothing to apply, publish or push. Does not fail: the
 * audit says what was left, and where.
 */
export async function settle(boxes: SiteBox[], limitMs: number): Promise<void> {
  const end = Date.now() + limitMs;
  while (Date.now() < end) {
    if ((await Promise.all(boxes.map(queuesOf))).every(isSettled)) return;
    await sleep(200);
  }
}

type Own = (box: string, qr: string, action: string) => EventRow | undefined;

/**
 * Tickets let in while inside, judged on the order things happened (each 200's own event at the box that made it):
 * an entry while the ticket is used is a double entry; a reversal frees it.
 */
function doublesOf(ledger: Ledger, own: Own): Set<string> {
  const doubles = new Set<string>();
  for (const qr of ledger.tickets()) {
    const moves = ledger.scans
      .filter((s) => s.qr === qr && s.status === 200)
      .flatMap((s) => own(s.box, qr, s.action) ?? [])
      .sort((a, b) => a.occurred_at.localeCompare(b.occurred_at));
    let inside = false;
    for (const m of moves)
      if (m.action === 'estorno') inside = false;
      else if (inside) doubles.add(qr);
      else inside = true;
  }
  return doubles;
}

/** The audit, on every box; soft expectations, so one run reports every kind of finding. */
export async function auditSite(boxes: SiteBox[], cloud: FakeCloud, ledger: Ledger) {
  const events = new Map(boxes.map((b) => [b.name, eventsOf(b).filter((e) => e.result === 'ok')]));
  const own: Own = (box, qr, action) =>
    events.get(box)!.find((e) => e.site_box === null && e.qr_code === qr && e.action === action);
  const conflicts = new Map<string, any[]>();
  for (const b of boxes) conflicts.set(b.name, (await b.get('/api/local/conflicts?limit=100000')).body.data.conflitos);
  const doubles = doublesOf(ledger, own);

  // Once in every box's log; once at the cloud (each box pushes with its own key, caixa-<box>), or classified: the
  // second entry of a double is ja_utilizado_na_nuvem, a reversal of it is closed unsent (CHECKIN_NAO_ACEITO).
  const cloudOk = cloud.answersByKey().filter((a) => a.result === 'ok');
  const unrecorded: string[] = [];
  const cloudWrong: string[] = [];
  for (const { box, qr, action } of ledger.scans.filter((s) => s.status === 200)) {
    const n = ledger.granted(qr, action).filter((s) => s.box === box).length;
    for (const other of boxes) {
      const here = events.get(other.name)!.filter((e) => e.action === action && e.qr_code === qr);
      const made = here.filter((e) => e.site_box === (other.name === box ? null : box)).length;
      if (made !== n) unrecorded.push(`${action} ${qr} answered 200 by ${box} ${n}x: ${made}x in ${other.name}'s log`);
    }
    const mine = events.get(box)!.filter((e) => e.action === action && e.qr_code === qr && e.site_box === null);
    const classified = mine.filter((e) =>
      conflicts.get(box)!.some((c) => c.evento_id === e.id && classifiedOk(c, doubles)),
    ).length;
    const sent = cloudOk.filter((a) => a.key_name === `caixa-${box}` && a.action === action && a.qr_code === qr);
    if (sent.length + classified !== n)
      cloudWrong.push(`${action} ${qr} by ${box} (${n}x): ${sent.length}x at the cloud, ${classified}x classified`);
  }
  expect.soft([...new Set(unrecorded)], 'each movement answered 200 is in every box’s log once').toEqual([]);
  expect.soft([...new Set(cloudWrong)], 'each movement reaches the cloud once, or is classified').toEqual([]);
  const unclassified = boxes.flatMap((b) =>
    conflicts
      .get(b.name)!
      .filter((c) => c.tipo !== 'duplo_no_site' && !classifiedOk(c, doubles))
      .map((c) => `${b.name}: ${c.tipo} ${c.acao} ${c.qr_code} (${c.codigo_nuvem})`),
  );
  expect.soft(unclassified, 'the cloud refuses only what a double entry explains').toEqual([]);

  const missing: string[] = [];
  const phantoms: string[] = [];
  const counts: string[] = [];
  for (const b of boxes) {
    const rows = (await b.get('/api/local/conflicts?tipo=duplo_no_site&limit=100000')).body.data;
    const view = await b.siteView();
    if (view.conflitos !== rows.total || rows.total !== rows.conflitos.length)
      counts.push(`${b.name}: conflitos ${view.conflitos}, list total ${rows.total}, rows ${rows.conflitos.length}`);
    for (const c of rows.conflitos as any[])
      if (!doubles.has(c.qr_code)) phantoms.push(`${b.name}: ${c.qr_code} (${answersFor(ledger, c.qr_code)})`);
    for (const qr of doubles) {
      const entries = events.get(b.name)!.filter((e) => e.action === 'checkin' && e.qr_code === qr);
      const listed = (rows.conflitos as any[]).filter((c) => c.qr_code === qr);
      const named = new Set(listed.flatMap((c) => [c.evento_id, c.outro_evento_id]));
      const unnamed = entries.filter((e) => !named.delete(e.id)).length;
      if (listed.length < entries.length - 1 || unnamed > 0 || named.size > 0)
        missing.push(`${b.name}: ${qr} (${answersFor(ledger, qr)}): ${listed.length} rows, ${unnamed} entries unnamed`);
    }
  }
  expect.soft(missing, 'every double entry is a duplo_no_site on every box, naming both entries').toEqual([]);
  expect.soft(phantoms, 'no ticket let in once is a duplo_no_site').toEqual([]);
  expect.soft(counts, 'conflitos in /api/local/site is the number of duplo_no_site rows').toEqual([]);

  const rejected: string[] = [];
  const queues: string[] = [];
  const astray: string[] = [];
  for (const b of boxes) {
    for (const [reason, n] of Object.entries((await b.siteView()).rejeitadas))
      if (n > 0) rejected.push(`${b.name}: ${reason} ${n}`);
    const q = await queuesOf(b);
    if (!isSettled(q) || q.proxima_tentativa_em !== null) queues.push(`${b.name}: ${JSON.stringify(q)}`);
    const outbox = pendingPushes(b);
    if (outbox.pendentes > 0) queues.push(`${b.name}: outbox ${JSON.stringify(outbox)}`);
    // Each box's copy of every ticket without a double: used while its last movement let it in.
    const used = usedAt(b);
    for (const qr of ledger.tickets().filter((t) => !doubles.has(t))) {
      const inside = ledger.granted(qr).length > ledger.granted(qr, 'estorno').length;
      if (used.has(qr) !== inside)
        astray.push(`${b.name}: ${qr} ${used.has(qr) ? 'used' : 'free'} (${answersFor(ledger, qr)})`);
    }
  }
  expect.soft(rejected, 'no box rejects another box’s messages').toEqual([]);
  expect.soft(queues, 'every queue is at 0 on every box, nothing held without a next attempt').toEqual([]);
  expect.soft(astray, 'every box holds each ticket as its movements left it').toEqual([]);
}

/** A cloud conflict a double entry explains. */
const classifiedOk = (c: any, doubles: Set<string>) =>
  doubles.has(c.qr_code) &&
  ((c.acao === 'checkin' && c.tipo === 'ja_utilizado_na_nuvem') ||
    (c.acao === 'estorno' && c.codigo_nuvem === 'CHECKIN_NAO_ACEITO'));

/** What the boxes answered for a ticket, e.g. "checkin norte 200, checkin sul 409". */
const answersFor = (ledger: Ledger, qr: string) =>
  ledger.scans
    .filter((s) => s.qr === qr)
    .map((s) => `${s.action} ${s.box} ${s.status}`)
    .join(', ');
