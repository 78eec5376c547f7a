import type { AdditionalRow, DayData, LotRow, OrderRow, PersonRow } from '../handheld.schemas.js';
import { applyDayData, upsertRows, type DayIndex, type DayRows } from './decide.js';
import { done, result } from './idb.js';

// The day is kept as the box sent it: a whole day's answer, as text, in pieces of about PIECE_CHARS (`blocos`),
// written while it downloads under a new generation's keys ([geracao, n]), then made the day in one transaction
// with the manifest (`cfg` 'dia': its generation and how many pieces), the other generations' pieces deleted and the
// rows changed since cleared. A download or a write cut short leaves the day before it; a manifest whose pieces
// are not all there reads as no day. Rows changed since the day's text (deltas, online answers, offline decisions)
// are records of their own, by key, in `pessoas`, `pedidos`, `adicionais`, `lotes`, and go on top of the text at
// load. Writing a 50,000-person day's 62,500 rows one record each took 15 s at 4× CPU throttling; its text, 0.1 s.

export type StoreName = 'cfg' | 'blocos' | 'pessoas' | 'pedidos' | 'adicionais' | 'lotes' | 'fila' | 'recusados';
export const DAY_STORES = ['pessoas', 'pedidos', 'adicionais', 'lotes'] as const;
/** No value grows with the park: a 50,000-person day is 19 pieces. */
const PIECE_CHARS = 256 * 1024;

/**
 * What `cfg` 'dia' holds. Version 2 wrote no `blocos`: that day is all in the row stores. No `geracao`: the pieces
 * are keyed by their number alone.
 */
interface DayManifest {
  data_local: string;
  gerado_em: string;
  cursor: string;
  geracao?: string;
  blocos?: number;
}

const piecesOf = (m: DayManifest) =>
  m.geracao ? IDBKeyRange.bound([m.geracao, 0], [m.geracao, Infinity]) : IDBKeyRange.bound(0, Infinity);

/** Deletes every piece but the manifest's (numbers sort before arrays; [g] before [g, n] before [g, []]). */
function deleteOthers(blocos: IDBObjectStore, meta: DayManifest | undefined): void {
  if (meta?.geracao) {
    blocos.delete(IDBKeyRange.upperBound([meta.geracao], true));
    blocos.delete(IDBKeyRange.lowerBound([meta.geracao, []], true));
  } else if (meta?.blocos) blocos.delete(IDBKeyRange.lowerBound([]));
  else blocos.clear();
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

/** A whole day being written as it arrives: `add` its text in order, then `commit` makes it the day. */
export interface DayStage {
  add(text: string): void;
  commit(head: Pick<DayData, 'data_local' | 'gerado_em' | 'cursor'>): Promise<void>;
}

/** The day's reads and writes in the device's database. */
export function dayParts(db: IDBDatabase, write: Write) {
  // The pieces' own writes need not wait for the disk: the commit that makes them the day does (durability strict).
  const relaxed = (names: StoreName[], fn: (tx: IDBTransaction) => void) => {
    const tx = db.transaction(names, 'readwrite', { durability: 'relaxed' });
    const finished = done(tx);
    fn(tx);
    return finished;
  };

  return {
    /** The day kept from the last session, indexed; null when none, or when it was not stored whole. */
    async loadDay(): Promise<DayIndex | null> {
      // One transaction: the manifest, its pieces and the changed rows as one write left them.
      const tx = db.transaction(['cfg', 'blocos', ...DAY_STORES], 'readonly');
      const all = <T>(s: StoreName) => result(tx.objectStore(s).getAll()) as Promise<T[]>;
      const dia = tx.objectStore('cfg').get('dia');
      const manifest = new Promise<{ meta?: DayManifest; pieces: string[] }>((resolve, reject) => {
        dia.onerror = () => reject(dia.error);
        dia.onsuccess = () => {
          const meta = dia.result as DayManifest | undefined;
          if (!meta) return resolve({ pieces: [] });
          const pieces = tx.objectStore('blocos').getAll(piecesOf(meta));
          result(pieces as IDBRequest<string[]>).then((p) => resolve({ meta, pieces: p }), reject);
        };
      });
      const [{ meta, pieces }, pedidos, lotes, pessoas, adicionais] = await Promise.all([
        manifest,
        all<OrderRow>('pedidos'),
        all<LotRow>('lotes'),
        all<PersonRow>('pessoas'),
        all<AdditionalRow>('adicionais'),
      ]);
      return meta ? dayFrom(meta, pieces, { pedidos, lotes, pessoas, adicionais }) : null;
    },

    /** A whole day, written as its text comes (the pieces of an earlier cut-short write are deleted first). */
    stageDay(): DayStage {
      const geracao = `${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 10)}`;
      const writes: Promise<void>[] = [];
      let failed: unknown = null;
      let buffer: string[] = [];
      let size = 0;
      let n = 0;
      const keep = (p: Promise<void>) => writes.push(p.catch((e: unknown) => void (failed ??= e)));
      // What a write cut short left goes first: pieces of at most one day are ever left behind.
      keep(
        relaxed(['cfg', 'blocos'], (tx) => {
          const dia = tx.objectStore('cfg').get('dia');
          dia.onsuccess = () => deleteOthers(tx.objectStore('blocos'), dia.result as DayManifest | undefined);
        }),
      );
      const flush = () => {
        const piece = buffer.join('');
        const key = [geracao, n++];
        buffer = [];
        size = 0;
        keep(relaxed(['blocos'], (tx) => tx.objectStore('blocos').put(piece, key)));
      };
      return {
        add(text: string) {
          for (let at = 0; at < text.length; at += PIECE_CHARS) {
            const part = text.slice(at, at + PIECE_CHARS);
            buffer.push(part);
            size += part.length;
            if (size >= PIECE_CHARS) flush();
          }
        },
        async commit({ data_local, gerado_em, cursor }) {
          if (size > 0) flush();
          await Promise.all(writes);
          if (failed) throw failed;
          const count = n;
          await write(['cfg', 'blocos', ...DAY_STORES], (tx) => {
            const blocos = tx.objectStore('blocos');
            // Another tab's write may have deleted these pieces meanwhile: then this day is not made the day.
            const here = blocos.count(IDBKeyRange.bound([geracao, 0], [geracao, Infinity]));
            here.onsuccess = () => {
              if (here.result !== count) return tx.abort();
              const meta: DayManifest = { data_local, gerado_em, cursor, geracao, blocos: count };
              deleteOthers(blocos, meta);
              for (const s of DAY_STORES) tx.objectStore(s).clear();
              tx.objectStore('cfg').put(meta, 'dia');
            };
          });
        },
      };
    },

    /** A delta: its rows upserted and the manifest's cursor moved on, over a day stored whole only. */
    saveDelta: (data: DayData) =>
      write(['cfg', ...DAY_STORES], (tx) => {
        const { data_local, gerado_em, cursor } = data;
        const cfg = tx.objectStore('cfg');
        putRows(tx, data);
        const meta = cfg.get('dia');
        meta.onsuccess = () => {
          if (meta.result) cfg.put({ ...(meta.result as DayManifest), data_local, gerado_em, cursor }, 'dia');
        };
      }),
  };
}
