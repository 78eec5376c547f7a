import { needsPairing, Unreachable, type Api } from './api.js';
import type { DayData } from '../handheld.schemas.js';
import { applyDayData, emptyDay, localDate, upsertRows, type DayIndex } from './decide.js';
import type { DayStage } from './day-store.js';
import type { DayKind, DaySink } from './day-stream.js';
import type { Link, Mode } from './link.js';
import { batches, settle } from './queue.js';
import type { Store } from './store.js';

// What the app does with the box besides a scan: the heartbeat (also the probe that brings it back online), the
// day data's deltas, and the queue's upload. Every call feeds the link, which switches online/offline by itself.

export const APP_VERSION = '1.0.0';

export interface Locks {
  request(name: string, opts: { ifAvailable: boolean }, fn: (lock: unknown) => Promise<void>): Promise<void>;
}

/** What the engine shares with this part: its state's few fields and how to change them. */
export interface SyncCtx {
  store: Store;
  api: Api;
  link: Link;
  timeZone: string;
  now: () => Date;
  locks: Locks | undefined;
  paired(): boolean;
  fila(): number;
  day(): DayIndex | null;
  setDay(day: DayIndex): void;
  revoked(): void;
  /** The link's mode or a count changed: tell the page. */
  changed(patch?: { fila?: number; recusados?: number; boxNome?: string }): void;
}

export function createBoxSync(ctx: SyncCtx) {
  const { store, api, link } = ctx;
  const today = () => localDate(ctx.now(), ctx.timeZone);

  /** Runs a call to the box, feeding the link; null when it did not answer or the key no longer opens it. */
  async function reach<T>(kind: 'scan' | 'heartbeat', call: () => Promise<T>): Promise<T | null> {
    const before: Mode = link.mode;
    try {
      const answer = await call();
      const after = link.answered(kind);
      ctx.changed();
      if (before === 'offline' && after === 'online')
        void refreshData()
          .then(upload)
          .catch(() => undefined);
      return answer;
    } catch (e) {
      if (needsPairing(e)) ctx.revoked();
      else if (e instanceof Unreachable) link.failed(kind);
      else throw e;
      ctx.changed();
      return null;
    }
  }

  /**
   * A whole day is indexed and written as it arrives, and becomes the app's day once stored whole. A delta's rows go
   * on top of the day once stored.
   */
  async function refreshData(): Promise<void> {
    if (!ctx.paired()) return;
    const day = ctx.day();
    const incoming = emptyDay();
    let staged: DayStage | undefined;
    const delta: Pick<DayData, DayKind> = { pessoas: [], pedidos: [], adicionais: [], lotes: [] };
    const sink: DaySink = {
      rows(head, kind, rows) {
        if (head.completo) upsertRows(incoming, { pessoas: [], adicionais: [], [kind]: rows });
        else for (const row of rows) (delta[kind] as unknown[]).push(row);
      },
      text(head, text) {
        if (head.completo) (staged ??= store.stageDay()).add(text);
      },
    };
    const head = await reach('scan', () => api.dayData(day && day.data_local === today() ? day.cursor : null, sink));
    if (!head) return;
    const { data_local, gerado_em, cursor } = head;
    if (head.completo) {
      if (!staged) throw new Error('dia sem texto');
      await staged.commit(head);
      ctx.setDay(Object.assign(incoming, { data_local, gerado_em, cursor }));
      return;
    }
    const data: DayData = { ...head, ...delta };
    await store.saveDelta(data);
    ctx.setDay(applyDayData(day, data));
  }

  /** The queue, 500 at a time, from one tab at a time (a Web Lock); the box is idempotent by id anyway. */
  async function upload(): Promise<void> {
    if (!ctx.paired() || link.mode !== 'online') return;
    const run = async () => {
      for (const part of batches(await store.queue())) {
        const answer = await reach('scan', () => api.upload(part));
        if (!answer) break;
        await store.settle(settle(part, answer.itens));
      }
      ctx.changed(await store.counts());
    };
    if (ctx.locks)
      await ctx.locks.request('gate-handheld-upload', { ifAvailable: true }, (lock) =>
        lock ? run() : Promise.resolve(),
      );
    else await run();
  }

  async function heartbeat(): Promise<void> {
    if (!ctx.paired()) return;
    const decisoes_offline_hoje = await store.offlineToday(today());
    const dados_em = ctx.day()?.gerado_em ?? null;
    const answer = await reach('heartbeat', () =>
      api.state({ versao_app: APP_VERSION, dados_em, fila: ctx.fila(), decisoes_offline_hoje }),
    );
    if (!answer) return;
    await store.set('box', answer);
    ctx.changed({ boxNome: answer.nome });
    if (link.mode === 'online' && ctx.fila() > 0) await upload();
  }

  return { reach, refreshData, upload, heartbeat };
}
