/** RFC 4180 CSV: comma-separated, CRLF line ends, fields quoted when they hold a comma, quote or line break. */
export function toCsv(rows: readonly Record<string, unknown>[], columns: readonly string[]): string {
  const field = (v: unknown) => {
    const s = v === null || v === undefined ? '' : String(v);
    // A leading =, +, - or @ would be run as a formula by spreadsheet programs.
    const safe = /^[=+\-@]/.test(s) ? `'${s}` : s;
    return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
  };
  return [columns.join(','), ...rows.map((r) => columns.map((c) => field(r[c])).join(','))].join('\r\n') + '\r\n';
}
