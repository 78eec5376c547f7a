import { afterEach, describe, expect, it } from 'vitest';
import { CANNOT_RECORD, createStorageHealth } from '../../src/db/storage.js';
import { createTestBox, type TestBox } from '../support/box.js';
import { makeOrder } from '../support/fixtures.js';
import { checkin } from '../support/http.js';

// A database that cannot be written (a full disk, a read-only file): the gate is told so with 503
// SERVICE_UNAVAILABLE, nothing is half-written, /health fails while it lasts, and the box recovers
// by itself.

let box: TestBox;
afterEach(async () => box?.close());

const health = async () => {
  const res = await box.app.inject({ method: 'GET', url: '/health' });
  return { status: res.statusCode, body: res.json() };
};
const count = (sql: string) => box.db.sqlite.prepare(sql).pluck().get() as number;

describe('a database that cannot be written', () => {
  it('read-only: check-ins answer 503 in the envelope, /health fails, both recover without a restart', async () => {
    box = await createTestBox();
    box.importOrders([makeOrder({ prefix: 'RO', people: 2 })]);
    box.db.sqlite.pragma('query_only = ON');
    const refused = await checkin(box, { qr_code: 'RO-1' });
    expect(refused).toEqual({
      status: 503,
      body: {
        success: false,
        error: { code: 'SERVICE_UNAVAILABLE', message: CANNOT_RECORD, details: { motivo: 'SQLITE_READONLY' } },
      },
    });
    // A batch too: the whole request, not 1,000 INTERNAL_ERRORs.
    expect((await checkin(box, { qr_code: 'RO-1,RO-2' })).status).toBe(503);
    expect(await health()).toMatchObject({
      status: 503,
      body: { error: { code: 'SERVICE_UNAVAILABLE', details: { banco: 'sem_gravacao', motivo: 'SQLITE_READONLY' } } },
    });
    box.db.sqlite.pragma('query_only = OFF');
    box.clock.advance(2000);
    await new Promise((r) => setTimeout(r, 1100)); // the probe runs at most once a second
    expect(await health()).toMatchObject({ status: 200, body: { data: { banco: 'ok' } } });
    expect((await checkin(box, { qr_code: 'RO-1' })).status).toBe(200);
  });

  it('full: the check-in and its event are not half-written; a refusal cannot be recorded either', async () => {
    box = await createTestBox();
    box.importOrders([makeOrder({ prefix: 'FULL', people: 2 })]);
    const s = box.db.sqlite;
    const events = count('select count(*) from events');
    // Fill the event log's pages up to a database size limit, as a full disk would stop it.
    s.pragma(`max_page_count = ${(s.pragma('page_count', { simple: true }) as number) + 4}`);
    const insert = s.prepare(
      "insert into events (tenant_id, occurred_at, action, mode, code, result, source) values (?, '2026-01-01T00:00:00Z', 'checkin', 'qr', 'filler', 'filler', 'test')",
    );
    expect(() => {
      for (;;) insert.run(box.tenantId);
    }).toThrow(/full/);
    const filled = count('select count(*) from events');
    expect(filled).toBeGreaterThan(events);
    const refused = await checkin(box, { qr_code: 'FULL-1' });
    expect([refused.status, refused.body.error.code, refused.body.error.details]).toEqual([
      503,
      'SERVICE_UNAVAILABLE',
      { motivo: 'SQLITE_FULL' },
    ]);
    expect((await checkin(box, { qr_code: 'NOBODY' })).status).toBe(503);
    expect(s.prepare("select checkin_em from people where qr_code = 'FULL-1'").pluck().get()).toBeNull();
    expect(count('select count(*) from events')).toBe(filled);
    expect((await health()).status).toBe(503);
    s.pragma('max_page_count = 1073741823');
    expect((await checkin(box, { qr_code: 'FULL-1' })).status).toBe(200);
    expect((await health()).status).toBe(200);
  });

  it('says it in the log once per change of state, not once per check-in', () => {
    const lines: string[] = [];
    const log = {
      error: (_o: object, m: string) => void lines.push(`error:${m}`),
      info: (_o: object, m: string) => void lines.push(`info:${m}`),
    };
    const storage = createStorageHealth({
      sqlite: {
        memory: true,
        name: ':memory:',
        prepare: () => ({ run: () => undefined }),
        exec: () => undefined,
      } as never,
      log,
    });
    const full = Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' });
    for (let i = 0; i < 5; i++) expect(storage.record(full)).toBe(true);
    expect(storage.record(new Error('other'))).toBe(false);
    storage.recovered();
    storage.recovered();
    expect(storage.record(full)).toBe(true);
    expect(lines).toEqual([
      'error:database cannot be written: check-ins answer 503 until it can',
      'info:database writable again',
      'error:database cannot be written: check-ins answer 503 until it can',
    ]);
  });
});
