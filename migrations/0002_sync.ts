import type { Kysely } from 'kysely';
import { execDdl } from './ddl.js';

// Sync worker state (docs/sync.md). The event log stays append-only: what the cloud said about an
// event lives next to it, in sync_push.
export async function up(db: Kysely<unknown>): Promise<void> {
  await execDdl(db, DDL);
}

const DDL = `
    -- The outbox: one row per check-in or reversal with result 'ok' to send to the cloud.
    -- chave is the QR the cloud knows the person (or additional) by: events of one chave go in order.
    CREATE TABLE sync_push (
      event_id INTEGER PRIMARY KEY REFERENCES events(id),
      tenant_id INTEGER NOT NULL REFERENCES tenants(id),
      chave TEXT NOT NULL,
      action TEXT NOT NULL CHECK (action IN ('checkin', 'estorno')),
      status TEXT NOT NULL DEFAULT 'pendente' CHECK (status IN ('pendente', 'concluido')),
      attempts INTEGER NOT NULL DEFAULT 0,
      next_attempt_at TEXT,
      first_sent_at TEXT,
      last_sent_at TEXT,
      last_error TEXT,
      resultado TEXT CHECK (resultado IN ('aceito', 'ja_utilizado_na_nuvem', 'fora_do_prazo', 'cancelado_na_nuvem', 'outro')),
      cloud_code TEXT,
      cloud_message TEXT,
      cloud_em TEXT,
      settled_at TEXT
    );
    CREATE INDEX sync_push_pending ON sync_push (tenant_id, event_id) WHERE status = 'pendente';
    CREATE INDEX sync_push_chave ON sync_push (tenant_id, chave, event_id);
    CREATE INDEX sync_push_settled ON sync_push (tenant_id, resultado, event_id) WHERE status = 'concluido';

    -- What the worker knows about the link to the cloud, one row per tenant it syncs.
    CREATE TABLE sync_state (
      tenant_id INTEGER PRIMARY KEY REFERENCES tenants(id),
      online INTEGER,
      last_contact_at TEXT,
      last_pull_ok_at TEXT,
      last_push_ok_at TEXT,
      last_refresh_ok_at TEXT,
      last_full_refresh_ok_at TEXT,
      last_error TEXT,
      last_error_at TEXT
    );

    -- Cloud records the box could not store (schema or conflict), for the operator.
    CREATE TABLE sync_rejects (
      tenant_id INTEGER NOT NULL REFERENCES tenants(id),
      kind TEXT NOT NULL,
      ref TEXT NOT NULL,
      reason TEXT NOT NULL,
      at TEXT NOT NULL,
      PRIMARY KEY (tenant_id, kind, ref)
    ) WITHOUT ROWID;

    -- Per API key marks of /api/local/eventos, as voucher_marks are for vouchers.
    CREATE TABLE event_marks (
      api_key_id INTEGER NOT NULL REFERENCES api_keys(id),
      event_id INTEGER NOT NULL REFERENCES events(id),
      sincronizado_em TEXT NOT NULL,
      PRIMARY KEY (api_key_id, event_id)
    ) WITHOUT ROWID;
    CREATE INDEX event_marks_event ON event_marks (event_id);
`;
