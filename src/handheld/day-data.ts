import crypto from 'node:crypto';
import type { Db } from '../db/open.js';
import type { AdditionalRow, LotRow, OrderRow, PersonRow } from './handheld.schemas.js';
import { qrHash } from './qr-hash.js';

// The day's data a handheld decides on offline (GET /api/handheld/dados, docs/handheld.md): every order with a
// ticket for today or an open-dated one, with all its people and additionals (so a ticket of another date in such
// an order gets the box's own refusal, not "unknown"), QRs hashed. Built in slices of a few orders with a turn of
// the event loop between them, and sent as JSON text slice by slice: a 50,000-person day never holds a scan.
// A kind of ticket (its type's and its variation's names, no personal data) goes once, in `lotes`, named by a key.

const ORDERS_PER_SLICE = 60;
/**
 * Past this many events (or orders written) since a cursor, the device gets the whole day again, which is sliced:
 * reading 20,000 events with their people in one statement held the loop 8–32 ms, 2,000 under 1 ms.
 */
const MAX_DELTA_ROWS = 2_000;

interface Cursor {
  day: string;
  eventId: number;
  ordersAt: string;
}

const encodeCursor = (c: Cursor) => `v1.${c.day}.${c.eventId}.${c.ordersAt}`;
function decodeCursor(text: string | undefined): Cursor | undefined {
  const m = text ? /^v1\.(\d{4}-\d{2}-\d{2})\.(\d+)\.(.*)$/.exec(text) : null;
  return m ? { day: m[1]!, eventId: Number(m[2]), ordersAt: m[3]! } : undefined;
}

/** A kind of ticket's key: a park sells a few dozen kinds, so 48 bits of their names' hash never collide. */
const lotKey = (nomeIngresso: string, nomeLote: string) =>
  crypto.createHash('sha256').update(`${nomeIngresso}\n${nomeLote}`).digest('base64url').slice(0, 8);

const yieldTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * The day's orders, a page at a time (one statement over the whole day took 9–14 ms for 12,500 orders): those with a
 * lot for the day, then those with an open-dated lot not seen yet.
 */
async function* dayOrderPages(db: Db, tenantId: number, day: string): AsyncGenerator<number[]> {
  const seen = new Set<number>();
  const pages = [
    db.statement(
      `SELECT DISTINCT l.order_id AS id FROM lots l JOIN orders o ON o.id = l.order_id
        WHERE l.data_uso = ? AND l.order_id > ? AND o.tenant_id = ? ORDER BY l.order_id LIMIT ?`,
    ),
    db.statement(
      `SELECT DISTINCT l.order_id AS id FROM lots l JOIN orders o ON o.id = l.order_id
        WHERE l.tipo_ingresso = 'dayuse_sem_data' AND ? IS NOT NULL AND l.order_id > ? AND o.tenant_id = ?
        ORDER BY l.order_id LIMIT ?`,
    ),
  ];
  for (const page of pages) {
    let after = 0;
    for (;;) {
      const ids = (page.all(day, after, tenantId, ORDERS_PER_SLICE) as { id: number }[]).map((r) => r.id);
      if (ids.length === 0) break;
      after = ids[ids.length - 1]!;
      const fresh = ids.filter((id) => !seen.has(id));
      for (const id of fresh) seen.add(id);
      if (fresh.length > 0) yield fresh;
      if (ids.length < ORDERS_PER_SLICE) break;
    }
  }
}

/** Of some orders, those of the day (a lot for it, or open-dated). */
const ofTheDay = (db: Db, ids: number[], day: string): number[] =>
  (
    db
      .statement(
        `SELECT DISTINCT order_id AS id FROM lots WHERE order_id IN (SELECT value FROM json_each(?))
          AND (data_uso = ? OR tipo_ingresso = 'dayuse_sem_data') ORDER BY order_id`,
      )
      .all(JSON.stringify(ids), day) as { id: number }[]
  ).map((r) => r.id);

