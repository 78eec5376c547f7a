import { createContext } from 'preact';
import { useContext, useEffect, useRef } from 'preact/hooks';
import { api, ApiError, NO_CONNECTION } from './api';

// The console's line to the box: the event stream (GET /api/console/eventos) and what the console
// concludes from it. A lost stream, a failed request or a failed ping marks the box unreachable at
// once; the console then retries with backoff by itself and, back online, bumps `generation` so the
// open screen fetches its data again.

export type LiveEventType =
  'pronto' | 'leitura' | 'pedidos_lidos' | 'pistas' | 'alarme' | 'alarme_reconhecido' | 'sync' | 'site' | 'modo_site';
const EVENT_TYPES: LiveEventType[] = [
  'pronto',
  'leitura',
  'pedidos_lidos',
  'pistas',
  'alarme',
  'alarme_reconhecido',
  'sync',
  'site',
  'modo_site',
];

export interface LiveStatus {
  /** null while the first connection is being made. */
  online: boolean | null;
  /** Counts reconnections after a loss: screens refetch when it changes. */
  generation: number;
}

type Handler = (data: unknown) => void;

export interface Live {
  status(): LiveStatus;
  onStatus(fn: (s: LiveStatus) => void): () => void;
  on(type: LiveEventType, fn: Handler): () => void;
  /** Something other than the stream saw the box fail to answer. */
  unreachable(): void;
  stop(): void;
}

const PING_EVERY_MS = 15_000;
const PING_TIMEOUT_MS = 5_000;
const backoffMs = (attempt: number) => Math.min(500 * 2 ** attempt, 10_000);

export function startLive(opts: { sessionLost: () => void }): Live {
  let status: LiveStatus = { online: null, generation: 0 };
  let source: EventSource | null = null;
  let retry: ReturnType<typeof setTimeout> | undefined;
  let attempt = 0;
  let lostOnce = false;
  let stopped = false;
  const statusListeners = new Set<(s: LiveStatus) => void>();
  const handlers = new Map<LiveEventType, Set<Handler>>();

  const setStatus = (next: LiveStatus) => {
    if (next.online === status.online && next.generation === status.generation) return;
    status = next;
    for (const fn of statusListeners) fn(status);
  };

  function lost(): void {
    if (stopped) return;
    source?.close();
    source = null;
    lostOnce = true;
    setStatus({ ...status, online: false });
    if (retry === undefined) schedule();
  }

  function schedule(): void {
    retry = setTimeout(() => {
      retry = undefined;
      void reconnect();
    }, backoffMs(attempt++));
  }

  // Ask for the session first: it tells an unreachable box from an expired session.
  async function reconnect(): Promise<void> {
    try {
      await api('GET', '/api/console/sessao');
    } catch (err) {
      if (err instanceof ApiError && err.code !== NO_CONNECTION && err.status === 401) return opts.sessionLost();
      if (retry === undefined && !stopped) schedule();
      return;
    }
    open();
  }

  function open(): void {
    if (stopped) return;
    clearTimeout(retry);
    retry = undefined;
    source?.close();
    const es = new EventSource('/api/console/eventos');
    source = es;
    es.onerror = () => {
      if (source === es) lost();
    };
    for (const type of EVENT_TYPES) {
      es.addEventListener(type, (e) => {
        if (type === 'pronto') {
          attempt = 0;
          setStatus({ online: true, generation: status.generation + (lostOnce ? 1 : 0) });
          lostOnce = false;
        }
        let data: unknown;
        try {
          data = JSON.parse((e as MessageEvent<string>).data);
        } catch {
          data = null;
        }
        for (const fn of handlers.get(type) ?? []) fn(data);
      });
    }
  }

  // The stream's comment lines are invisible to scripts: a silent drop is caught by this ping.
  const ping = setInterval(() => {
    if (status.online !== true) return;
    fetch('/console/app.css', {
      method: 'HEAD',
      cache: 'no-store',
      signal: AbortSignal.timeout(PING_TIMEOUT_MS),
    }).catch(() => lost());
  }, PING_EVERY_MS);

  open();
  return {
    status: () => status,
    onStatus(fn) {
      statusListeners.add(fn);
      return () => statusListeners.delete(fn);
    },
    on(type, fn) {
      let set = handlers.get(type);
      if (!set) handlers.set(type, (set = new Set()));
      set.add(fn);
      return () => set.delete(fn);
    },
    unreachable: () => {
      if (status.online !== false) lost();
    },
    stop() {
      stopped = true;
      clearInterval(ping);
      clearTimeout(retry);
      source?.close();
    },
  };
}

export const LiveContext = createContext<{ live: Live | null; status: LiveStatus }>({
  live: null,
  status: { online: null, generation: 0 },
});

/** The current connection status (re-renders on change). */
export const useLiveStatus = () => useContext(LiveContext).status;

/** Calls `fn` for each event of `type` while the component is mounted. */
export function useLiveEvent<T>(type: LiveEventType, fn: (data: T) => void): void {
  const { live } = useContext(LiveContext);
  const ref = useRef(fn);
  ref.current = fn;
  useEffect(() => live?.on(type, (d) => ref.current(d as T)), [live, type]);
}
