import type { DayData, ScanAnswer, UploadItem, UploadItemAnswer } from '../handheld.schemas.js';
import { readDay, type DayHead, type DaySink } from './day-stream.js';

// The box's handheld endpoints (docs/handheld.md), in their envelope. A call the box did not answer in time, or
// answered with a 5xx, is Unreachable (it counts toward going offline); an answer in the envelope's error is ApiError.

export class Unreachable extends Error {
  constructor(why: string) {
    super(why);
    this.name = 'Unreachable';
  }
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

/** The device's key no longer opens the box: pair again (the queue is kept). */
export const needsPairing = (e: unknown): boolean =>
  e instanceof ApiError &&
  ['DISPOSITIVO_REVOGADO', 'CHAVE_HANDHELD_INVALIDA', 'CHAVE_HANDHELD_AUSENTE'].includes(e.code);

const KEY_HEADER = 'x-handheld-key';

/** The data of an answer in the spec's envelope; its error as ApiError. */
function envelope<T>(status: number, text: string): T {
  const json = JSON.parse(text) as { success: boolean; data?: T; error?: { code: string; message: string } };
  if (!json.success) throw new ApiError(status, json.error?.code ?? 'ERRO', json.error?.message ?? 'erro');
  return json.data as T;
}

export function createApi(opts: { base?: string; key: () => string | null; fetch?: typeof fetch }) {
  const base = opts.base ?? '';
  const doFetch = opts.fetch ?? ((...args: Parameters<typeof fetch>) => fetch(...args));

  /** One call: `read` takes the answer (its status below 500); what it throws other than ours is Unreachable. */
  async function request<R>(
    method: string,
    path: string,
    body: unknown,
    timeoutMs: number,
    read: (res: Response) => Promise<R>,
  ): Promise<R> {
    const ctl = new AbortController();
    const timer = setTimeout(() => ctl.abort(), timeoutMs);
    const key = opts.key();
    try {
      const res = await doFetch(base + path, {
        method,
        headers: {
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          ...(key ? { [KEY_HEADER]: key } : {}),
        },
        body: body === undefined ? null : JSON.stringify(body),
        signal: ctl.signal,
        cache: 'no-store',
      });
      if (res.status >= 500) throw new Unreachable(`HTTP ${res.status}`);
      return await read(res);
    } catch (e) {
      if (e instanceof ApiError || e instanceof Unreachable) throw e;
      throw new Unreachable(ctl.signal.aborted ? 'sem resposta a tempo' : String(e));
    } finally {
      clearTimeout(timer);
    }
  }
  const call = <T>(method: string, path: string, body: unknown, timeoutMs: number) =>
    request(method, path, body, timeoutMs, async (res) => envelope<T>(res.status, await res.text()));

  return {
    pair: (token: string, nome: string, versao_app: string, timeoutMs = 10_000) =>
      call<{ chave: string; dispositivo: { id: number; nome: string }; tenant: string; data_local: string }>(
        'POST',
        '/api/handheld/parear',
        { token, nome, versao_app },
        timeoutMs,
      ),
    /** The day data: its rows and its text go to `sink` as they arrive; its head comes at the end. */
    dayData: (desde: string | null, sink: DaySink, timeoutMs = 60_000) =>
      request(
        'GET',
        `/api/handheld/dados${desde ? `?desde=${encodeURIComponent(desde)}` : ''}`,
        undefined,
        timeoutMs,
        async (res): Promise<DayHead> => {
          const read = await readDay(res, sink);
          if (read.head) return read.head;
          const data = envelope<DayData>(res.status, read.text);
          for (const kind of ['pedidos', 'lotes', 'pessoas', 'adicionais'] as const) sink.rows(data, kind, data[kind]);
          sink.text(data, read.text);
          return data;
        },
      ),
    checkin: (body: { id: string; codigo: string; operador: string }, timeoutMs: number) =>
      call<ScanAnswer>('POST', '/api/handheld/checkin', body, timeoutMs),
    upload: (itens: UploadItem[], timeoutMs = 30_000) =>
      call<{ itens: UploadItemAnswer[] }>(
        'POST',
        '/api/handheld/movimentos',
        { enviado_em: new Date().toISOString(), itens },
        timeoutMs,
      ),
    state: (
      body: { versao_app: string; dados_em: string | null; fila: number; decisoes_offline_hoje: number },
      timeoutMs = 3000,
    ) => call<{ data_local: string; agora: string; nome: string }>('PUT', '/api/handheld/estado', body, timeoutMs),
  };
}

export type Api = ReturnType<typeof createApi>;
