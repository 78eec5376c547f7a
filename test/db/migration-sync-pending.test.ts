import fs from 'node:fs';
import path from 'node:path';
import { Migrator } from 'kysely';
import { afterEach, expect, it } from 'vitest';
import { migrations } from '../../migrations/index.js';
import { openDatabase, type Db } from '../../src/db/open.js';
import { syncSummary } from '../../src/sync/sync.repo.js';
import { ensureTenant } from '../../src/tenants/tenants.repo.js';
import { tempDir } from '../support/temp.js';

// 0015 keeps the outbox's pending count per tenant by triggers (the box's status reads it every second): it starts
// from what an upgraded box had waiting, and stays equal to counting the rows through every way a row changes.

let dir: string | null = null;
let db: Db | null = null;
afterEach(() => {
  db?.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
  db = dir = null;
});

it('migration 0015: the pending count starts from the rows waiting and follows inserts, settlements, deletions and a tenant change', async () => {
  dir = tempDir('gate-mig-');
  const d = (db = openDatabase(path.join(dir, 'gate.db')));
  const migrator = new Migrator({ db: d.kysely, provider: { getMigrations: async () => migrations } });
  expect((await migrator.migrateTo('0014_handheld')).error).toBeUndefined();
  const now = '2026-11-26T10:00:00.000Z';
  const [a, b] = [ensureTenant(d, 'parque', now), ensureTenant(d, 'lagoa', now)];
  const event = d.sqlite.prepare(
    `INSERT INTO events (tenant_id, occurred_at, action, mode, code, result, source) VALUES (?, ?, 'checkin', 'qr', 'Q', 'ok', 'api')`,
  );
  const push = d.sqlite.prepare(
    `INSERT INTO sync_push (event_id, tenant_id, chave, action, status) VALUES (?, ?, ?, 'checkin', ?)`,
  );
  const add = (tenant: number, status: 'pendente' | 'concluido') => {
    const id = Number(event.run(tenant, now).lastInsertRowid);
    push.run(id, tenant, `k${id}`, status);
    return id;
  };
  const before = [add(a, 'pendente'), add(a, 'pendente'), add(a, 'concluido'), add(b, 'pendente')];
  expect((await migrator.migrateToLatest()).error).toBeUndefined();

  const counted = (tenant: number) =>
    (
      d.sqlite
        .prepare(`SELECT count(*) AS n FROM sync_push WHERE tenant_id = ? AND status = 'pendente'`)
        .get(tenant) as {
        n: number;
      }
    ).n;
  const waiting = (tenant: number) => syncSummary(d, tenant, { every: false, syncRuns: false }).queue.n;
  const same = () => {
    for (const t of [a, b]) expect(waiting(t)).toBe(counted(t));
  };
  expect([waiting(a), waiting(b)]).toEqual([2, 1]);
  const later = [add(a, 'pendente'), add(a, 'pendente'), add(b, 'concluido')];
  same();
  d.sqlite.prepare(`UPDATE sync_push SET status = 'concluido', resultado = 'aceito' WHERE event_id = ?`).run(before[0]);
  d.sqlite.prepare(`UPDATE sync_push SET attempts = attempts + 1 WHERE event_id = ?`).run(later[0]);
  same();
  d.sqlite.prepare(`UPDATE sync_push SET tenant_id = ? WHERE event_id = ?`).run(b, later[1]);
  d.sqlite.prepare(`UPDATE sync_push SET status = 'pendente' WHERE event_id = ?`).run(before[2]);
  same();
  d.sqlite.prepare(`DELETE FROM sync_push WHERE event_id IN (?, ?)`).run(before[1], later[2]);
  same();
  expect([waiting(a), waiting(b)]).toEqual([2, 2]);
});
