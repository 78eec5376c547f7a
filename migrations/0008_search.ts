import type { Kysely } from 'kysely';

// Placeholder: the console's search index (filled in by the search work, issue 12).
export async function up(_db: Kysely<unknown>): Promise<void> {}
