import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createOperator } from '../../src/operators/operators.repo.js';
import { openDatabase, type Db } from '../../src/db/open.js';
import { createLaneEventLog } from '../../src/gate/lanes/lane-events.js';
import { archiveOldEvents, type ArchiveOptions } from '../../src/retention/retention.js';
import { createOutboxRepo } from '../../src/sync/outbox.repo.js';
import { createTestBox, type TestBox } from '../support/box.js';
import { makeOrder } from '../support/fixtures.js';
import { checkin, reverse } from '../support/http.js';

// Retention (docs/operations.md, "Retention"): old events that nothing waits on move to a dated
// archive file and leave the live tables; what the cloud has not answered, and today, stay.

const OLD_DAY = '2026-06-10';
const OLD = `${OLD_DAY}T13:00:00.000Z`; // 10:00 in São Paulo
const TODAY = '2026-11-21';
const NOW = `${TODAY}T13:00:00.000Z`;

let box: TestBox;
let db: Db; // the archive command's own connection, as its process has
let dir: string;
const ids: Record<string, number> = {};

const run = (opts: Partial<ArchiveOptions> = {}) =>
  archiveOldEvents(db.sqlite, box.clock, {
    days: 90,
    dir,
    lockFile: path.join(box.dir, 'archive.lock'),
    pauseMs: 1,
    ...opts,
  });

const liveIds = (table: string, tenantId = box.tenantId) =>
  box.db.sqlite.prepare(`SELECT id FROM ${table} WHERE tenant_id = ? ORDER BY id`).pluck().all(tenantId) as number[];
const eventIdOf = (code: string, action = 'checkin') =>
  box.db.sqlite
    .prepare('SELECT id FROM events WHERE code = ? AND action = ? ORDER BY id DESC LIMIT 1')
    .pluck()
    .get(code, action) as number;

/** Every archive file of `dir`, read as a user would. */
function archived(table: string, column = 'id'): number[] {
  const out: number[] = [];
  for (const f of fs.existsSync(dir) ? fs.readdirSync(dir).filter((n) => n.endsWith('.sqlite')) : []) {
    const a = new Database(path.join(dir, f), { readonly: true });
    out.push(...(a.prepare(`SELECT ${column} FROM ${table} ORDER BY 1`).pluck().all() as number[]));
    a.close();
  }
  return out.sort((x, y) => x - y);
}

/** Each event id of the tenants exactly once across the live table and every archive file. */
function expectEachOnce(table: 'events' | 'lane_events', expected: number[]) {
  const all = [
    ...(box.db.sqlite.prepare(`SELECT id FROM ${table}`).pluck().all() as number[]),
    ...archived(table),
  ].sort((x, y) => x - y);
  expect(all).toEqual([...expected].sort((x, y) => x - y));
}

