import fs from 'node:fs';
import path from 'node:path';
import { fsyncPath } from '../db/durable-copy.js';
import type { Sqlite } from '../db/open.js';

// The archive file of `gate archive` (docs/operations.md, "Retention"): a plain SQLite file, attached
// to the live connection as `arc` while a run copies into it. Its tables have the live tables'
// columns (read from the live schema, so a column a later migration adds is archived too) without
// their foreign keys: the archive is a record, read with any sqlite3. Rollback journal and
// synchronous=FULL: every commit is on disk when it returns, and the file stands alone (no -wal).

/** A moved row's family: the event log row and the rows that point at it, which move with it. */
export interface Family {
  root: 'events' | 'lane_events';
  dependents: { table: string; fk: string }[];
}

export const FAMILIES: readonly Family[] = [
  {
    root: 'events',
    dependents: [
      { table: 'sync_push', fk: 'event_id' },
      { table: 'event_marks', fk: 'event_id' },
    ],
  },
  { root: 'lane_events', dependents: [{ table: 'alarm_acks', fk: 'lane_event_id' }] },
];

export const ARCHIVED_TABLES = FAMILIES.flatMap((f) => [f.root, ...f.dependents.map((d) => d.table)]);

export const quote = (name: string) => `"${name.replaceAll('"', '""')}"`;

interface ColumnInfo {
  name: string;
  type: string;
  pk: number;
}

const columnsOf = (sqlite: Sqlite, schema: 'main' | 'arc', table: string) =>
  sqlite.prepare(`SELECT name, type, pk FROM pragma_table_info(?, ?) ORDER BY cid`).all(table, schema) as ColumnInfo[];

/** The live table's column names, quoted and joined, for INSERT ... SELECT between the two files. */
export const columnList = (sqlite: Sqlite, table: string) =>
  columnsOf(sqlite, 'main', table)
    .map((c) => quote(c.name))
    .join(', ');

// Names for reading an archive on its own: which tenant an event is of, who acknowledged an alarm.
const LOOKUPS = [
  'CREATE TABLE IF NOT EXISTS tenants (id INTEGER PRIMARY KEY, slug TEXT, nome TEXT)',
  'CREATE TABLE IF NOT EXISTS operators (id INTEGER PRIMARY KEY, tenant_id INTEGER, nome TEXT)',
  // One row per run that wrote into this file.
  'CREATE TABLE IF NOT EXISTS runs (id INTEGER PRIMARY KEY, cutoff TEXT, started_at TEXT, finished_at TEXT, events INTEGER, lane_events INTEGER)',
  'CREATE INDEX IF NOT EXISTS events_tenant_time ON events (tenant_id, occurred_at)',
  'CREATE INDEX IF NOT EXISTS lane_events_tenant_time ON lane_events (tenant_id, occurred_at)',
];

function mirrorTable(sqlite: Sqlite, table: string): void {
  const live = columnsOf(sqlite, 'main', table);
  if (live.length === 0) throw new Error(`tabela ${table} não existe no banco`);
  const archived = columnsOf(sqlite, 'arc', table);
  if (archived.length === 0) {
    const keys = live
      .filter((c) => c.pk > 0)
      .sort((a, b) => a.pk - b.pk)
      .map((c) => quote(c.name));
    const cols = live.map((c) => `${quote(c.name)} ${c.type}`);
    sqlite.exec(`CREATE TABLE arc.${quote(table)} (${cols.join(', ')}, PRIMARY KEY (${keys.join(', ')}))`);
    return;
  }
  // A file from an earlier release: the columns added since then, empty for its older rows.
  const have = new Set(archived.map((c) => c.name));
  for (const c of live)
    if (!have.has(c.name)) sqlite.exec(`ALTER TABLE arc.${quote(table)} ADD COLUMN ${quote(c.name)} ${c.type}`);
}

export interface AttachedArchive {
  readonly file: string;
  /** integrity_check of the archive file: 'ok' or its first problems. */
  integrity(): string;
  /** fsync of the file and of its directory (a new file's name is in the directory). */
  flush(): void;
  detach(): void;
}

/** Creates (or opens) the archive file and attaches it as `arc`, with the live tables' shapes. */
export function attachArchive(sqlite: Sqlite, file: string): AttachedArchive {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  sqlite.prepare(`ATTACH DATABASE ? AS arc`).run(file);
  try {
    sqlite.pragma('arc.journal_mode = DELETE');
    sqlite.pragma('arc.synchronous = FULL');
    sqlite.transaction(() => {
      for (const table of ARCHIVED_TABLES) mirrorTable(sqlite, table);
      for (const statement of LOOKUPS)
        sqlite.exec(statement.replace(/(TABLE|INDEX) IF NOT EXISTS /, '$1 IF NOT EXISTS arc.'));
    })();
  } catch (error) {
    sqlite.exec('DETACH DATABASE arc');
    throw error;
  }
  return {
    file,
    integrity: () =>
      (sqlite.pragma('arc.integrity_check') as { integrity_check: string }[])
        .map((r) => r.integrity_check)
        .slice(0, 5)
        .join('; '),
    flush() {
      fsyncPath(file);
      fsyncPath(path.dirname(file));
    },
    detach: () => sqlite.exec('DETACH DATABASE arc'),
  };
}

/** Refreshes the archive's names of tenants and operators; call inside a transaction writing to `arc`. */
export function copyLookups(sqlite: Sqlite): void {
  sqlite.exec('INSERT OR REPLACE INTO arc.tenants (id, slug, nome) SELECT id, slug, nome FROM main.tenants');
  sqlite.exec(
    'INSERT OR REPLACE INTO arc.operators (id, tenant_id, nome) SELECT id, tenant_id, nome FROM main.operators',
  );
}
