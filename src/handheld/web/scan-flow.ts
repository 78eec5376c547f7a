import type { Api } from './api.js';
import type { ScanAnswer } from '../handheld.schemas.js';
import { decide, hasTodaysData, localDate, upsertRows, type DayIndex } from './decide.js';
import { qrHash } from './qr-hash.js';
import type { Store } from './store.js';
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
  pessoas: number;
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
    const base = { codigo, noAparelho: true, nome: null, pessoas: 0, em };
    const day = deps.day();
    if (!hasTodaysData(day, date)) return show({ ...base, resultado: 'SEM_DADOS', mensagem: wordFor('SEM_DADOS') });
    const d = decide(day, codigo, await qrHash(codigo), date, em);
    const item = { id, codigo, acao: 'checkin' as const, resultado: d.resultado, decidido_em: em, operador };
    await store.record({ ...item, dados_de: day.data_local }, d.changes, date);
    upsertRows(day, d.changes.pessoas, d.changes.adicionais);
    await deps.counted();
    return show({ ...base, resultado: d.resultado, mensagem: wordFor(d.resultado), nome: d.nome, pessoas: d.pessoas });
  }

  /** The box decides, within the timeout; null when it did not answer (then the device decides). */
  async function atBox(id: string, codigo: string, operador: string): Promise<ScanResult | null> {
    // The whole scan stays within the timeout: the box gets it less what deciding and writing here take.
    const wait = Math.max(config.timeoutMs - LOCAL_DECISION_MS, config.timeoutMs / 2);
    const answer = await reach('scan', () => api.checkin({ id, codigo, operador }, wait)).catch(() => null);
    if (!answer) return null;
    if (answer.pessoas.length || answer.adicionais.length) {
      await store.saveRows(answer.pessoas, answer.adicionais);
      const day = deps.day();
      if (day) upsertRows(day, answer.pessoas, answer.adicionais);
    }
    const { resultado, mensagem } = answer;
    const pessoas = answer.pessoas.length;
    const nome = answer.pessoas.length === 1 ? (answer.pessoas[0]![6] ?? null) : null;
    return show({ codigo, resultado, mensagem, noAparelho: false, nome, pessoas, em: now().toISOString() });
  }

  return { here, atBox };
}