beforeEach(async () => {
  box = await createTestBox({ now: OLD });
  dir = path.join(box.dir, 'archive');
  box.importOrders([
    makeOrder({ numero: '20260610-0001', prefix: 'VELHO', dataUso: OLD_DAY, people: 8 }),
    makeOrder({ numero: '20261121-0001', prefix: 'HOJE', dataUso: TODAY, people: 2 }),
  ]);
  box.importOrders(
    [makeOrder({ numero: '20260610-0002', prefix: 'OUTRO', dataUso: OLD_DAY, people: 2 })],
    box.otherTenantId,
  );
  // An old day at the gate: check-ins, a reversal, a refusal; the other tenant (no cloud) too.
  for (let i = 1; i <= 6; i++)
    expect((await checkin(box, { qr_code: `VELHO-${i}`, terminal: 'catraca-1' })).status).toBe(200);
  expect((await reverse(box, { qr_code: 'VELHO-6' })).status).toBe(200);
  expect((await checkin(box, { qr_code: 'NAO-EXISTE' })).status).toBe(404);
  for (const code of ['OUTRO-1', 'OUTRO-2'])
    expect((await checkin(box, { qr_code: code }, box.keys.otherTenant)).status).toBe(200);

  // The cloud's answers, through the sync worker's own outbox: accepted, a conflict, one never answered,
  // one answered only recently (after a long outage).
  const outbox = createOutboxRepo(box.db, box.tenantId);
  outbox.enqueue(1000);
  const settle = (code: string, resultado: 'aceito' | 'ja_utilizado_na_nuvem', at: string, action = 'checkin') =>
    outbox.settle(eventIdOf(code, action), { resultado, code: null, message: null, at: null }, at);
  for (const code of ['VELHO-1', 'VELHO-2', 'VELHO-6']) settle(code, 'aceito', '2026-06-10T13:05:00.000Z');
  settle('VELHO-6', 'aceito', '2026-06-10T13:05:00.000Z', 'estorno');
  settle('VELHO-3', 'ja_utilizado_na_nuvem', '2026-06-10T13:05:00.000Z');
  settle('VELHO-5', 'aceito', '2026-11-20T10:00:00.000Z');
  for (const code of ['VELHO-1', 'VELHO-2', 'VELHO-3', 'VELHO-4', 'VELHO-5', 'VELHO-6']) ids[code] = eventIdOf(code);
  ids.estorno = eventIdOf('VELHO-6', 'estorno');
  ids.recusa = eventIdOf('NAO-EXISTE');
  // Checked in after the worker's last look: not in the outbox yet, so the cloud has not seen it.
  expect((await checkin(box, { qr_code: 'VELHO-7' })).status).toBe(200);
  ids['VELHO-7'] = eventIdOf('VELHO-7');

  // The central office read the log (marks), the lanes logged an alarm that a supervisor acknowledged.
  expect(
    (await box.app.inject({ url: '/api/local/eventos?limit=1000', headers: { 'x-api-key': box.keys.all } })).statusCode,
  ).toBe(200);
  const lanes = createLaneEventLog({
    db: box.db,
    tenantId: box.tenantId,
    log: { error() {}, warn() {}, info() {} } as never,
  });
  await lanes.append({ lane: 'entrada-1', kind: 'carona', at: OLD });
  await lanes.append({ lane: 'entrada-1', kind: 'passagem', at: OLD, code: 'VELHO-1' });
  const op = await createOperator(box.db, {
    tenantId: box.tenantId,
    nome: 'Sofia',
    papel: 'supervisor',
    segredo: '4321',
    nowIso: OLD,
  });
  box.db.sqlite
    .prepare('INSERT INTO alarm_acks (lane_event_id, operator_id, acked_at) VALUES (?, ?, ?)')
    .run(liveIds('lane_events')[0], op.id, OLD);

  // Today.
  box.clock.set(NOW);
  expect((await checkin(box, { qr_code: 'HOJE-1' })).status).toBe(200);
  await lanes.append({ lane: 'entrada-1', kind: 'passagem', at: NOW, code: 'HOJE-1' });
  ids.hoje = eventIdOf('HOJE-1');
  db = openDatabase(path.join(box.dir, 'gate.db'));
});

afterEach(async () => {
  db?.close();
  await box?.close();
});

