import type { AdditionalRow, DayData, LotRow, OrderRow, PersonRow, UploadItem } from '../handheld.schemas.js';
import { emptyDay, putOrder, putPerson, type DayIndex, type DayRows } from './decide.js';
import type { Settled } from './queue.js';

// The device's durable state in IndexedDB (per origin): its key, the operator, the day data, the queue of movements
// decided here and those the box refused. Every write that records a decision is one transaction opened with
// durability 'strict' and is awaited to `complete` before the result is shown.

const NAME = 'gate-handheld';
type StoreName = 'cfg' | 'pessoas' | 'pedidos' | 'adicionais' | 'lotes' | 'fila' | 'recusados';
const DAY_STORES = ['pessoas', 'pedidos', 'adicionais', 'lotes'] as const;

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

const done = (tx: IDBTransaction) =>
  new Promise<void>((resolve, reject) => {
    tx.oncomplete = () => resolve();
    tx.onerror = () => reject(tx.error);
    tx.onabort = () => reject(tx.error ?? new Error('transação abortada'));
  });

const result = <T>(req: IDBRequest<T>) =>
  new Promise<T>((resolve, reject) => {
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error);
  });

export async function openStore(name = NAME) {
  // Version 2 added `lotes`; a device on version 1 keeps its queue and gets the kinds with its next whole day.
  const open = indexedDB.open(name, 2);
  open.onupgradeneeded = () => {
    const db = open.result;
    const missing = (s: string) => !db.objectStoreNames.contains(s);
    for (const s of ['cfg', ...DAY_STORES]) if (missing(s)) db.createObjectStore(s);
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
  const putRows = (tx: IDBTransaction, rows: DayRows) => {
    for (const row of rows.pessoas) tx.objectStore('pessoas').put(row, row[0]);
    for (const row of rows.adicionais) tx.objectStore('adicionais').put(row, row[0]);
    for (const row of rows.pedidos ?? []) tx.objectStore('pedidos').put(row, row[0]);
    for (const row of rows.lotes ?? []) tx.objectStore('lotes').put(row, row[0]);
  };
  const offlineKey = (day: string) => `offline:${day}`;

  return {
    get: <T>(key: string) => read('cfg', (s) => s.get(key)) as Promise<T | undefined>,
    set: (key: string, value: unknown) => write(['cfg'], (tx) => tx.objectStore('cfg').put(value, key)),
    forget: (key: string) => write(['cfg'], (tx) => tx.objectStore('cfg').delete(key)),

    /** The day data kept from the last session, indexed; null when none. */
    async loadDay(): Promise<DayIndex | null> {
      const meta = await read('cfg', (s) => s.get('dia'));
      if (!meta) return null;
      const day = Object.assign(emptyDay(), meta as Pick<DayIndex, 'data_local' | 'gerado_em' | 'cursor'>);
      for (const row of await read('pedidos', (s) => s.getAll())) putOrder(day, row as OrderRow);
      for (const row of await read('pessoas', (s) => s.getAll())) putPerson(day, row as PersonRow);
      for (const row of await read('adicionais', (s) => s.getAll()))
        day.adicionais.set((row as AdditionalRow)[0], row as AdditionalRow);
      for (const row of await read('lotes', (s) => s.getAll())) day.lotes.set((row as LotRow)[0], row as LotRow);
      return day;
    },

    /** A whole day replaces what was kept; a delta upserts its rows. */
    saveDay: (data: DayData) =>
      write(['cfg', ...DAY_STORES], (tx) => {
        if (data.completo) for (const s of DAY_STORES) tx.objectStore(s).clear();
        putRows(tx, data);
        const { data_local, gerado_em, cursor } = data;
        tx.objectStore('cfg').put({ data_local, gerado_em, cursor }, 'dia');
      }),

    /** Rows by key as stored now: another tab of this device may have written them since this tab read the day. */
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
