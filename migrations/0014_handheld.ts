import type { Kysely } from 'kysely';
import { execDdl } from './ddl.js';

// Handhelds (docs/handheld.md, src/handheld/): the scan app the box serves at /m/, paired once, deciding offline
// and uploading its movements later.
// - handheld_pairings: one-time pairing tokens a supervisor made in the console (stored hashed, 10 minutes).
// - handheld_devices: each paired device, its key (hashed, like api_keys), revocation, and what it last told
//   (last seen, app version, age of its day data, queued movements, offline decisions today).
// - handheld_moves: every movement id a device sent (online scan or upload), so a repeat answers "já recebido":
//   the result the box gave, and the classifications of an uploaded one.
// - handheld_conflicts: what an upload revealed, in the same conflicts feed as the cloud's and the site's: a double
//   entry (duplo_handheld, with the other event), an order cancelled meanwhile, a code this box does not know, a
//   device clock more than 2 minutes off. No foreign key to events, as site_conflicts: `gate archive` moves old
//   events out and their conflicts leave the feed with them.
export async function up(db: Kysely<unknown>): Promise<void> {
  await execDdl(db, [
    `CREATE TABLE handheld_pairings (
       token_hash BLOB PRIMARY KEY,
       tenant_id INTEGER NOT NULL REFERENCES tenants (id),
       created_by TEXT NOT NULL,
       created_at TEXT NOT NULL,
       expires_at TEXT NOT NULL,
       used_at TEXT
     )`,
    `CREATE TABLE handheld_devices (
       id INTEGER PRIMARY KEY,
       tenant_id INTEGER NOT NULL REFERENCES tenants (id),
       name TEXT NOT NULL,
       key_id TEXT NOT NULL UNIQUE,
       key_hash BLOB NOT NULL,
       paired_at TEXT NOT NULL,
       paired_by TEXT NOT NULL,
       revoked_at TEXT,
       last_seen_at TEXT,
       app_version TEXT,
       data_at TEXT,
       queued INTEGER NOT NULL DEFAULT 0,
       offline_today INTEGER NOT NULL DEFAULT 0
     )`,
    'CREATE UNIQUE INDEX handheld_devices_name ON handheld_devices (tenant_id, name) WHERE revoked_at IS NULL',
    `CREATE TABLE handheld_moves (
       device_id INTEGER NOT NULL REFERENCES handheld_devices (id),
       move_id TEXT NOT NULL,
       received_at TEXT NOT NULL,
       how TEXT NOT NULL,
       result TEXT NOT NULL,
       classes TEXT NOT NULL DEFAULT '[]',
       PRIMARY KEY (device_id, move_id)
     ) WITHOUT ROWID`,
    `CREATE TABLE handheld_conflicts (
       id INTEGER PRIMARY KEY,
       tenant_id INTEGER NOT NULL,
       kind TEXT NOT NULL,
       event_id INTEGER NOT NULL,
       other_event_id INTEGER,
       device_id INTEGER NOT NULL REFERENCES handheld_devices (id),
       found_at TEXT NOT NULL
     )`,
    'CREATE INDEX handheld_conflicts_event ON handheld_conflicts (event_id)',
    // The day data (src/handheld/day-data.ts): open-dated tickets are the day's too, and a delta asks which orders
    // were written since.
    "CREATE INDEX lots_open_dated ON lots (order_id) WHERE tipo_ingresso = 'dayuse_sem_data'",
    'CREATE INDEX orders_tenant_updated ON orders (tenant_id, updated_at)',
  ]);
}
