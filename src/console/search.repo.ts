import type { Statement } from 'better-sqlite3';
import type { Db } from '../db/open.js';
import { classifyQuery, ftsQuery, nameMatches } from './search.query.js';

export { classifyQuery, type SearchQuery } from './search.query.js';

// The help desk's search (docs/console.md, "Search") over the index of migrations/0008_search.ts.
// Raw SQL rather than kysely: FTS5 MATCH and the packed document ids have no typed form there.

export interface SearchHit {
  numero_pedido: string;
  status: string;
  cliente_nome: string;
  cliente_email: string;
  total_pessoas: number;
  checkins: number;
  data_uso: string | null;
  /** What matched: a person's or the buyer's name, 'CPF', the e-mail, 'número do pedido', 'QR'. */
  encontrado: string;
}

/** A code at least this long is also looked up as the beginning of a QR (a UUID's first block). */
const QR_PREFIX_MIN = 8;
/**
 * Index rows read per search at most: the first 20 orders come from the first rows unless one order
 * holds hundreds of matching people; the cap bounds the time on the event loop whatever the data.
 */
const MAX_ROWS = 5000;
/** Sorts after every character: `x <= s < x + TOP` means s starts with x. */
const TOP = '\u{10FFFF}';

interface Statements {
  names: Statement<[string, bigint, bigint]>;
  pending: Statement<[bigint, bigint]>;
  keys: Statement<[string, bigint, bigint]>;
  pendingKeys: Statement<[{ first: bigint; last: bigint; from: string; to: string }]>;
  email: Statement<[{ person: number; id: number; from: string; to: string }]>;
  person: Statement<[number]>;
  qrPeople: Statement<[number, string, string, number]>;
  qrAdditional: Statement<[number, string]>;
  orderNumbers: Statement<[number, string, string, number]>;
  summaries: Statement<[string, number]>;
}

// A document id packs (tenant_id << 40) | (id << 1) | (1 for a person): migrations/0008_search.ts.
const unpack = (doc: string) => `${doc} AS doc, ${doc} & 1 AS person, (${doc} >> 1) & ${2 ** 39 - 1} AS id`;
/** The tenant's range of document ids. */
const docs = (tenantId: number) => ({ first: BigInt(tenantId) << 40n, last: ((BigInt(tenantId) + 1n) << 40n) - 1n });
const CLIENTE = `(CASE WHEN json_valid(o.cliente) THEN o.cliente ELSE '{}' END)`;

/** The search's SQL, one statement each, prepared once per connection (Db.statement). */
const SQL: Record<keyof Statements, string> = {
  names: `SELECT ${unpack('rowid')} FROM search_names WHERE search_names MATCH ? AND rowid BETWEEN ? AND ? ORDER BY rowid DESC`,
  pending: `SELECT ${unpack('doc')}, nome FROM search_pending_names WHERE doc BETWEEN ? AND ? ORDER BY doc DESC`,
  keys: `SELECT ${unpack('rowid')} FROM search_keys WHERE search_keys MATCH ? AND rowid BETWEEN ? AND ? ORDER BY rowid DESC`,
  // Keys from `from` (included) to `to` (excluded): one key, or those that begin with `from`.
  pendingKeys: `SELECT ${unpack('doc')}, key FROM search_pending_keys WHERE doc BETWEEN @first AND @last AND key >= @from AND key < @to ORDER BY doc DESC`,
  // The e-mail of a document found by its beginning, to show which one matched.
  email: `SELECT e FROM (
      SELECT lower(trim(json_extract(${CLIENTE}, '$.email'))) AS e FROM orders o WHERE @person = 0 AND o.id = @id
      UNION ALL SELECT lower(trim(j.value)) FROM people x, json_each(CASE WHEN json_valid(x.dados) THEN x.dados ELSE '{}' END) j
        WHERE @person = 1 AND x.id = @id AND j.key LIKE '%mail%' AND j.type = 'text')
    WHERE e >= @from AND e < @to LIMIT 1`,
  person: `SELECT order_id, nome FROM people WHERE id = ?`,
  qrPeople: `SELECT order_id FROM people WHERE tenant_id = ? AND qr_code >= ? AND qr_code < ? ORDER BY qr_code LIMIT ?`,
  qrAdditional: `SELECT order_id FROM additionals WHERE tenant_id = ? AND adicional_qr_code = ?`,
  orderNumbers: `SELECT id FROM orders WHERE tenant_id = ? AND numero_pedido >= ? AND numero_pedido < ? ORDER BY numero_pedido DESC LIMIT ?`,
  summaries: `
    SELECT o.id, o.numero_pedido, o.status,
      trim(coalesce(json_extract(${CLIENTE}, '$.nome'), '') || ' ' || coalesce(json_extract(${CLIENTE}, '$.sobrenome'), '')) AS cliente_nome,
      coalesce(json_extract(${CLIENTE}, '$.email'), '') AS cliente_email,
      (SELECT count(*) FROM people p WHERE p.order_id = o.id) AS total_pessoas,
      (SELECT count(*) FROM people p WHERE p.order_id = o.id AND p.checkin_em IS NOT NULL) AS checkins,
      (SELECT min(l.data_uso) FROM lots l WHERE l.order_id = o.id) AS data_uso
    FROM json_each(?) ids CROSS JOIN orders o ON o.id = ids.value WHERE o.tenant_id = ?`,
};

