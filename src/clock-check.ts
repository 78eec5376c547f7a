import type { Clock } from './clock.js';
import type { Db } from './db/open.js';
import { all, first } from './db/query.js';

// Is the box's clock believable? It decides "today" for every scan, and after a power cut with no
// network a board without a working RTC battery can start in the past (docs/operations.md, "Clock").
// Two witnesses, both kept in memory so that a scan only compares numbers:
// - the newest event already recorded: a clock earlier than it went backwards;
// - the cloud's `Date` header, carried forward by the monotonic clock, so that a later jump of the
//   wall clock (or an operator fixing it) shows without waiting for the next answer.

/** How far before the newest event "now" may be: events are stamped before the write queue orders them. */
export const BACKWARDS_TOLERANCE_MS = 60_000;
/**
 * How far from the cloud's time the clock may be: NTP keeps it within milliseconds, a lost RTC is off by hours or
 * years.
 */
export const CLOUD_SKEW_LIMIT_MS = 120_000;

export type ClockReason = 'atrasado_em_relacao_ao_ultimo_evento' | 'diferenca_da_nuvem';

export interface ClockState {
  suspeito: boolean;
  motivo: ClockReason | null;
  /** What the box's clock says. */
  agora: string;
  /** The newest event recorded (events and lanes' events), once the clock is earlier than it. */
  ultimo_evento_em: string | null;
  /** Box minus cloud, in whole seconds, the smallest the last reading allows; null before one. */
  diferenca_nuvem_segundos: number | null;
  /** When (box time) the cloud's clock was last read. */
  nuvem_lida_em: string | null;
}

export interface ClockCheck {
  /**
   * Why an event stamped `at` is written under a suspect clock, or null; `at` becomes the newest
   * event when later. Called once per check-in flow: no query.
   */
  eventMark(at: Date): ClockReason | null;
  /** A cloud answer's `Date` header, read as its headers arrived, `latencyMs` after the request left. */
  cloudDate(header: string | undefined, latencyMs: number): void;
  state(): ClockState;
}

export interface ClockCheckOptions {
  db: Db;
  clock: Clock;
  /** Milliseconds that only go forward (performance.now); injected by tests. */
  monotonic?: () => number;
  toleranceMs?: number;
  skewLimitMs?: number;
}

/** The newest instant among recorded events: one indexed lookup per tenant, at start only. */
export function newestEventAt(db: Db): number | null {
  const k = db.kysely;
  const perTenant = all(
    db,
    k.selectFrom('tenants as t').select((eb) =>
      eb
        .selectFrom('events as e')
        .select((e) => e.fn.max('e.occurred_at').as('m'))
        .whereRef('e.tenant_id', '=', 't.id')
        .as('m'),
    ),
  ).map((r) => r.m);
  // Lanes' events are appended in time order: the last row is the newest.
  const lane = first(db, k.selectFrom('lane_events').select('occurred_at').orderBy('id', 'desc').limit(1))?.occurred_at;
  const ms = [...perTenant, lane]
    .filter((t): t is string => typeof t === 'string')
    .map((t) => Date.parse(t))
    .filter((t) => !Number.isNaN(t));
  return ms.length === 0 ? null : Math.max(...ms);
}

export function createClockCheck({
  db,
  clock,
  monotonic = () => performance.now(),
  toleranceMs = BACKWARDS_TOLERANCE_MS,
  skewLimitMs = CLOUD_SKEW_LIMIT_MS,
}: ClockCheckOptions): ClockCheck {
  let newest = newestEventAt(db);
  // At monotonic time m the cloud's clock reads within [m + base, m + base + width].
  let cloud: { base: number; width: number; at: string } | null = null;

  /** Box minus cloud: the smallest difference the last reading allows. */
  const skewMs = (nowMs: number): number | null => {
    if (!cloud) return null;
    const low = monotonic() + cloud.base;
    const high = low + cloud.width;
    return nowMs > high ? nowMs - high : nowMs < low ? nowMs - low : 0;
  };
  const behind = (nowMs: number) => newest !== null && nowMs < newest - toleranceMs;
  const reason = (nowMs: number, skew = skewMs(nowMs)): ClockReason | null =>
    skew !== null && Math.abs(skew) > skewLimitMs
      ? 'diferenca_da_nuvem'
      : behind(nowMs)
        ? 'atrasado_em_relacao_ao_ultimo_evento'
        : null;

  return {
    eventMark(at) {
      const ms = at.getTime();
      const why = reason(ms);
      if (newest === null || ms > newest) newest = ms;
      return why;
    },
    cloudDate(header, latencyMs) {
      const date = header === undefined ? NaN : Date.parse(header);
      if (Number.isNaN(date)) return;
      const now = clock.now().getTime();
      // The cloud stamped its answer between the request leaving and the headers arriving, in whole
      // seconds: its time now is at least `date` and less than `date` + 1 s + the latency.
      cloud = { base: date - monotonic(), width: 1000 + Math.max(0, latencyMs), at: new Date(now).toISOString() };
      // The cloud vouches for the clock: an event stamped later than now was stamped by a clock that was ahead.
      if (Math.abs(skewMs(now)!) <= skewLimitMs && newest !== null && newest > now) newest = now;
    },
    state() {
      const now = clock.now();
      const ms = now.getTime();
      const skew = skewMs(ms);
      const why = reason(ms, skew);
      return {
        suspeito: why !== null,
        motivo: why,
        agora: now.toISOString(),
        ultimo_evento_em: behind(ms) ? new Date(newest!).toISOString() : null,
        diferenca_nuvem_segundos: skew === null ? null : Math.trunc(skew / 1000),
        nuvem_lida_em: cloud?.at ?? null,
      };
    },
  };
}

/** The state in Portuguese, for an operator reading /health/ready or the journal. */
export function describeClock(s: ClockState): string {
  if (s.motivo === 'atrasado_em_relacao_ao_ultimo_evento')
    return `relógio da caixa (${s.agora}) está antes do último evento registrado (${s.ultimo_evento_em}): acerte a hora (NTP ou RTC)`;
  if (s.motivo === 'diferenca_da_nuvem')
    return `relógio da caixa difere ${Math.abs(s.diferenca_nuvem_segundos ?? 0)} s da nuvem (${(s.diferenca_nuvem_segundos ?? 0) > 0 ? 'adiantado' : 'atrasado'}): acerte a hora (NTP ou RTC)`;
  return 'relógio ok';
}
