import { sql, type Kysely } from 'kysely';

/**
 * Runs a migration's SQL, one statement at a time: a list as given, or a text split where a line
 * ends with `;` (so a trigger's body stays on one line), chunks of nothing but `--` comments skipped.
 * Migrations already applied on boxes in the field were written against this split: a change here
 * must not change which statements, byte for byte, an old migration runs (CREATE texts are kept in
 * sqlite_master as written).
 */
export async function execDdl(db: Kysely<unknown>, ddl: string | readonly string[]): Promise<void> {
  const statements = typeof ddl === 'string' ? splitStatements(ddl) : ddl;
  for (const statement of statements) await sql.raw(statement).execute(db);
}

export function splitStatements(ddl: string): string[] {
  return ddl
    .split(/;[ \t]*\n/)
    .map((s) => s.trim())
    .filter((s) => s.replace(/--.*$/gm, '').trim() !== '');
}
