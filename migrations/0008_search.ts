import type { Kysely } from 'kysely';
import { execDdl } from './ddl.js';

// The console's search index (docs/console.md, "Search"), kept right by triggers on orders and
// people so that every writer (import, sync, a future one) keeps it in step without knowing of it.
//
// A document is an order (its buyer) or a person; its id packs the tenant so that a range of ids is
// one tenant: (tenant_id << 40) | (id << 1) | (1 for a person, 0 for an order). Ids stay below 2^39
// and tenant ids below 2^13, so a document id is also a safe JavaScript integer.
//
// - search_names: FTS5 over names (the buyer's nome + sobrenome; a person's form values whose label
//   contains "nome"). unicode61 with remove_diacritics folds case and accents. Prefix indexes of 2
//   to 8 characters (most names are no longer) make "silv"* or "maria"* one doclist read as far as
//   needed; without them FTS5 merges the doclists of every term with that prefix before the first
//   row: a full name of three common words took 12–20 ms instead of 1–2 over 1,000,000 people, for
//   46 MB more (bench/search.bench.ts). Contentless (the names stay in orders and people) with
//   contentless_delete: deleted by rowid.
// - search_keys: FTS5 over the CPF (punctuation removed) and e-mail (lowercased) of the buyer and of
//   each person's form values whose label contains "cpf" or "mail"; '@', '.', '-', '_' and '+' are
//   part of a token, so an address is one term: exact and prefix lookups. FTS5 rather than a B-tree
//   on (tenant, key): its writes are appended segments, not random pages; over 1,000,000 people
//   the index cost the import 49–57 µs per order of 2 people instead of 83–85 (bench/search.bench.ts).
// - search_pending: documents stored or changed since the last move, fewer than PENDING_BATCH. The
//   triggers only add a document's id here; the PENDING_BATCH-th one moves them all into
//   search_names and search_keys, one statement each (about 1 ms inside that write: the sync stores
//   orders in 1.5 ms pieces between scans, and 512 documents, 4–5 ms, showed in a turnstile's p99).
//   Indexing each row from its own trigger cost the import 16–25 µs per name: FTS5 writes a segment
//   at every statement savepoint (each INSERT into people is one), and each statement of a trigger
//   has a fixed cost. The move costs 7–10 µs per document, less for larger batches; the search
//   reads the pending documents through the views below, so a larger batch makes every search
//   slower (bench/search.bench.ts measures both).
//
// A later migration that rebuilds `orders` or `people` (DROP + RENAME) drops these triggers with
// the table: it must create them again (`SEARCH_TRIGGERS`).

export const PENDING_BATCH = 128;

const ID = `& ${2 ** 39 - 1}`;
const orderDoc = (r: string) => `((${r}.tenant_id << 40) | (${r}.id << 1))`;
const personDoc = (r: string) => `((${r}.tenant_id << 40) | (${r}.id << 1) | 1)`;
// A value that is not JSON is indexed as empty rather than failing the write that stores it.
const json = (col: string) => `(CASE WHEN json_valid(${col}) THEN ${col} ELSE '{}' END)`;

const buyerName = (r: string) =>
  `trim(coalesce(json_extract(${json(`${r}.cliente`)}, '$.nome'), '') || ' ' || coalesce(json_extract(${json(`${r}.cliente`)}, '$.sobrenome'), ''))`;
const personName = (r: string) =>
  `(SELECT group_concat(j.value, ' ') FROM json_each(${json(`${r}.dados`)}) j WHERE j.key LIKE '%nome%' AND j.type = 'text')`;

const digitsOnly = (v: string) => `replace(replace(replace(replace(trim(${v}), '.', ''), '-', ''), ' ', ''), '/', '')`;
// Each key of a document as an expression and the condition for having it; a person's are read
// from `j`, the json_each of its form values. Cheap on purpose: the move evaluates them for every
// pending document, and the search for every pending document of the tenant.
interface Key {
  key: string;
  when: string;
}
const buyerKeys = (r: string): Key[] => {
  const field = (name: string) => `json_extract(${json(`${r}.cliente`)}, '$.${name}')`;
  return [
    { key: digitsOnly(field('cpf')), when: `${field('cpf')} GLOB '*[0-9]*'` },
    { key: `lower(trim(${field('email')}))`, when: `${field('email')} LIKE '%@%'` },
  ];
};
const personKeys: Key[] = [
  { key: digitsOnly('j.value'), when: `j.key LIKE '%cpf%' AND j.value GLOB '*[0-9]*'` },
  { key: 'lower(trim(j.value))', when: `j.key LIKE '%mail%' AND j.value LIKE '%@%'` },
];
// CROSS JOIN keeps search_pending the outer loop: with a tenant filter pushed into the view the
// planner would otherwise scan the tenant's orders and look for each in search_pending.
const pendingOrders = `search_pending p CROSS JOIN orders o ON o.id = (p.doc >> 1) ${ID}`;
const pendingPeople = `search_pending p CROSS JOIN people x ON x.id = (p.doc >> 1) ${ID}, json_each(${json('x.dados')}) j`;

