// What the help desk typed, read as what it looks for (docs/console.md, "Search"), and the word
// matching the search index does: pure, no database.

export type SearchQuery =
  | { kind: 'vazia' }
  | { kind: 'pedido'; numero: string; exact: boolean }
  | { kind: 'cpf'; cpf: string }
  | { kind: 'email'; email: string }
  | { kind: 'texto'; words: string[]; code: string | null };

/** Longest query looked at; the route allows 100 characters. */
const MAX_QUERY = 200;
/** Words of a name query used; more only narrow what a few already found. */
const MAX_WORDS = 6;
/** Case and accents off, as the index's tokenizer (unicode61, remove_diacritics) reads names. */
const fold = (s: string) =>
  s
    .normalize('NFD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase();
const wordsOf = (s: string) => fold(s).match(/[\p{L}\p{N}]+/gu) ?? [];

export function classifyQuery(raw: string): SearchQuery {
  const q = raw.normalize('NFC').trim().slice(0, MAX_QUERY);
  if (q === '') return { kind: 'vazia' };
  // Order number (also the group QR): YYYYMMDD-NNNN, or its beginning from the date on.
  const pedido = /^(\d{8})-(\d{0,4})$/.exec(q) ?? /^(\d{8})(\d{4})?$/.exec(q);
  if (pedido) {
    const suffix = pedido[2] ?? '';
    return { kind: 'pedido', numero: `${pedido[1]}-${suffix}`, exact: suffix.length === 4 };
  }
  if (/^[\d\s./-]+$/.test(q)) {
    const digits = q.replace(/\D/g, '');
    if (digits.length === 11) return { kind: 'cpf', cpf: digits };
  }
  // ASCII only, as SQLite's lower() that made the keys.
  if (q.includes('@')) return { kind: 'email', email: q.replace(/\s+/g, '').replace(/[A-Z]/g, (c) => c.toLowerCase()) };
  return { kind: 'texto', words: [...new Set(wordsOf(q))].slice(0, MAX_WORDS), code: /\s/.test(q) ? null : q };
}

/**
 * An FTS5 query in which every word must appear, each as the beginning of a word of the name; a
 * single letter must be a whole word (an initial, "e", "d"), or it would match half the index.
 * Words hold only letters and digits; each is quoted anyway, so no input is read as FTS5 syntax.
 */
export function ftsQuery(words: readonly string[]): string {
  return words.map((w) => `"${w.replaceAll('"', '""')}"${w.length > 1 ? '*' : ''}`).join(' ');
}

/** The same test as ftsQuery's, for names still in search_pending. */
export function nameMatches(name: string, words: readonly string[]): boolean {
  const tokens = wordsOf(name);
  return words.every((w) => tokens.some((t) => (w.length > 1 ? t.startsWith(w) : t === w)));
}