const statements = (db: Db) =>
  Object.fromEntries(Object.entries(SQL).map(([name, sql]) => [name, db.statement(sql)])) as unknown as Statements;

interface DocRow {
  person: number;
  id: number;
}
/** What matched, per order, in the order found; null stands for the buyer's name. */
type Found = Map<number, string | null>;

/**
 * Orders of `tenantId` found by `query` (docs/console.md, "Search"), at most `limit`, newest first
 * (order numbers: highest first). Blank input finds nothing; no input makes it throw.
 */
export function searchOrders(db: Db, tenantId: number, query: string, limit = 20): SearchHit[] {
  const q = classifyQuery(query);
  if (q.kind === 'vazia' || limit <= 0) return [];
  const s = statements(db);
  const found: Found = new Map();
  const add = (orderId: number, encontrado: string | null) => {
    if (!found.has(orderId)) found.set(orderId, encontrado);
    return found.size >= limit;
  };
  switch (q.kind) {
    case 'pedido':
      for (const r of s.orderNumbers.all(tenantId, q.numero, q.exact ? `${q.numero}\0` : q.numero + TOP, limit) as {
        id: number;
      }[])
        add(r.id, 'número do pedido');
      break;
    case 'cpf':
      byKey(s, tenantId, `"${q.cpf}"`, q.cpf, `${q.cpf}\0`, found, limit, () => 'CPF');
      break;
    case 'email': {
      const [from, to] = [q.email, q.email + TOP];
      byKey(
        s,
        tenantId,
        `"${q.email.replaceAll('"', '""')}"*`,
        from,
        to,
        found,
        limit,
        (r) =>
          r.key ?? (s.email.get({ person: r.person, id: r.id, from, to }) as { e: string } | undefined)?.e ?? 'e-mail',
      );
      break;
    }
    case 'texto':
      if (q.code !== null) byQr(s, tenantId, q.code, limit, add);
      // A QR names its order; its letters and digits as words would only find noise.
      if (found.size === 0 && q.words.length > 0) byName(s, tenantId, q.words, found, limit);
      break;
  }
  // People and buyers are documents with ids of their own: shown newest order first.
  return summarise(s, tenantId, q.kind === 'pedido' ? [...found] : [...found].sort((a, b) => b[0] - a[0]));
}

/**
 * Names in search_names (FTS5) and of the documents still pending (fewer than PENDING_BATCH of
 * migration 0008, matched here), merged newest document first.
 */