// What the pending documents hold now, read by the move and by the search.
const VIEWS = [
  `CREATE VIEW search_pending_names (doc, nome) AS
     SELECT doc, nome FROM (
       SELECT p.doc, ${buyerName('o')} AS nome FROM ${pendingOrders} WHERE p.doc & 1 = 0
       UNION ALL
       SELECT p.doc, ${personName('x')} FROM search_pending p CROSS JOIN people x ON x.id = (p.doc >> 1) ${ID} WHERE p.doc & 1 = 1)
     WHERE nome <> ''`,
  `CREATE VIEW search_pending_keys (tenant_id, key, doc) AS
     ${[
       ...buyerKeys('o').map(
         (k) => `SELECT o.tenant_id, ${k.key}, p.doc FROM ${pendingOrders} WHERE p.doc & 1 = 0 AND ${k.when}`,
       ),
       ...personKeys.map(
         (k) =>
           `SELECT x.tenant_id, ${k.key}, p.doc FROM ${pendingPeople} WHERE p.doc & 1 = 1 AND j.type = 'text' AND ${k.when}`,
       ),
     ].join(' UNION ALL ')}`,
];

const move = `
  INSERT OR REPLACE INTO search_names (rowid, nome) SELECT doc, nome FROM search_pending_names;
  INSERT OR REPLACE INTO search_keys (rowid, chave) SELECT doc, group_concat(key, ' ') FROM search_pending_keys GROUP BY doc;
  DELETE FROM search_pending;`;

// A document is pending or moved, never both.
const unindex = (doc: string) => `
  DELETE FROM search_pending WHERE doc = ${doc};
  DELETE FROM search_names WHERE rowid = ${doc};
  DELETE FROM search_keys WHERE rowid = ${doc};`;
const pend = (doc: string) => `INSERT OR IGNORE INTO search_pending (doc) VALUES (${doc});`;

// Updates fire only when an indexed column changes: a check-in (people.checkin_em) or a status
// change never touches the index, and upsertOrder rewriting the same cliente/dados costs a compare.
export const SEARCH_TRIGGERS = [
  `CREATE TRIGGER search_pending_move AFTER INSERT ON search_pending WHEN (SELECT count(*) FROM search_pending) >= ${PENDING_BATCH} BEGIN ${move} END`,
  `CREATE TRIGGER orders_search_insert AFTER INSERT ON orders BEGIN ${pend(orderDoc('new'))} END`,
  `CREATE TRIGGER orders_search_update AFTER UPDATE OF tenant_id, cliente ON orders
     WHEN old.cliente IS NOT new.cliente OR old.tenant_id IS NOT new.tenant_id BEGIN ${unindex(orderDoc('old'))} ${pend(orderDoc('new'))} END`,
  `CREATE TRIGGER orders_search_delete AFTER DELETE ON orders BEGIN ${unindex(orderDoc('old'))} END`,
  `CREATE TRIGGER people_search_insert AFTER INSERT ON people BEGIN ${pend(personDoc('new'))} END`,
  `CREATE TRIGGER people_search_update AFTER UPDATE OF tenant_id, dados ON people
     WHEN old.dados IS NOT new.dados OR old.tenant_id IS NOT new.tenant_id BEGIN ${unindex(personDoc('old'))} ${pend(personDoc('new'))} END`,
  `CREATE TRIGGER people_search_delete AFTER DELETE ON people BEGIN ${unindex(personDoc('old'))} END`,
];

export async function up(db: Kysely<unknown>): Promise<void> {
  const statements = [
    `CREATE VIRTUAL TABLE search_names USING fts5(nome, content='', contentless_delete=1, tokenize='unicode61 remove_diacritics 2', prefix='2 3 4 5 6 7 8')`,
    `CREATE VIRTUAL TABLE search_keys USING fts5(chave, content='', contentless_delete=1, tokenize="unicode61 remove_diacritics 0 tokenchars '@.-_+'")`,
    `CREATE TABLE search_pending (doc INTEGER PRIMARY KEY)`,
    ...VIEWS,
    // The rows already stored: every one pending, then one move (before the triggers exist).
    `INSERT INTO search_pending (doc) SELECT ${orderDoc('o')} FROM orders o UNION ALL SELECT ${personDoc('p')} FROM people p`,
    ...move.split(';').filter((s) => s.trim() !== ''),
    ...SEARCH_TRIGGERS,
  ];
  await execDdl(db, statements);
}
