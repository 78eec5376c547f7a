import {
  additionalCheckin,
  allUsed,
  groupCheckin,
  mayBeAdditional,
  mayBeGroup,
  pendingValid,
  personCheckin,
  type PersonFacts,
  type Refusal,
} from '../../checkin/rules/index.js';
import type { AdditionalRow, DayData, LotRow, OrderRow, PersonRow } from '../handheld.schemas.js';

// An offline decision: the day data's rows mapped to the box's pure rules (src/checkin/rules), in the order the box
// composes them (src/checkin/checkin.flows.ts checkInCode): a person's QR, then a group QR, then an additional's.
// Rows are named by qrHash(code): the caller hashes what was scanned and passes both.

/** The day data indexed for lookups (rows are the wire's tuples, unchanged). */
export interface DayIndex {
  data_local: string;
  gerado_em: string;
  cursor: string;
  pessoas: Map<string, PersonRow>;
  pedidos: Map<string, OrderRow>;
  adicionais: Map<string, AdditionalRow>;
  /** A kind of ticket's key → its names. */
  lotes: Map<string, LotRow>;
  /** numero_pedido → qr hashes of its people. */
  porPedido: Map<string, Set<string>>;
  /** grupo (hash of the order number) → numero_pedido. */
  porGrupo: Map<string, string>;
}

export const emptyDay = (): DayIndex => ({
  data_local: '',
  gerado_em: '',
  cursor: '',
  pessoas: new Map(),
  pedidos: new Map(),
  adicionais: new Map(),
  lotes: new Map(),
  porPedido: new Map(),
  porGrupo: new Map(),
});

export function putPerson(day: DayIndex, row: PersonRow): void {
  const before = day.pessoas.get(row[0]);
  if (before && before[1] !== row[1]) day.porPedido.get(before[1])?.delete(row[0]);
  day.pessoas.set(row[0], row);
  let set = day.porPedido.get(row[1]);
  if (!set) day.porPedido.set(row[1], (set = new Set()));
  set.add(row[0]);
}

export function putOrder(day: DayIndex, row: OrderRow): void {
  day.pedidos.set(row[0], row);
  day.porGrupo.set(row[2], row[0]);
}

/** A whole day (completo) replaces the index; a delta upserts its rows by key. */
export function applyDayData(day: DayIndex | null, data: DayData): DayIndex {
  const next = data.completo || !day ? emptyDay() : day;
  next.data_local = data.data_local;
  next.gerado_em = data.gerado_em;
  next.cursor = data.cursor;
  upsertRows(next, data);
  return next;
}

export interface DayRows {
  pessoas: PersonRow[];
  adicionais: AdditionalRow[];
  pedidos?: OrderRow[];
  lotes?: LotRow[];
}

/** Rows changed by a check-in (here or at the box) into the index. */
export function upsertRows(day: DayIndex, rows: DayRows): void {
  for (const row of rows.pedidos ?? []) putOrder(day, row);
  for (const row of rows.lotes ?? []) day.lotes.set(row[0], row);
  for (const row of rows.pessoas) putPerson(day, row);
  for (const row of rows.adicionais) day.adicionais.set(row[0], row);
}

export interface Decision {
  /** `ok` or the rules' refusal code. */
  resultado: string;
  detalhes: Record<string, unknown>;
  /** The rows this check-in changed (empty on a refusal): written with the queued movement. */
  changes: { pessoas: PersonRow[]; adicionais: AdditionalRow[] };
  /** People checked in (a group QR checks in several). */
  pessoas: number;
  /** The people the scan is about, as they were: those it let in, or the person refused. */
  shown: PersonRow[];
  /** The person's name when the day data carries names. */
  nome: string | null;
}

const refused = (r: Refusal): Decision => ({
  resultado: r.code,
  detalhes: r.details ?? {},
  changes: { pessoas: [], adicionais: [] },
  pessoas: 0,
  shown: [],
  nome: null,
});

/** An order the day data does not hold is no paid order: the rules then refuse as they would a cancelled one. */
const statusOf = (day: DayIndex, numero: string) => day.pedidos.get(numero)?.[1] ?? 'desconhecido';

const personFacts = (day: DayIndex, row: PersonRow): PersonFacts => ({
  qr_code: row[0],
  status: statusOf(day, row[1]),
  data_uso: row[3],
  tipo_ingresso: row[4],
  checkin_em: row[5],
  estornado_em: null,
  estorno_operador: null,
  estorno_dispositivo: null,
});

