import type { Kysely } from 'kysely';
import { execDdl } from './ddl.js';

// Retention (docs/operations.md, "Retention"; src/retention/). `gate archive` moves old events and
// lane events into a dated archive file, then deletes them from the live tables. The append-only
// triggers stay, guarded: a row may be deleted only while its own id is listed in
// `retention_moving`, which the archive command fills and empties inside the one transaction that
// deletes exactly those rows (already written, fsynced and checked in the archive file). Outside that
// transaction the table is empty, so a stray `DELETE FROM events` still fails as before; UPDATE is
// never allowed. The trigger names and messages are the old ones (tests and
// src/tenants/tenants.delete.ts, which lifts the guards for `gate demo --remove`, know them).
//
// `retention_runs`: one row per archiving run, written (durably) before the first row is copied into
// its file; a run without `finished_at` is resumed with the same file and cut-off, so a crash between
// the copy and the delete never puts an event in two archive files.
export async function up(db: Kysely<unknown>): Promise<void> {
  await execDdl(db, [
    `CREATE TABLE retention_moving (
      tbl TEXT NOT NULL CHECK (tbl IN ('events', 'lane_events')),
      id INTEGER NOT NULL,
      PRIMARY KEY (tbl, id)
    ) WITHOUT ROWID`,
    `CREATE TABLE retention_runs (
      id INTEGER PRIMARY KEY,
      file TEXT NOT NULL,
      cutoff TEXT NOT NULL,
      started_at TEXT NOT NULL,
      finished_at TEXT,
      events INTEGER NOT NULL DEFAULT 0,
      lane_events INTEGER NOT NULL DEFAULT 0
    )`,
    'DROP TRIGGER events_no_delete',
    `CREATE TRIGGER events_no_delete BEFORE DELETE ON events
      WHEN NOT EXISTS (SELECT 1 FROM retention_moving WHERE tbl = 'events' AND id = old.id)
      BEGIN SELECT RAISE(ABORT, 'events are append-only'); END`,
    'DROP TRIGGER lane_events_no_delete',
    `CREATE TRIGGER lane_events_no_delete BEFORE DELETE ON lane_events
      WHEN NOT EXISTS (SELECT 1 FROM retention_moving WHERE tbl = 'lane_events' AND id = old.id)
      BEGIN SELECT RAISE(ABORT, 'lane events are append-only'); END`,
  ]);
}
