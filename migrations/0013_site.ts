import type { Kysely } from 'kysely';
import { execDdl } from './ddl.js';

// The site (docs/site.md, src/site/): several boxes sharing their movements through the hub's JetStream stream.
// - events.site_id, site_box, site_seq, sem_site: a movement applied from another box, written with the event
//   (events stay append-only): its id on the site (unique, so a movement applied twice — a redelivery, a republish
//   after the hub lost its data — is recorded once), the box that made it (NULL: made here; only those are pushed
//   to the cloud by this box), its sequence in the hub's stream, and whether that box decided without the site.
// - site_moves: this box's own movements on the site, next to the append-only log (as sync_push is): the id it
//   claimed or published them under, their sequence once on the hub (NULL: the backlog, still to publish), and
//   whether the box decided without the site (the hub away).
// - site_state: what this box applied of the stream (the sequence and a fingerprint of the message there, to tell
//   a hub that lost its data), and the runs of the box on this database: a claim of one of them with no event here
//   is the orphan of a crash between claim and commit.
// - site_subjects: per person (or additional) subject, the newest sequence applied: the claim's expected sequence.
// - site_moves.nuvem_anunciada: 1 once this box told the site that the cloud settled the movement (its push got
//   an answer); site_settled: the other boxes' movements the cloud settled and its answer, as they told. A box
//   holds a ticket's check-in or reversal for the cloud while an earlier one of that ticket from another box is not
//   settled.
// - site_parked: movements for a code this box does not know yet, retried after each cloud pull.
// - site_rejects: messages from the hub that were skipped, with the reason (never applied).
// - site_conflicts: a second entry of the same ticket found when merging (duplo_no_site), with both events.
export async function up(db: Kysely<unknown>): Promise<void> {
  await execDdl(db, [
    'ALTER TABLE events ADD COLUMN site_id TEXT',
    'ALTER TABLE events ADD COLUMN site_box TEXT',
    'ALTER TABLE events ADD COLUMN site_seq INTEGER',
    'ALTER TABLE events ADD COLUMN sem_site INTEGER NOT NULL DEFAULT 0',
    'CREATE UNIQUE INDEX events_site_id ON events (site_id) WHERE site_id IS NOT NULL',
    'CREATE INDEX events_site_ticket ON events (qr_code, id) WHERE site_box IS NOT NULL',
    `CREATE TABLE site_moves (
       event_id INTEGER PRIMARY KEY,
       tenant_id INTEGER NOT NULL,
       site_id TEXT NOT NULL UNIQUE,
       seq INTEGER,
       sem_site INTEGER NOT NULL,
       occurred_at TEXT NOT NULL,
       nuvem_anunciada INTEGER NOT NULL DEFAULT 0
     )`,
    'CREATE INDEX site_moves_backlog ON site_moves (tenant_id, event_id) WHERE seq IS NULL',
    'CREATE INDEX site_moves_day ON site_moves (tenant_id, occurred_at) WHERE sem_site = 1',
    'CREATE INDEX site_moves_unannounced ON site_moves (tenant_id, event_id) WHERE nuvem_anunciada = 0',
    `CREATE TABLE site_settled (
       site_id TEXT PRIMARY KEY,
       resultado TEXT NOT NULL,
       settled_at TEXT NOT NULL
     ) WITHOUT ROWID`,
    `CREATE TABLE site_state (
       tenant_id INTEGER PRIMARY KEY REFERENCES tenants (id),
       applied_seq INTEGER NOT NULL DEFAULT 0,
       applied_id TEXT,
       runs TEXT NOT NULL DEFAULT '[]'
     )`,
    `CREATE TABLE site_subjects (
       tenant_id INTEGER NOT NULL,
       subject TEXT NOT NULL,
       seq INTEGER NOT NULL,
       PRIMARY KEY (tenant_id, subject)
     ) WITHOUT ROWID`,
    `CREATE TABLE site_parked (
       tenant_id INTEGER NOT NULL,
       seq INTEGER NOT NULL,
       code TEXT NOT NULL,
       body TEXT NOT NULL,
       parked_at TEXT NOT NULL,
       PRIMARY KEY (tenant_id, seq)
     )`,
    `CREATE TABLE site_rejects (
       id INTEGER PRIMARY KEY,
       tenant_id INTEGER NOT NULL,
       seq INTEGER NOT NULL,
       reason TEXT NOT NULL,
       detail TEXT,
       at TEXT NOT NULL
     )`,
    'CREATE INDEX site_rejects_reason ON site_rejects (tenant_id, reason)',
    `CREATE TABLE site_conflicts (
       id INTEGER PRIMARY KEY,
       tenant_id INTEGER NOT NULL,
       kind TEXT NOT NULL,
       event_id INTEGER NOT NULL,
       other_event_id INTEGER NOT NULL,
       found_at TEXT NOT NULL,
       UNIQUE (event_id, other_event_id)
     )`,
  ]);
}