/** Orders with a movement after `eventId` or written at or after `ordersAt`; undefined when too many to say. */
function changedOrders(db: Db, tenantId: number, since: Cursor): Set<number> | undefined {
  const moved = db
    .statement(
      `SELECT coalesce(p.order_id, a.order_id) AS id FROM events e
         LEFT JOIN people p ON p.id = e.person_id LEFT JOIN additionals a ON a.id = e.additional_id
        WHERE e.tenant_id = ? AND e.id > ? LIMIT ?`,
    )
    .all(tenantId, since.eventId, MAX_DELTA_ROWS + 1) as { id: number | null }[];
  if (moved.length > MAX_DELTA_ROWS) return undefined;
  const written = db
    .statement('SELECT id FROM orders WHERE tenant_id = ? AND updated_at >= ? LIMIT ?')
    .all(tenantId, since.ordersAt, MAX_DELTA_ROWS + 1) as { id: number }[];
  if (written.length > MAX_DELTA_ROWS) return undefined;
  return new Set([...moved, ...written].map((r) => r.id).filter((id): id is number => id !== null));
}

/** Where a delta starts: the newest event, and the instant the data is read at (orders written since are sent). */
function marks(db: Db, nowIso: string) {
  const e = db.statement('SELECT coalesce(max(id), 0) AS n FROM events').get() as { n: number };
  return { eventId: e.n, ordersAt: nowIso };
}

function sliceRows(db: Db, ids: number[], names: boolean) {
  // One statement text for any slice (the connection caches statements by their text).
  const list = '(SELECT value FROM json_each(?))';
  const json = JSON.stringify(ids);
  const orders = db.statement(`SELECT numero_pedido, status FROM orders WHERE id IN ${list}`).all(json) as {
    numero_pedido: string;
    status: string;
  }[];
  const people = db
    .statement(
      `SELECT p.qr_code, o.numero_pedido, l.nome_ingresso, l.nome_lote, l.data_uso, l.tipo_ingresso, p.checkin_em, p.nome
         FROM people p JOIN lots l ON l.id = p.lot_id JOIN orders o ON o.id = p.order_id
        WHERE p.order_id IN ${list} ORDER BY p.order_id, p.lot_id, p.position`,
    )
    .all(json) as {
    qr_code: string;
    numero_pedido: string;
    nome_ingresso: string;
    nome_lote: string;
    data_uso: string;
    tipo_ingresso: string;
    checkin_em: string | null;
    nome: string;
  }[];
  const additionals = db
    .statement(
      `SELECT a.adicional_qr_code AS qr, o.numero_pedido, a.quantidade,
              (SELECT json_group_array(checkin_em) FROM
                 (SELECT r.checkin_em FROM additional_redemptions r
                   WHERE r.additional_id = a.id AND r.estornado_em IS NULL ORDER BY r.checkin_em, r.id)) AS usos
         FROM additionals a JOIN orders o ON o.id = a.order_id
        WHERE a.order_id IN ${list} AND a.adicional_qr_code IS NOT NULL`,
    )
    .all(json) as { qr: string; numero_pedido: string; quantidade: number; usos: string }[];
  const lotes = new Map<string, LotRow>();
  const keyOf = (p: { nome_ingresso: string; nome_lote: string }) => {
    const names = `${p.nome_ingresso}\n${p.nome_lote}`;
    let row = lotes.get(names);
    if (!row) lotes.set(names, (row = [lotKey(p.nome_ingresso, p.nome_lote), p.nome_ingresso, p.nome_lote]));
    return row[0];
  };
  return {
    pedidos: orders.map((o): OrderRow => [o.numero_pedido, o.status, qrHash(o.numero_pedido)]),
    pessoas: people.map((p): PersonRow => [
      qrHash(p.qr_code),
      p.numero_pedido,
      keyOf(p),
      p.data_uso,
      p.tipo_ingresso,
      p.checkin_em,
      names ? p.nome : null,
    ]),
    adicionais: additionals.map((a): AdditionalRow => [
      qrHash(a.qr),
      a.numero_pedido,
      a.quantidade,
      JSON.parse(a.usos) as string[],
    ]),
    lotes: [...lotes.values()],
  };
}

