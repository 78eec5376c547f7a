import { MAX_CODE_LENGTH } from '../../checkin/rules/index.js';
import type { Api } from './api.js';
import { APP_VERSION, createBoxSync, type Locks } from './box-sync.js';
import type { DayIndex } from './decide.js';
import { createLink, type Mode } from './link.js';
import { createScanFlow, type AppConfig, type ScanResult } from './scan-flow.js';
import type { Device, Store } from './store.js';
import { wordFor } from './words.js';

export { APP_VERSION };
export type { AppConfig, ScanResult };

// The app's one controller: decides each scan (the box online within the timeout, else here on the day data),
// switches online/offline by itself, keeps the day data fresh, sends the heartbeat and uploads the queue.

export interface EngineState {
  device: Device | null;
  operador: string | null;
  /** The last operator, offered at the next shift's start. */
  ultimoOperador: string | null;
  mode: Mode;
  revoked: boolean;
  fila: number;
  recusados: number;
  dados: { data_local: string; gerado_em: string } | null;
  last: ScanResult | null;
  boxNome: string | null;
}

/** The device's decisions, one at a time across its tabs (docs/handheld.md, "One decision per device"). */
export const DECISION_LOCK = 'gate-handheld-decisao';
export interface DecisionLock {
  request<T>(name: string, fn: () => Promise<T>): Promise<T>;
}

const exclusive = <T>(lock: DecisionLock | undefined, fn: () => Promise<T>): Promise<T> =>
  lock ? lock.request(DECISION_LOCK, fn) : fn();

const HEARTBEAT_ONLINE_MS = 10_000;
const HEARTBEAT_OFFLINE_MS = 1000;
const DATA_POLL_MS = 5000;

const FIRST: EngineState = {
  device: null,
  operador: null,
  ultimoOperador: null,
  mode: 'online',
  revoked: false,
  fila: 0,
  recusados: 0,
  dados: null,
  last: null,
  boxNome: null,
};

/** What the device kept from its last session. */
async function keptState(store: Store): Promise<Pick<EngineState, 'device' | 'operador' | 'ultimoOperador'>> {
  const [device, operador, ultimo] = await Promise.all([
    store.get<Device>('dispositivo'),
    store.get<string>('operador'),
    store.get<string>('ultimo_operador'),
  ]);
  return { device: device ?? null, operador: operador ?? null, ultimoOperador: ultimo ?? null };
}

const refusedHere = (codigo: string, resultado: string, at: Date): ScanResult => ({
  codigo: codigo.slice(0, 64),
  resultado,
  mensagem: wordFor(resultado),
  noAparelho: true,
  nome: null,
  pessoas: 0,
  ingressos: [],
  em: at.toISOString(),
});

const deviceOf = (a: Awaited<ReturnType<Api['pair']>>, at: Date): Device => ({
  chave: a.chave,
  id: a.dispositivo.id,
  nome: a.dispositivo.nome,
  tenant: a.tenant,
  origem: location.origin,
  pareado_em: at.toISOString(),
});

/** Runs `fn` again `every()` ms after each run ends, until the returned stop is called. */
function repeat(fn: () => Promise<void>, every: () => number): () => void {
  let stopped = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const tick = async () => {
    await fn().catch(() => undefined);
    if (!stopped) timer = setTimeout(tick, every());
  };
  timer = setTimeout(tick, every());
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}

export function createEngine(deps: {
  store: Store;
  api: Api;
  config: AppConfig;
  now?: () => Date;
  newId?: () => string;
  locks?: Locks;
  /** Web Locks: exclusive across the tabs of this browser profile (navigator.locks). */
  decisionLock?: DecisionLock;
}) {
  const { store, api, config } = deps;
  const now = deps.now ?? (() => new Date());
  const newId = deps.newId ?? (() => crypto.randomUUID());
  const link = createLink();
  let day: DayIndex | null = null;
  const listeners = new Set<(s: EngineState) => void>();
  let state = FIRST;
  const stops: (() => void)[] = [];

  const set = (patch: Partial<EngineState>) => {
    state = { ...state, ...patch, mode: link.mode };
    for (const l of listeners) l(state);
  };
  const setDay = (d: DayIndex | null) => {
    day = d;
    set({ dados: d ? { data_local: d.data_local, gerado_em: d.gerado_em } : null });
  };
  const sync = createBoxSync({
    store,
    api,
    link,
    timeZone: config.fusoHorario,
    now,
    locks: deps.locks ?? (typeof navigator !== 'undefined' ? navigator.locks : undefined),
    paired: () => !!state.device && !state.revoked,
    fila: () => state.fila,
    day: () => day,
    setDay,
    revoked: () => set({ revoked: true }),
    changed: (patch = {}) => set(patch),
  });
  const show = (r: ScanResult) => (set({ last: r }), r);
  const loop = (fn: () => Promise<void>, every: () => number) => stops.push(repeat(fn, every));

  const decider = createScanFlow({
    store,
    api,
    config,
    now,
    reach: sync.reach,
    day: () => day,
    show,
    counted: async () => set(await store.counts()),
  });

  return {
    get state() {
      return state;
    },
    subscribe(fn: (s: EngineState) => void) {
      listeners.add(fn);
      fn(state);
      return () => listeners.delete(fn);
    },

    async start() {
      const kept = await keptState(store);
      set(kept);
      setDay(await store.loadDay());
      set(await store.counts());
      loop(sync.heartbeat, () => (link.mode === 'online' ? HEARTBEAT_ONLINE_MS : HEARTBEAT_OFFLINE_MS));
      loop(
        async () => (link.mode === 'online' ? sync.refreshData() : undefined),
        () => DATA_POLL_MS,
      );
      if (kept.device) void sync.heartbeat().then(sync.refreshData);
    },

    stop() {
      for (const stop of stops.splice(0)) stop();
    },

    async pair(token: string, nome: string) {
      const device = deviceOf(await api.pair(token, nome, APP_VERSION), now());
      await store.set('dispositivo', device);
      set({ device, revoked: false });
      // The queue kept through a revocation goes up under the new key.
      await sync.refreshData();
      await sync.upload();
    },

    async setOperator(nome: string) {
      await store.set('operador', nome);
      await store.set('ultimo_operador', nome);
      set({ operador: nome, ultimoOperador: nome });
    },

    async endShift() {
      await store.forget('operador');
      set({ operador: null });
    },

    /** A scan read at `startedAt` (performance.now() of its input). */
    async scan(codigo: string, startedAt = performance.now()): Promise<ScanResult | null> {
      const operador = state.operador;
      if (!state.device || !operador) return null;
      if (codigo.length > MAX_CODE_LENGTH)
        return show({ ...refusedHere(codigo, 'CODIGO_LONGO', now()), noAparelho: false });
      const id = newId();
      // One decision at a time on this device, whatever tab scans: the tabs share its storage and its pairing.
      return exclusive(deps.decisionLock, () =>
        decider.scan({ id, codigo, operador, startedAt, online: link.mode === 'online' && !state.revoked }),
      );
    },

    refused: () => store.refused(),
    queue: () => store.queue(),
    upload: () => sync.upload(),
  };
}

export type Engine = ReturnType<typeof createEngine>;
