import type { Kysely } from 'kysely';
import { execDdl } from './ddl.js';

// What the gate lanes saw beyond the check-ins themselves (those are in `events`, source 'lane'):
// grants and denials as shown at the turnstile, passages, people who did not pass, tailgating,
// the fire alarm and devices going offline. Append-only like `events`.
export async function up(db: Kysely<unknown>): Promise<void> {
  await execDdl(db, DDL);
}

const DDL = `
    CREATE TABLE lane_events (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      tenant_id INTEGER NOT NULL REFERENCES tenants(id),
      occurred_at TEXT NOT NULL,
      lane TEXT NOT NULL,
      kind TEXT NOT NULL CHECK (kind IN ('liberada', 'negada', 'passagem', 'nao_passou', 'carona', 'incendio_inicio', 'incendio_fim', 'dispositivo_offline', 'dispositivo_online')),
      code TEXT,
      details TEXT
    );
    CREATE INDEX lane_events_tenant ON lane_events (tenant_id, id);
    CREATE TRIGGER lane_events_no_update BEFORE UPDATE ON lane_events BEGIN SELECT RAISE(ABORT, 'lane events are append-only'); END;
    CREATE TRIGGER lane_events_no_delete BEFORE DELETE ON lane_events BEGIN SELECT RAISE(ABORT, 'lane events are append-only'); END;
`;
