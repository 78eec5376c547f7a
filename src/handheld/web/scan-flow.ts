import type { Api } from './api.js';
import type { ScanAnswer } from '../handheld.schemas.js';
import { createBudget } from './budget.js';
import { decide, hasTodaysData, localDate, rowKeys, upsertRows, type DayIndex } from './decide.js';
import { qrHash } from './qr-hash.js';
import type { Store } from './store.js';
import { ticketLines, type TicketLine } from './tickets.js';
import { wordFor } from './words.js';

// One scan, decided at the box (online, within its share of the timeout, budget.ts) or here (the rules on the day
// data, written durably with the queued movement before the result shows). What deciding here needs is made ready
// while the box is asked: the code's hash and this device's latest copy of the rows it reads.

export interface AppConfig {
  timeoutMs: number;
  nomes: boolean;
  /** The park's IANA time zone: "today" for offline decisions. */
  fusoHorario: string;
}

export interface ScanResult {
  codigo: string;
  resultado: string;
  mensagem: string;
  /** Decided on the device (the box did not answer in time, or offline). */
  noAparelho: boolean;
  nome: string | null;
  /** People this scan let in. */
  pessoas: number;
  /** The kinds and days of the tickets it is about (no personal data). */
  ingressos: TicketLine[];
  em: string;
}

export interface Scan {
  id: string;
  codigo: string;
  operador: string;
  /** performance.now() at the scan's input: the timeout bounds the whole scan from there. */
  startedAt: number;
  /** Ask the box first. */
  online: boolean;
}

export function createScanFlow(deps: {
  store: Store;
  api: Api;
  config: AppConfig;
  now: () => Date;
  reach: (kind: 'scan', call: () => Promise<ScanAnswer>) => Promise<ScanAnswer | null>;
  day: () => DayIndex | null;
  show: (r: ScanResult) => ScanResult;
  counted: () => Promise<void>;
}) {
  const { store, api, config, now, reach, show } = deps;
  const budget = createBudget(config.timeoutMs);

  /** Another tab of this device may have decided on this code since this tab read the day: its rows as stored. */
  async function refresh(codigo: string, hash: string): Promise<void> {
    const day = deps.day();
    if (!day) return;
    upsertRows(day, await store.rowsOf(rowKeys(day, codigo, hash)));
    // A person first known from another tab's online answer: their order too.
    const missing = rowKeys(day, codigo, hash).pedidos.filter((n) => !day.pedidos.has(n));
    if (missing.length) upsertRows(day, await store.rowsOf({ pessoas: [], pedidos: missing, adicionais: [] }));
  }

  /** Decides here: the rules on the day data, written with the queued movement before the result shows. */
  async function here(s: Scan, hash: string): Promise<ScanResult> {
    const at = now();
    const em = at.toISOString();
    const date = localDate(at, config.fusoHorario);
    const base = { codigo: s.codigo, noAparelho: true, nome: null, pessoas: 0, ingressos: [], em };
    const day = deps.day();
    if (!hasTodaysData(day, date)) return show({ ...base, resultado: 'SEM_DADOS', mensagem: wordFor('SEM_DADOS') });
    const d = decide(day, s.codigo, hash, date, em);
    const item = { id: s.id, codigo: s.codigo, acao: 'checkin' as const, resultado: d.resultado, decidido_em: em };
    await store.record({ ...item, operador: s.operador, dados_de: day.data_local }, d.changes, date);
    upsertRows(day, d.changes);
    const shown = show({
      ...base,
      resultado: d.resultado,
      mensagem: wordFor(d.resultado),
      nome: d.nome,
      pessoas: d.pessoas,
      ingressos: ticketLines(d.shown, day.lotes),
    });
    // The queue's count after the result: the attendant waits for the result, not for the count.
    void deps.counted().catch(() => undefined);
    return shown;
  }

  /** The box's answer on screen: whom this scan let in, or the person refused (the answer holds the whole order). */
  async function fromBox(answer: ScanAnswer, codigo: string, hash: string): Promise<ScanResult> {
    if (answer.pessoas.length || answer.adicionais.length) {
      await store.saveRows(answer);
      const day = deps.day();
      if (day) upsertRows(day, answer);
    }
    const { resultado, mensagem } = answer;
    const about = new Set(resultado === 'ok' ? answer.liberados : [hash]);
    const shown = answer.pessoas.filter((row) => about.has(row[0]));
    const lotes = deps.day()?.lotes ?? new Map(answer.lotes.map((l) => [l[0], l]));
    return show({
      codigo,
      resultado,
      mensagem,
      noAparelho: false,
      nome: shown.length === 1 ? (shown[0]![6] ?? null) : null,
      pessoas: answer.liberados.length,
      ingressos: ticketLines(shown, lotes),
      em: now().toISOString(),
    });
  }

  /** The box decides within its share of the timeout; past it (or offline) the device decides, same movement id. */
  async function scan(s: Scan): Promise<ScanResult> {
    const hash = qrHash(s.codigo);
    // Should the read fail, this tab's own copy of the rows is decided on.
    const ready = hash.then((h) =>
      refresh(s.codigo, h).then(
        () => h,
        () => h,
      ),
    );
    const wait = s.online ? budget.boxWait(performance.now() - s.startedAt) : 0;
    if (wait > 0) {
      const { id, codigo, operador } = s;
      const answer = await reach('scan', () => api.checkin({ id, codigo, operador }, wait)).catch(() => null);
      // The rows read meanwhile go in first, so the box's newer ones are the last word.
      if (answer) return fromBox(answer, codigo, await ready);
    }
    const from = performance.now();
    const result = await here(s, await ready);
    budget.spent(performance.now() - from);
    return result;
  }

  return { scan };
}
