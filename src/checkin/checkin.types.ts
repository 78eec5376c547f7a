import type { Clock } from '../clock.js';
import type { ClockCheck } from '../clock-check.js';
import type { Db } from '../db/open.js';
import type { StorageHealth } from '../db/storage.js';
import type { Log } from '../lib/log.js';
import type { CheckinResult, ReversalResult } from './result.js';

// The check-in service's words with its doors and its parts (checkin.service.ts, checkin.engine.ts).

/** Who is asking and through which door ('api', 'lane', 'console'). */
export interface CheckinCaller {
  tenantId: number;
  apiKeyId: number | null;
  keyName: string | null;
  source: string;
}

/** What a door asks about, in the domain's words (each door maps its own field names to these). */
export interface CheckinInput {
  /** One scanned code, or several separated by commas (a batch, when the options allow it). */
  code?: string | null | undefined;
  /** An order's number: every person of the order (exclusive with `code`). */
  orderNumber?: string | null | undefined;
  /** The device: a lane, a handheld, a console station. */
  terminal?: string | null | undefined;
  /** Who operates it. */
  operator?: string | null | undefined;
  /** Why, when the door asks for one (a reversal at the console): kept in the event log. */
  reason?: string | null | undefined;
}

export interface CheckinOptions<R, V> {
  /** false: `code` is one scanned code, never a comma-separated batch (lanes, console scans). */
  batch?: boolean;
  /**
   * What the door wants to show of a granted result, built in the same transaction (the HTTP door
   * reads the order for the spec's payload; a lane asks for nothing).
   */
  view?: (result: Extract<R, { ok: true }>) => V;
}

/** One code's result, or one per code of a batch; `view` only for granted results when asked. */
export type Reply<R, V> =
  | { batch: false; result: R; view: V | undefined }
  | { batch: true; items: { code: string; result: R; view: V | undefined }[] };

/** One result of any door, once it is committed: what the console's live view shows. */
export interface ScanNotice {
  action: 'checkin' | 'estorno' | 'movimento';
  tenantId: number;
  source: string;
  terminal: string | null;
  operador: string | null;
  result: CheckinResult | ReversalResult;
  /** From the door's call to the durable commit, in ms. */
  ms: number;
}

export interface CheckinDeps {
  db: Db;
  clock: Clock;
  log?: Log;
  storage?: StorageHealth;
  onResult?: (notice: ScanNotice) => void;
  clockCheck?: Pick<ClockCheck, 'eventMark'>;
  /** How long a slice of a batch may take before the rest goes to the next (checkin.engine.ts); tests shrink it. */
  batchPieceMs?: number;
}

/**
 * The site link's hold on every decision of the core (src/site/): it runs `work` (one decision, which writes its
 * events in a transaction of the write queue) so that the other boxes agree before any door is answered, and
 * falls back to `write` alone when the hub is away.
 */
export interface SiteDecisions {
  /** `trial`: the same decision without what only the answer needs (the order's payload), to learn what it moves. */
  decide<T>(work: () => T, write: <U>(work: () => U) => Promise<U>, trial?: () => unknown): Promise<T>;
}
