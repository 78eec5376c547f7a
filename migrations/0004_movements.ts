import { sql, type Kysely } from 'kysely';
import { execDdl } from './ddl.js';

// Movements (docs/lanes.md): besides the check-in (the first entry), the event log records area
// entries, re-entries and exits, so `events.action` takes three more values. SQLite cannot alter a
// CHECK constraint: the table is rebuilt (SQLite's documented procedure, run with foreign keys off by
// migrateToLatest; the keys are checked before this migration commits). Ids, rows and the
// append-only triggers are kept. `presence`: who is inside each area today, written in the same
// transaction as each movement; occupancy is a count over it.
export async function up(db: Kysely<unknown>): Promise<void> {
  await execDdl(db, DDL);
  const broken = await sql.raw('PRAGMA foreign_key_check').execute(db);
  if (broken.rows.length > 0)
    throw new Error(`0004_movements: foreign keys broken by the rebuild: ${JSON.stringify(broken.rows.slice(0, 5))}`);
}

const DDL = `
    DROP TRIGGER events_no_update;
    DROP TRIGGER events_no_delete;
    CREATE TABLE events_new (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      tenant_id INTEGER NOT NULL REFERENCES tenants(id),
      occurred_at TEXT NOT NULL,
      action TEXT NOT NULL CHECK (action IN ('checkin', 'estorno', 'entrada', 'reentrada', 'saida')),
      mode TEXT NOT NULL,
      code TEXT NOT NULL,
      qr_code TEXT,
      numero_pedido TEXT,
      person_id INTEGER,
      additional_id INTEGER,
      result TEXT NOT NULL,
      key_name TEXT,
      terminal TEXT,
      operador TEXT,
      source TEXT NOT NULL,
      details TEXT
    );
    INSERT INTO events_new (id, tenant_id, occurred_at, action, mode, code, qr_code, numero_pedido, person_id, additional_id, result, key_name, terminal, operador, source, details)
      SELECT id, tenant_id, occurred_at, action, mode, code, qr_code, numero_pedido, person_id, additional_id, result, key_name, terminal, operador, source, details FROM events;
    DROP TABLE events;
    ALTER TABLE events_new RENAME TO events;
    CREATE INDEX events_tenant ON events (tenant_id, id);
    CREATE TRIGGER events_no_update BEFORE UPDATE ON events BEGIN SELECT RAISE(ABORT, 'events are append-only'); END;
    CREATE TRIGGER events_no_delete BEFORE DELETE ON events BEGIN SELECT RAISE(ABORT, 'events are append-only'); END;
    CREATE TABLE presence (
      tenant_id INTEGER NOT NULL REFERENCES tenants(id),
      area TEXT NOT NULL,
      person_id INTEGER NOT NULL REFERENCES people(id) ON DELETE CASCADE,
      local_date TEXT NOT NULL,
      inside INTEGER NOT NULL CHECK (inside IN (0, 1)),
      since TEXT NOT NULL,
      PRIMARY KEY (tenant_id, area, person_id)
    ) WITHOUT ROWID;
    CREATE INDEX presence_today ON presence (tenant_id, local_date, area, inside);
`;