export interface DayDataOptions {
  tenantId: number;
  today: string;
  nowIso: string;
  /** GATE_HANDHELD_NOMES: people's names go to the devices. */
  names: boolean;
  /** The cursor of the device's last answer, for only what changed since. */
  since?: string | undefined;
}

/**
 * The day data as the JSON bytes of the spec's success envelope, sent as each slice is built: the people first,
 * then the orders, additionals and kinds of ticket. Every slice's rows of a kind end with a newline (JSON's
 * whitespace; a newline inside a string is always escaped), so the device parses and indexes each line while the
 * rest is on its way (src/handheld/web/day-stream.ts).
 */
export async function* dayDataParts(db: Db, o: DayDataOptions): AsyncGenerator<Buffer> {
  const at = marks(db, o.nowIso);
  const since = decodeCursor(o.since);
  const changed = since && since.day === o.today ? changedOrders(db, o.tenantId, since) : undefined;
  const head = {
    data_local: o.today,
    gerado_em: o.nowIso,
    cursor: encodeCursor({ day: o.today, ...at }),
    completo: changed === undefined,
  };
  yield Buffer.from(`{"success":true,"data":${JSON.stringify(head).slice(0, -1)},"pessoas":[\n`);
  // Each slice's text goes to bytes at once: off the JS heap, the young generation's collections no longer copy
  // megabytes of survivors (they held the loop 6–7 ms at a time for a 50,000-person day).
  const later = { pedidos: [] as Buffer[], adicionais: [] as Buffer[], lotes: [] as Buffer[] };
  let people = 0;
  const lotsSent = new Set<string>();
  const line = (rows: unknown[], first: boolean) =>
    Buffer.from(`${first ? '' : ','}${JSON.stringify(rows).slice(1, -1)}\n`);
  function* add(ids: number[]): Generator<Buffer> {
    const slice = sliceRows(db, ids, o.names);
    const lotes = slice.lotes.filter((l) => !lotsSent.has(l[0]));
    for (const l of lotes) lotsSent.add(l[0]);
    for (const [k, rows] of [
      ['pedidos', slice.pedidos],
      ['adicionais', slice.adicionais],
      ['lotes', lotes],
    ] as const)
      if (rows.length > 0) later[k].push(line(rows, later[k].length === 0));
    if (slice.pessoas.length > 0) yield line(slice.pessoas, people++ === 0);
  }
  if (changed) {
    const ids = [...changed];
    for (let from = 0; from < ids.length; from += ORDERS_PER_SLICE) {
      if (from > 0) await yieldTurn();
      yield* add(ofTheDay(db, ids.slice(from, from + ORDERS_PER_SLICE), o.today));
    }
  } else {
    for await (const ids of dayOrderPages(db, o.tenantId, o.today)) {
      yield* add(ids);
      await yieldTurn();
    }
  }
  for (const k of ['pedidos', 'adicionais', 'lotes'] as const) {
    yield Buffer.from(`],"${k}":[\n`);
    yield* later[k];
  }
  yield Buffer.from(']}}');
}

/** The rows of one order's people and additionals now (an online scan's answer updates the device's copy). */
export function orderRows(db: Db, numeroPedido: string, tenantId: number, names: boolean) {
  const order = db
    .statement('SELECT id FROM orders WHERE tenant_id = ? AND numero_pedido = ?')
    .get(tenantId, numeroPedido) as { id: number } | undefined;
  return order ? sliceRows(db, [order.id], names) : { pedidos: [], pessoas: [], adicionais: [], lotes: [] };
}
