import type { Kysely } from 'kysely';
import { execDdl } from './ddl.js';

// The staff console (docs/console.md): local operator accounts, their server-side sessions, and who
// acknowledged which lane alarm, and the indexes its panels read by: the events of a day (the report,
// entries today) and a tenant's alarms among the lanes' events (one per scan otherwise). Secrets are scrypt hashes; a
// session row holds only a hash of the
// cookie's value, so a copy of the database does not sign anyone in.
export async function up(db: Kysely<unknown>): Promise<void> {
  await execDdl(db, [
    `CREATE TABLE operators (
        id INTEGER PRIMARY KEY,
        tenant_id INTEGER NOT NULL REFERENCES tenants(id),
        nome TEXT NOT NULL,
        papel TEXT NOT NULL CHECK (papel IN ('atendente', 'supervisor')),
        secret_hash TEXT NOT NULL,
        failed_attempts INTEGER NOT NULL DEFAULT 0,
        locked_until TEXT,
        disabled_at TEXT,
        created_at TEXT NOT NULL
      )`,
    `CREATE UNIQUE INDEX operators_name ON operators (tenant_id, nome COLLATE NOCASE)`,
    `CREATE TABLE console_sessions (
        id INTEGER PRIMARY KEY,
        token_hash TEXT NOT NULL UNIQUE,
        operator_id INTEGER NOT NULL REFERENCES operators(id),
        csrf TEXT NOT NULL,
        estacao TEXT,
        created_at TEXT NOT NULL,
        last_seen_at TEXT NOT NULL
      )`,
    `CREATE TABLE alarm_acks (
        lane_event_id INTEGER PRIMARY KEY REFERENCES lane_events(id),
        operator_id INTEGER NOT NULL REFERENCES operators(id),
        acked_at TEXT NOT NULL
      )`,
    `CREATE INDEX events_tenant_time ON events (tenant_id, occurred_at)`,
    `CREATE INDEX lane_events_alarms ON lane_events (tenant_id, id) WHERE kind IN ('carona', 'incendio_inicio', 'dispositivo_offline')`,
  ]);
}
