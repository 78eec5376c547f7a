import type { AdditionalRow, DayData, LotRow, OrderRow, PersonRow } from '../handheld.schemas.js';
import { applyDayData, upsertRows, type DayIndex, type DayRows } from './decide.js';
import { result } from './idb.js';

// The day is kept as the box sent it: a whole day's answer, as text, in pieces of at most PIECE_CHARS (`blocos`),
// replaced in one transaction with the manifest (`cfg` 'dia', which counts the pieces) and the rows changed since
// (`pessoas`, `pedidos`, `adicionais`, `lotes`: deltas, online answers, offline decisions, one record per row,
// cleared with each whole day). Writing a 50,000-person day's 62,500 rows one record each took 15 s at 4× CPU
// throttling; its text takes under 0.1 s. At load the index is built from the text, then the changed rows on top.

export type StoreName = 'cfg' | 'blocos' | 'pessoas' | 'pedidos' | 'adicionais' | 'lotes' | 'fila' | 'recusados';
export const DAY_STORES = ['pessoas', 'pedidos', 'adicionais', 'lotes'] as const;
/** No value grows with the park: a 50,000-person day is 19 pieces. */
const PIECE_CHARS = 256 * 1024;

/** What `cfg` 'dia' holds. Written by version 2 without `blocos`: that day is all in the row stores. */
interface DayManifest {
  data_local: string;
  gerado_em: string;
  cursor: string;
  blocos?: number;
}

type Write = (names: StoreName[], fn: (tx: IDBTransaction) => void) => Promise<void>;

/** Changed rows, one record each, by key. */
export function putRows(tx: IDBTransaction, rows: DayRows): void {
  for (const row of rows.pessoas) tx.objectStore('pessoas').put(row, row[0]);
  for (const row of rows.adicionais) tx.objectStore('adicionais').put(row, row[0]);
  for (const row of rows.pedidos ?? []) tx.objectStore('pedidos').put(row, row[0]);
  for (const row of rows.lotes ?? []) tx.objectStore('lotes').put(row, row[0]);
}

/** The day the box sent (its envelope's text in pieces) with the rows changed since on top; null when not whole. */
function dayFrom(meta: DayManifest, pieces: string[], changed: DayRows): DayIndex | null {
  if (pieces.length !== (meta.blocos ?? 0)) return null;
  let base: DayData | null = null;
  if (pieces.length > 0)
    try {
      base = (JSON.parse(pieces.join('')) as { data: DayData }).data;
    } catch {
      return null;
    }
  const day = applyDayData(
    null,
    base ?? { ...meta, completo: true, pessoas: [], pedidos: [], adicionais: [], lotes: [] },
  );
  Object.assign(day, { data_local: meta.data_local, gerado_em: meta.gerado_em, cursor: meta.cursor });
  upsertRows(day, changed);
  return day;
}

/** The day's reads and writes in the device's database. */
export function dayParts(db: IDBDatabase, write: Write) {
  return {
    /** The day kept from the last session, indexed; null when none, or when it was not stored whole. */
    async loadDay(): Promise<DayIndex | null> {
      // One transaction: the manifest, its pieces and the changed rows as one write left them.
      const tx = db.transaction(['cfg', 'blocos', ...DAY_STORES], 'readonly');
      const all = <T>(s: StoreName) => result(tx.objectStore(s).getAll()) as Promise<T[]>;
      const [meta, pieces, pedidos, lotes, pessoas, adicionais] = await Promise.all([
        result(tx.objectStore('cfg').get('dia')) as Promise<DayManifest | undefined>,
        all<string>('blocos'),
        all<OrderRow>('pedidos'),
        all<LotRow>('lotes'),
        all<PersonRow>('pessoas'),
        all<AdditionalRow>('adicionais'),
      ]);
      return meta ? dayFrom(meta, pieces, { pedidos, lotes, pessoas, adicionais }) : null;
    },

    /**
     * A whole day (`text`: the box's answer as it came) replaces the pieces, the changed rows and the manifest in one
     * transaction: a day cut short is never read. A delta's rows are upserted and the manifest's cursor moves on.
     */
    saveDay: (data: DayData, text: string) =>
      write(['cfg', 'blocos', ...DAY_STORES], (tx) => {
        const { data_local, gerado_em, cursor } = data;
        const cfg = tx.objectStore('cfg');
        if (data.completo) {
          for (const s of DAY_STORES) tx.objectStore(s).clear();
          const blocos = tx.objectStore('blocos');
          blocos.clear();
          let n = 0;
          for (let at = 0; at < text.length; at += PIECE_CHARS) blocos.put(text.slice(at, at + PIECE_CHARS), n++);
          cfg.put({ data_local, gerado_em, cursor, blocos: n } satisfies DayManifest, 'dia');
          return;
        }
        putRows(tx, data);
        // Only over a day stored whole: rows alone are never taken for a day.
        const meta = cfg.get('dia');
        meta.onsuccess = () => {
          if (meta.result) cfg.put({ ...(meta.result as DayManifest), data_local, gerado_em, cursor }, 'dia');
        };
      }),
  };
}
