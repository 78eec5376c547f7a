import type { Sqlite } from '../db/open.js';

const quote = (name: string) => `"${name.replaceAll('"', '""')}"`;

/**
 * Deletes a tenant and every row that belongs to it, event logs included; the caller holds the
 * transaction (BEGIN IMMEDIATE, so no other writer runs meanwhile). Only `gate demo --remove` calls
 * this: a park's event log is never deleted.
 *
 * The tables are read from the schema rather than listed here, so a table a later migration adds is
 * covered: every table with a `tenant_id`, and every table whose foreign key points into one of
 * those (marks, sessions, alarm acknowledgements). Foreign keys are checked at the end, not row by
 * row, so the order of the deletes does not matter; anything left pointing at a deleted row throws
 * and the caller's transaction rolls back. The append-only triggers of the tenant's tables (events,
 * lane events) are dropped for the deletes and created again from their own stored SQL before the
 * transaction ends, so no other connection ever sees the tables without them.
 */
export function deleteTenantRows(sqlite: Sqlite, tenantId: number): void {
  if (!sqlite.inTransaction) throw new Error('deleteTenantRows: must run inside a transaction');
  const tables = sqlite
    .prepare(
      `SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND sql NOT LIKE 'CREATE VIRTUAL TABLE%' AND name <> 'tenants'`,
    )
    .pluck()
    .all() as string[];
  const columns = (table: string) =>
    sqlite.prepare(`SELECT name FROM pragma_table_info(?)`).pluck().all(table) as string[];
  const owned = new Set(tables.filter((t) => columns(t).includes('tenant_id')));

  const guards = sqlite
    .prepare(`SELECT name, tbl_name AS tableName, sql FROM sqlite_schema WHERE type = 'trigger'`)
    .all()
    .filter((t) => {
      const { tableName, sql } = t as { tableName: string; sql: string };
      return owned.has(tableName) && /\bBEFORE\s+DELETE\b/i.test(sql) && /\bRAISE\s*\(\s*ABORT\b/i.test(sql);
    }) as { name: string; sql: string }[];

  sqlite.pragma('defer_foreign_keys = ON');
  for (const g of guards) sqlite.exec(`DROP TRIGGER ${quote(g.name)}`);

  for (const table of tables) {
    if (owned.has(table)) continue;
    const fks = sqlite
      .prepare(`SELECT "table" AS parent, "from" AS col, "to" AS ref FROM pragma_foreign_key_list(?)`)
      .all(table) as { parent: string; col: string; ref: string | null }[];
    for (const fk of fks) {
      if (!owned.has(fk.parent)) continue;
      sqlite
        .prepare(
          `DELETE FROM ${quote(table)} WHERE ${quote(fk.col)} IN (SELECT ${fk.ref ? quote(fk.ref) : 'rowid'} FROM ${quote(fk.parent)} WHERE tenant_id = ?)`,
        )
        .run(tenantId);
    }
  }
  for (const table of owned) sqlite.prepare(`DELETE FROM ${quote(table)} WHERE tenant_id = ?`).run(tenantId);
  sqlite.prepare('DELETE FROM tenants WHERE id = ?').run(tenantId);

  for (const g of guards) sqlite.exec(g.sql);
  const broken = sqlite.pragma('foreign_key_check') as { table: string; parent: string }[];
  if (broken.length > 0)
    throw new Error(
      `a remoção deixaria referências quebradas (${[...new Set(broken.map((b) => `${b.table} → ${b.parent}`))].join(', ')}); nada foi removido`,
    );
}
