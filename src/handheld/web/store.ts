import type { AdditionalRow, OrderRow, PersonRow, UploadItem } from '../handheld.schemas.js';
import { dayParts, DAY_STORES, putRows, type StoreName } from './day-store.js';
import type { DayRows } from './decide.js';
import { done, result } from './idb.js';
import type { Settled } from './queue.js';

// The device's durable state in IndexedDB (per origin): its key, the operator, the day data, the queue of movements
// decided here and those the box refused. Every write that records a decision is one transaction opened with
// durability 'strict' and is awaited to `complete` before the result is shown. How the day is kept: day-store.ts.

const NAME = 'gate-handheld';

export interface Device {
  chave: string;
  id: number;
  nome: string;
  tenant: string;
  /** The origin the device was paired at: its queue lives in this origin's storage only. */
  origem: string;
  pareado_em: string;
}

export interface Refused {
  item: UploadItem;
  erro: string;
}

export async function openStore(name = NAME) {
  // Version 2 added `lotes`, version 3 `blocos`; a device on an older one keeps its queue and its day (version 2's
  // rows are read as changed rows over no pieces) until its next whole day.
  const open = indexedDB.open(name, 3);
  open.onupgradeneeded = () => {
    const db = open.result;
    const missing = (s: string) => !db.objectStoreNames.contains(s);
    for (const s of ['cfg', 'blocos', ...DAY_STORES]) if (missing(s)) db.createObjectStore(s);
    if (missing('fila')) db.createObjectStore('fila', { keyPath: 'id' });
    if (missing('recusados')) db.createObjectStore('recusados', { keyPath: 'item.id' });
  };
  const db = await result(open);

  const write = async (names: StoreName[], fn: (tx: IDBTransaction) => void) => {
    const tx = db.transaction(names, 'readwrite', { durability: 'strict' });
    const finished = done(tx);
    fn(tx);
    await finished;
  };
  const read = <T>(name: StoreName, fn: (s: IDBObjectStore) => IDBRequest<T>) =>
    result(fn(db.transaction(name, 'readonly').objectStore(name)));
  const offlineKey = (day: string) => `offline:${day}`;

  return {
    get: <T>(key: string) => read('cfg', (s) => s.get(key)) as Promise<T | undefined>,
    set: (key: string, value: unknown) => write(['cfg'], (tx) => tx.objectStore('cfg').put(value, key)),
    forget: (key: string) => write(['cfg'], (tx) => tx.objectStore('cfg').delete(key)),

    ...dayParts(db, write),

    /**
     * Rows by key as stored now: another tab of this device may have written them since this tab read the day. Only
     * rows changed since the day's text are records of their own; a key not found is as the day's text has it.
     */
    async rowsOf(keys: { pessoas: string[]; pedidos: string[]; adicionais: string[] }): Promise<DayRows> {
      const tx = db.transaction(['pessoas', 'pedidos', 'adicionais'], 'readonly');
      const get = async <T>(name: 'pessoas' | 'pedidos' | 'adicionais', ks: string[]) => {
        const rows = await Promise.all(ks.map((k) => result<unknown>(tx.objectStore(name).get(k))));
        return rows.filter((row) => row !== undefined) as T[];
      };
      const [pessoas, pedidos, adicionais] = await Promise.all([
        get<PersonRow>('pessoas', keys.pessoas),
        get<OrderRow>('pedidos', keys.pedidos),
        get<AdditionalRow>('adicionais', keys.adicionais),
      ]);
      return { pessoas, pedidos, adicionais };
    },

    /** Rows the box sent with an online answer. */
    saveRows: (rows: DayRows) => write([...DAY_STORES], (tx) => putRows(tx, rows)),

    /** An offline decision: the movement queued, the rows it changed and the day's count, in one transaction. */
    record: (item: UploadItem, changes: { pessoas: PersonRow[]; adicionais: AdditionalRow[] }, today: string) =>
      write(['cfg', 'fila', 'pessoas', 'adicionais'], (tx) => {
        tx.objectStore('fila').add(item);
        putRows(tx, changes);
        const cfg = tx.objectStore('cfg');
        const count = cfg.get(offlineKey(today));
        count.onsuccess = () => cfg.put(((count.result as number | undefined) ?? 0) + 1, offlineKey(today));
      }),

    offlineToday: async (today: string) => ((await read('cfg', (s) => s.get(offlineKey(today)))) as number) ?? 0,
    queue: () => read('fila', (s) => s.getAll()) as Promise<UploadItem[]>,
    refused: () => read('recusados', (s) => s.getAll()) as Promise<Refused[]>,
    counts: async () => ({
      fila: await read('fila', (s) => s.count()),
      recusados: await read('recusados', (s) => s.count()),
    }),

    /** The box's answers to an upload: answered items leave the queue, refused ones go aside. */
    settle: (s: Settled) =>
      write(['fila', 'recusados'], (tx) => {
        for (const id of s.done) tx.objectStore('fila').delete(id);
        for (const r of s.refused) {
          tx.objectStore('fila').delete(r.item.id);
          tx.objectStore('recusados').put(r);
        }
      }),

    close: () => db.close(),
  };
}

export type Store = Awaited<ReturnType<typeof openStore>>;