const withCheckin = (row: PersonRow, now: string): PersonRow => [row[0], row[1], row[2], row[3], row[4], now, row[6]];

/**
 * Decides a scanned `code` (whose qrHash is `hash`) on the day data, as the box would: `today` is the park-local date,
 * `now` the instant recorded as the check-in.
 */
export function decide(day: DayIndex, code: string, hash: string, today: string, now: string): Decision {
  const person = day.pessoas.get(hash);
  if (person) {
    const why = personCheckin(personFacts(day, person), today, code);
    if (why) return { ...refused(why), shown: [person], nome: person[6] };
    return {
      resultado: 'ok',
      detalhes: { qr_code: code, numero_pedido: person[1] },
      changes: { pessoas: [withCheckin(person, now)], adicionais: [] },
      pessoas: 1,
      shown: [person],
      nome: person[6],
    };
  }
  const numero = mayBeGroup(code) ? day.porGrupo.get(hash) : undefined;
  const order = numero === undefined ? undefined : day.pedidos.get(numero);
  if (order) return decideGroup(day, code, order, today, now);
  const additional = mayBeAdditional(code) ? day.adicionais.get(hash) : undefined;
  if (additional) {
    const units = additional[3].map((checkin_em) => ({
      checkin_em,
      estornado_em: null,
      estorno_operador: null,
      estorno_dispositivo: null,
    }));
    const facts = { status: statusOf(day, additional[1]), quantidade: additional[2] };
    const why = additionalCheckin(facts, units, code);
    if (why) return refused(why);
    return {
      resultado: 'ok',
      detalhes: { qr_code: code, numero_pedido: additional[1], unidade: units.length + 1, quantidade: additional[2] },
      changes: { pessoas: [], adicionais: [[additional[0], additional[1], additional[2], [...additional[3], now]]] },
      pessoas: 0,
      shown: [],
      nome: null,
    };
  }
  return refused({ code: 'TICKET_NOT_FOUND', details: { qr_code: code } });
}

function decideGroup(day: DayIndex, code: string, order: OrderRow, today: string, now: string): Decision {
  // The people are read only for a paid order, as the rules ask in this order (checkInGroup).
  const rows =
    order[1] === 'pago'
      ? [...(day.porPedido.get(order[0]) ?? [])].map((qr) => day.pessoas.get(qr)).filter((r) => r !== undefined)
      : [];
  const why = groupCheckin({ status: order[1] }, rows.length, code);
  if (why) return refused(why);
  const facts = rows.map((row) => ({ ...personFacts(day, row), row }));
  const valid = pendingValid(facts, today, code);
  if (valid === 'all-used') return refused(allUsed('combo_qr_code', code, rows.length));
  if (!Array.isArray(valid)) return refused(valid);
  return {
    resultado: 'ok',
    detalhes: { combo_qr_code: code, numero_pedido: order[0], total_pessoas: rows.length },
    changes: { pessoas: valid.map((f) => withCheckin(f.row, now)), adicionais: [] },
    pessoas: valid.length,
    shown: valid.map((f) => f.row),
    nome: null,
  };
}

/**
 * The keys of the rows a decision on `code` (whose qrHash is `hash`) reads, as `decide` looks them up: another tab of
 * the device may have changed those rows since this one read the day.
 */
export function rowKeys(day: DayIndex, code: string, hash: string) {
  const person = day.pessoas.get(hash);
  const numero = mayBeGroup(code) ? day.porGrupo.get(hash) : undefined;
  const orders = [person?.[1], numero].filter((n) => n !== undefined);
  return {
    pessoas: [hash, ...(numero === undefined ? [] : (day.porPedido.get(numero) ?? []))],
    pedidos: [...new Set(orders)],
    adicionais: mayBeAdditional(code) ? [hash] : [],
  };
}

/** The park-local date of an instant, in the park's IANA time zone. */
export function localDate(instant: Date, timeZone: string): string {
  return new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(
    instant,
  );
}

/** Offline decisions need today's data: none, or another day's, is refused before any rule. */
export const hasTodaysData = (day: DayIndex | null, today: string): day is DayIndex =>
  day !== null && day.data_local === today;
