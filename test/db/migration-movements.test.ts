import fs from 'node:fs';
import path from 'node:path';
import { Migrator } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { migrations } from '../../migrations/index.js';
import { migrateToLatest, openDatabase, type Db } from '../../src/db/open.js';
import { tempDir } from '../support/box.js';

// 0004 rebuilds `events` (SQLite cannot alter a CHECK): a database with events and an outbox that
// points at them comes through with every row, id, foreign key and append-only trigger.

let dir: string | null = null;
let db: Db | null = null;
afterEach(() => {
  db?.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
  db = dir = null;
});

describe('migration 0004_movements on a database with data', () => {
  it('keeps events, their ids and the outbox rows that reference them; the triggers still refuse changes', async () => {
    dir = tempDir('gate-mig-');
    db = openDatabase(path.join(dir, 'gate.db'));
    const migrator = new Migrator({ db: db.kysely, provider: { getMigrations: async () => migrations } });
    expect((await migrator.migrateTo('0003_lane_events')).error).toBeUndefined();
    const s = db.sqlite;
    s.prepare("insert into tenants (slug, nome, created_at) values ('parque', 'Parque', '2026-11-20T10:00:00Z')").run();
    const event = s.prepare(
      `insert into events (tenant_id, occurred_at, action, mode, code, qr_code, result, source) values (1, ?, ?, 'qr', ?, ?, 'ok', 'api')`,
    );
    for (let i = 1; i <= 50; i++)
      event.run(
        `2026-11-20T10:00:${String(i % 60).padStart(2, '0')}Z`,
        i % 5 === 0 ? 'estorno' : 'checkin',
        `Q-${i}`,
        `Q-${i}`,
      );
    s.prepare("insert into sync_push (event_id, tenant_id, chave, action) values (7, 1, 'Q-7', 'checkin')").run();
    const before = s.prepare('select * from events order by id').all();

    expect(await migrateToLatest(db)).toEqual(
      Object.keys(migrations).slice(Object.keys(migrations).indexOf('0004_movements')),
    );
    // 0010_clock adds a column, null on every earlier event.
    expect(s.prepare('select * from events order by id').all()).toEqual(
      // Columns added by later migrations come with their defaults (0010_clock, 0013_site).
      before.map((r) => ({
        ...(r as object),
        relogio_suspeito: null,
        site_id: null,
        site_box: null,
        site_seq: null,
        sem_site: 0,
      })),
    );
    expect(s.prepare('select event_id from sync_push').pluck().all()).toEqual([7]);
    expect(s.pragma('foreign_key_check')).toEqual([]);
    expect(s.pragma('foreign_keys', { simple: true })).toBe(1);
    expect(() => s.prepare("update events set result = 'x' where id = 1").run()).toThrow(/append-only/);
    expect(() => s.prepare('delete from events where id = 1').run()).toThrow(/append-only/);
    // New ids go on after the old ones; the new actions are taken, unknown ones are not.
    const id = event.run('2026-11-21T10:00:00Z', 'saida', 'Q-1', 'Q-1').lastInsertRowid;
    expect(id).toBe(51);
    expect(() => event.run('2026-11-21T10:00:00Z', 'voo', 'Q-1', 'Q-1')).toThrow(/CHECK/);
    expect(() =>
      s.prepare("insert into sync_push (event_id, tenant_id, chave, action) values (999, 1, 'X', 'checkin')").run(),
    ).toThrow(/FOREIGN KEY/);
  });
});