describe('gate archive policy', () => {
  it('moves old events the cloud settled, refusals and old lane events, with their outbox rows, marks and acknowledgements; keeps the rest', async () => {
    const allEvents = box.db.sqlite.prepare('SELECT id FROM events').pluck().all() as number[];
    const allLane = box.db.sqlite.prepare('SELECT id FROM lane_events').pluck().all() as number[];
    const result = await run();
    expect(result.cutoff.date).toBe('2026-08-23');
    expect(result.runs).toHaveLength(1);
    const file = path.join(dir, `events-${TODAY}.sqlite`);
    expect(result.runs[0]).toMatchObject({ file, resumed: false, events: 7, laneEvents: 2 });
    // Waiting: VELHO-4 (never answered), VELHO-5 (answered 1 day ago), VELHO-7 (not in the outbox yet).
    expect(result.waiting).toBe(3);

    const moved = [ids['VELHO-1'], ids['VELHO-2'], ids['VELHO-3'], ids['VELHO-6'], ids.estorno, ids.recusa];
    expect(archived('events').filter((id) => moved.includes(id))).toEqual([...moved].sort((a, b) => a! - b!));
    // The other tenant has no cloud: its old check-ins moved on age alone, except its newest event.
    const other = liveIds('events', box.otherTenantId);
    expect(other).toHaveLength(1);
    expect(archived('events')).toHaveLength(moved.length + 1);
    expect(liveIds('events')).toEqual([ids['VELHO-4'], ids['VELHO-5'], ids['VELHO-7'], ids.hoje]);
    expect(liveIds('lane_events')).toHaveLength(1); // today's passage
    expectEachOnce('events', allEvents);
    expectEachOnce('lane_events', allLane);

    // What moved came with the rows pointing at it; the live tables keep no reference to a moved row.
    const a = new Database(file, { readonly: true });
    expect(a.prepare('SELECT event_id, resultado FROM sync_push ORDER BY event_id').all()).toEqual(
      [ids['VELHO-1'], ids['VELHO-2'], ids['VELHO-3'], ids['VELHO-6'], ids.estorno].map((id) => ({
        event_id: id,
        resultado: id === ids['VELHO-3'] ? 'ja_utilizado_na_nuvem' : 'aceito',
      })),
    );
    expect(a.prepare('SELECT count(*) FROM event_marks').pluck().get()).toBeGreaterThan(0);
    expect(a.prepare('SELECT count(*) FROM alarm_acks').pluck().get()).toBe(1);
    expect(a.prepare('SELECT slug FROM tenants WHERE id = ?').pluck().get(box.tenantId)).toBe('parque');
    expect(a.prepare('SELECT code FROM events WHERE id = ?').pluck().get(ids['VELHO-1'])).toBe('VELHO-1');
    expect(a.pragma('integrity_check', { simple: true })).toBe('ok');
    a.close();
    expect(box.db.sqlite.pragma('foreign_key_check')).toEqual([]);
    expect(
      box.db.sqlite
        .prepare('SELECT count(*) FROM sync_push WHERE event_id NOT IN (SELECT id FROM events)')
        .pluck()
        .get(),
    ).toBe(0);
    expect(box.db.sqlite.prepare('SELECT count(*) FROM retention_moving').pluck().get()).toBe(0);
    expect(box.db.sqlite.prepare('SELECT finished_at, events, lane_events FROM retention_runs').all()).toEqual([
      { finished_at: NOW, events: 7, lane_events: 2 },
    ]);
  });

  it('a second run moves nothing new and doubles nothing; an event the cloud settles later moves on a later run', async () => {
    const allEvents = box.db.sqlite.prepare('SELECT id FROM events').pluck().all() as number[];
    await run();
    const before = archived('events');
    const again = await run();
    expect(again.runs).toEqual([]);
    expect(archived('events')).toEqual(before);
    expectEachOnce('events', allEvents);

    // The cloud answers VELHO-4 long ago (say the answer was recorded by a box whose clock was right then).
    createOutboxRepo(box.db, box.tenantId).settle(
      ids['VELHO-4']!,
      { resultado: 'aceito', code: null, message: null, at: null },
      '2026-06-11T10:00:00.000Z',
    );
    const later = await run();
    expect(later.runs[0]).toMatchObject({ events: 1, laneEvents: 0, file: path.join(dir, `events-${TODAY}.sqlite`) });
    expect(archived('events')).toEqual([...before, ids['VELHO-4']!].sort((a, b) => a - b));
    expectEachOnce('events', allEvents);
  });

  it('a settled check-in stays while a later event of its QR waits in the outbox (a reversal is sent only if its check-in was accepted)', async () => {
    box.clock.set(OLD);
    expect((await reverse(box, { qr_code: 'VELHO-2' })).status).toBe(200);
    createOutboxRepo(box.db, box.tenantId).enqueue(1000);
    box.clock.set(NOW);
    const result = await run();
    expect(liveIds('events')).toEqual(expect.arrayContaining([ids['VELHO-2'], eventIdOf('VELHO-2', 'estorno')]));
    expect(archived('events')).not.toContain(ids['VELHO-2']);
    expect(result.runs[0]!.events).toBe(6);
  });

  it('with the cloud naming a tenant that never synced yet, its unsent check-ins stay', async () => {
    const result = await run({ cloudTenants: ['outro'] });
    expect(liveIds('events', box.otherTenantId)).toHaveLength(2);
    expect(result.waiting).toBe(3 + 1); // the newest of 'outro' is not counted: it stays anyway
  });

  it('--dry-run counts and writes nothing', async () => {
    const result = await run({ dryRun: true });
    expect(result.wouldMove).toEqual({ events: 7, laneEvents: 2, interrupted: [] });
    expect(fs.existsSync(dir)).toBe(false);
    expect(box.db.sqlite.prepare('SELECT count(*) FROM retention_runs').pluck().get()).toBe(0);
  });

  it('a crash after the archive is written and before the deletes: the next run, a day later, finishes it in the same file, each event once', async () => {
    const allEvents = box.db.sqlite.prepare('SELECT id FROM events').pluck().all() as number[];
    const allLane = box.db.sqlite.prepare('SELECT id FROM lane_events').pluck().all() as number[];
    await expect(
      run({
        afterCopy: () => {
          throw new Error('queda de energia');
        },
      }),
    ).rejects.toThrow('queda de energia');
    // Everything is still live, and in the archive too: nothing was lost.
    expect(box.db.sqlite.prepare('SELECT count(*) FROM events').pluck().get()).toBe(allEvents.length);
    expect(archived('events')).toHaveLength(7);

    box.clock.set('2026-11-22T13:00:00.000Z');
    const result = await run();
    expect(result.runs[0]).toMatchObject({
      resumed: true,
      file: path.join(dir, `events-${TODAY}.sqlite`),
      events: 7,
      laneEvents: 2,
    });
    expect(fs.readdirSync(dir).filter((f) => f.endsWith('.sqlite'))).toEqual([`events-${TODAY}.sqlite`]);
    expectEachOnce('events', allEvents);
    expectEachOnce('lane_events', allLane);
  });

  it('a mark added between the copy and the delete keeps its event live (and out of the archive) until the next run', async () => {
    const allEvents = box.db.sqlite.prepare('SELECT id FROM events').pluck().all() as number[];
    const key = box.db.sqlite.prepare("SELECT id FROM api_keys WHERE name = 'erp'").pluck().get() as number;
    await run({
      afterCopy: () =>
        void box.db.sqlite
          .prepare('INSERT INTO event_marks (api_key_id, event_id, sincronizado_em) VALUES (?, ?, ?)')
          .run(key, ids['VELHO-1'], NOW),
    });
    expect(liveIds('events')).toContain(ids['VELHO-1']);
    expectEachOnce('events', allEvents);
    await run();
    expect(liveIds('events')).not.toContain(ids['VELHO-1']);
    expectEachOnce('events', allEvents);
  });
});

