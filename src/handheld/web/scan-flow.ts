import type { Api } from './api.js';
import type { ScanAnswer } from '../handheld.schemas.js';
import { decide, hasTodaysData, localDate, upsertRows, type DayIndex } from './decide.js';
import { qrHash } from './qr-hash.js';
import type { Store } from './store.js';
import { ticketLines, type TicketLine } from './tickets.js';
import { wordFor } from './words.js';

// One scan, decided at the box (online, within the timeout) or here (the rules on the day data, written durably
// with the queued movement before the result shows).

/** What deciding here and writing the queue item take at most, measured on a throttled handheld (bench:handheld). */
const LOCAL_DECISION_MS = 100;

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

  /** Decides here: the rules on the day data, written with the queued movement before the result shows. */
  async function here(id: string, codigo: string, operador: string): Promise<ScanResult> {
    const at = now();
    const em = at.toISOString();
    const date = localDate(at, config.fusoHorario);
    const base = { codigo, noAparelho: true, nome: null, pessoas: 0, ingressos: [], em };
    const day = deps.day();
    if (!hasTodaysData(day, date)) return show({ ...base, resultado: 'SEM_DADOS', mensagem: wordFor('SEM_DADOS') });
    const d = decide(day, codigo, await qrHash(codigo), date, em);
    const item = { id, codigo, acao: 'checkin' as const, resultado: d.resultado, decidido_em: em, operador };
    await store.record({ ...item, dados_de: day.data_local }, d.changes, date);
    upsertRows(day, d.changes);
    await deps.counted();
    return show({
      ...base,
      resultado: d.resultado,
      mensagem: wordFor(d.resultado),
      nome: d.nome,
      pessoas: d.pessoas,
      ingressos: ticketLines(d.shown, day.lotes),
    });
  }

  /** The box decides, within the timeout; null when it did not answer (then the device decides). */
  async function atBox(id: string, codigo: string, operador: string): Promise<ScanResult | null> {
    // The whole scan stays within the timeout: the box gets it less what deciding and writing here take.
    const wait = Math.max(config.timeoutMs - LOCAL_DECISION_MS, config.timeoutMs / 2);
    const answer = await reach('scan', () => api.checkin({ id, codigo, operador }, wait)).catch(() => null);
    if (!answer) return null;
    if (answer.pessoas.length || answer.adicionais.length) {
      await store.saveRows(answer);
      const day = deps.day();
      if (day) upsertRows(day, answer);
    }
    const { resultado, mensagem } = answer;
    // The answer holds the whole order: the screen shows whom this scan let in, or the person refused.
    const about = new Set(resultado === 'ok' ? answer.liberados : [await qrHash(codigo)]);
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

  return { here, atBox };
}
