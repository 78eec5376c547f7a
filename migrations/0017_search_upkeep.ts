import type { Kysely } from 'kysely';
import { SEARCH_TRIGGERS } from './0008_search.js';
import { execDdl } from './ddl.js';

// The search index's documents are moved and its FTS5 segments merged by pieces of their own (src/db/search-index.ts),
// no longer inside the writes that store them. Until now the 128th pending document's trigger moved every pending
// one into search_names and search_keys, and FTS5 then merged segments inside that same statement: search_keys, one
// leaf page per move, reached its 16 segments a level (crisismerge) long before automerge's budget came round, and
// merged whole levels at once, 10–27 ms on a quiet core with 400,000 people, 65–69 ms held the event loop in
// bench:heavy's ingest (docs/performance.md, issue 25 (2b)).
//
// - The move trigger goes; the document triggers stay (a document is still pending from its commit on and found by
//   the search through the views of 0008).
// - automerge 0: FTS5 merges nothing by itself; the upkeep runs 'merge' with a small page budget after each move.
// - crisismerge 64 (default 16): the merge FTS5 still does by itself, inside a write, when a level holds that many
//   segments. Only a writer moving documents without merging them would reach it; it stays as a bound on how many
//   segments a search may have to read.
//
// A later migration that rebuilds `orders` or `people` must create the document triggers again: SEARCH_TRIGGERS of
// 0008 without `search_pending_move` (DOCUMENT_TRIGGERS here).

export const DOCUMENT_TRIGGERS = SEARCH_TRIGGERS.filter((t) => !t.includes('TRIGGER search_pending_move '));

const config = (table: string, key: string, value: number) =>
  `INSERT INTO ${table} (${table}, rank) VALUES ('${key}', ${value})`;

export async function up(db: Kysely<unknown>): Promise<void> {
  await execDdl(db, [
    'DROP TRIGGER search_pending_move',
    ...['search_names', 'search_keys'].flatMap((t) => [config(t, 'automerge', 0), config(t, 'crisismerge', 64)]),
  ]);
}