describe('the live tables after archiving', () => {
  it('still refuse a stray DELETE or UPDATE', async () => {
    await run();
    expect(() => box.db.sqlite.prepare('DELETE FROM events').run()).toThrow('events are append-only');
    expect(() => box.db.sqlite.prepare('DELETE FROM lane_events').run()).toThrow('lane events are append-only');
    expect(() => box.db.sqlite.prepare("UPDATE events SET terminal = 'x'").run()).toThrow('events are append-only');
    // Not even the marker table lets a delete through for a row it does not list.
    box.db.sqlite.transaction(() => {
      box.db.sqlite.prepare("INSERT INTO retention_moving (tbl, id) VALUES ('events', ?)").run(ids.hoje);
      expect(() => box.db.sqlite.prepare('DELETE FROM events WHERE id = ?').run(ids['VELHO-4'])).toThrow(
        'events are append-only',
      );
      box.db.sqlite.prepare('DELETE FROM retention_moving').run();
    })();
  });

  it('/api/local/eventos and the console report work on what stays', async () => {
    await run();
    const res = await box.app.inject({
      url: '/api/local/eventos?limit=1000&marcar_sincronizado=false',
      headers: { 'x-api-key': box.keys.all },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json().data.eventos.map((e: { id: number }) => e.id)).toEqual([
      ids['VELHO-4'],
      ids['VELHO-5'],
      ids['VELHO-7'],
      ids.hoje,
    ]);
    const conflicts = await box.app.inject({ url: '/api/local/conflicts', headers: { 'x-api-key': box.keys.all } });
    expect(conflicts.statusCode).toBe(200);
    const signIn = await box.app.inject({
      method: 'POST',
      url: '/api/console/entrar',
      payload: { nome: 'Sofia', segredo: '4321', tenant: 'parque' },
    });
    const cookie = String(signIn.headers['set-cookie']).split(';')[0]!;
    const report = await box.app.inject({ url: `/api/console/relatorio?data=${TODAY}`, headers: { cookie } });
    expect(report.statusCode).toBe(200);
    expect(report.json().data.total_entradas).toBe(1);
    // The old day's report counts only what is still live: the three check-ins waiting on the cloud.
    expect(
      (await box.app.inject({ url: `/api/console/relatorio?data=${OLD_DAY}`, headers: { cookie } })).json().data
        .total_entradas,
    ).toBe(3);
  });
});