function byName(s: Statements, tenantId: number, words: string[], found: Found, limit: number) {
  const { first, last } = docs(tenantId);
  const waiting = (s.pending.all(first, last) as (NameRow & { nome: string })[]).filter((r) =>
    nameMatches(r.nome, words),
  );
  const indexed = s.names.iterate(ftsQuery(words), first, last) as IterableIterator<NameRow>;
  fromDocs(s, found, merged(waiting, indexed), limit, (r, personName) => (r.person ? personName || 'nome' : null));
}

interface NameRow extends DocRow {
  doc: number;
}

/** A CPF or e-mail (`match`, an FTS5 query) in search_keys and among the pending documents' keys. */
function byKey(
  s: Statements,
  tenantId: number,
  match: string,
  from: string,
  to: string,
  found: Found,
  limit: number,
  what: (r: KeyRow) => string,
) {
  const { first, last } = docs(tenantId);
  const waiting = s.pendingKeys.all({ first, last, from, to }) as KeyRow[];
  fromDocs(s, found, merged(waiting, s.keys.iterate(match, first, last) as IterableIterator<KeyRow>), limit, what);
}

interface KeyRow extends NameRow {
  /** Known for a pending document only. */
  key?: string;
}

function* merged<R extends NameRow>(waiting: R[], indexed: IterableIterator<R>): Generator<R> {
  let i = 0;
  for (const r of indexed) {
    while (i < waiting.length && waiting[i]!.doc > r.doc) yield waiting[i++]!;
    yield r;
  }
  while (i < waiting.length) yield waiting[i++]!;
}

/** Orders of the index rows `rows` (people resolved to their order) until `limit` orders. */
function fromDocs<R extends DocRow>(
  s: Statements,
  found: Found,
  rows: Iterator<R> & Iterable<R>,
  limit: number,
  what: (r: R, personName: string) => string | null,
) {
  let read = 0;
  try {
    for (const r of rows) {
      let orderId = r.id;
      let personName = '';
      if (r.person) {
        const p = s.person.get(r.id) as { order_id: number; nome: string } | undefined;
        if (!p) continue;
        orderId = p.order_id;
        personName = p.nome;
      }
      if (!found.has(orderId)) found.set(orderId, what(r, personName));
      if (found.size >= limit || ++read >= MAX_ROWS) break;
    }
  } catch (err) {
    // A query FTS5 cannot parse finds nothing more (queries are built quoted; this is a safety net).
    if (!(err instanceof Error && err.message.startsWith('fts5:'))) throw err;
  } finally {
    rows.return?.();
  }
}

/** A person's QR (as typed, lower or upper case; its beginning from 8 characters) or an additional's. */
function byQr(
  s: Statements,
  tenantId: number,
  code: string,
  limit: number,
  add: (orderId: number, encontrado: string) => boolean,
) {
  for (const c of new Set([code, code.toLowerCase(), code.toUpperCase()])) {
    for (const r of s.qrPeople.all(tenantId, c, c.length >= QR_PREFIX_MIN ? c + TOP : `${c}\0`, limit) as {
      order_id: number;
    }[])
      if (add(r.order_id, 'QR')) return;
    for (const r of s.qrAdditional.all(tenantId, c) as { order_id: number }[])
      if (add(r.order_id, 'QR do adicional')) return;
  }
}

interface SummaryRow extends Omit<SearchHit, 'encontrado'> {
  id: number;
}

function summarise(s: Statements, tenantId: number, found: [number, string | null][]): SearchHit[] {
  if (found.length === 0) return [];
  const rows = new Map(
    (s.summaries.all(JSON.stringify(found.map(([id]) => id)), tenantId) as SummaryRow[]).map((r) => [r.id, r]),
  );
  const hits: SearchHit[] = [];
  for (const [orderId, encontrado] of found) {
    const r = rows.get(orderId);
    if (!r) continue; // another tenant's order (never reached through the index) or deleted meanwhile
    hits.push({
      numero_pedido: r.numero_pedido,
      status: r.status,
      cliente_nome: r.cliente_nome,
      cliente_email: String(r.cliente_email),
      total_pessoas: r.total_pessoas,
      checkins: r.checkins,
      data_uso: r.data_uso,
      encontrado: encontrado ?? r.cliente_nome,
    });
  }
  return hits;
}
