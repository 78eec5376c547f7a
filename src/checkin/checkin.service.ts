import type { Clock } from '../clock.js';
import type { ClockCheck } from '../clock-check.js';
import type { Db } from '../db/open.js';
import { CANNOT_RECORD, storageFailure, type StorageHealth } from '../db/storage.js';
import { AppError } from '../http/errors.js';
import type { Log } from '../lib/log.js';
import { loadOrders } from '../orders/order.payload.js';
import { createPedidoCache } from '../orders/pedido-cache.js';
import { checkInAdditional, checkInGroup, checkInOrder, checkInPerson } from './checkin.flows.js';
import type { OrderReader } from './checkin.payload.js';
import { createCheckinRepo } from './checkin.repo.js';
import { ADDITIONAL_QR_LENGTH, GROUP_QR, requestTarget } from './checkin.rules.js';
import { refuse, type Flow } from './flow.js';
import { enterGroup, enterPerson, exitGroup, exitPerson, exitUnknown } from './movement.flows.js';
import { PARK_AREA, type MovePolicy } from './movement.settings.js';
import type { CheckinResult, ReversalResult } from './result.js';
import { reverseAdditional, reverseMany, reversePerson } from './reversal.flows.js';

/** Who is asking and through which door ('api', 'lane', 'console'). */
export interface CheckinCaller {
  tenantId: number;
  apiKeyId: number | null;
  keyName: string | null;
  source: string;
}

export interface CheckinInput {
  qr_code?: string | null | undefined;
  numero_pedido?: string | null | undefined;
  terminal?: string | null | undefined;
  operador?: string | null | undefined;
  /** The reason given at the console for a reversal: kept in the event log. */
  motivo?: string | null | undefined;
}

export interface CheckinOptions<R, V> {
  /** false: qr_code is one scanned code, never a comma-separated batch (lanes, console scans). */
  batch?: boolean;
  /**
   * What the door wants to show of a granted result, built in the same transaction (the HTTP door
   * reads the order for the spec's payload; a lane asks for nothing).
   */
  view?: (result: Extract<R, { ok: true }>, order: OrderReader) => V;
}

/** One code's result, or one per code of a batch; `view` only for granted results when asked. */
export type Reply<R, V> =
  | { batch: false; result: R; view: V | undefined }
  | { batch: true; items: { code: string; result: R; view: V | undefined }[] };

export interface CheckinService {
  /** Check-in (4.1): a typed result per code; refusals are results, input mistakes throw AppError. */
  checkIn<V = undefined>(
    input: CheckinInput,
    caller: CheckinCaller,
    options?: CheckinOptions<CheckinResult, V>,
  ): Promise<Reply<CheckinResult, V>>;
  /** Reversal (4.2), same contract. */
  reverse<V = undefined>(
    input: CheckinInput,
    caller: CheckinCaller,
    options?: CheckinOptions<ReversalResult, V>,
  ): Promise<Reply<ReversalResult, V>>;
  /** An entry or exit scan at one of the box's own doors (movement.flows.ts): one code, never a batch. */
  move(input: CheckinInput, caller: CheckinCaller, policy: MovePolicy): Promise<CheckinResult>;
  /** People inside each area now (today, tenant-local); areas nobody is in are absent. */
  occupancy(tenantId: number): { area: string; inside: number }[];
}

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

/**
 * Codes of a batch committed together: about 1–2 ms of work with the order payloads, so other
 * check-ins get their turn between slices (and a batch is never one transaction, as before).
 */
const BATCH_SLICE = 10;

/** The one rule set for every door: HTTP routes, serial lanes and the console all call this. */
export function createCheckinService({
  db,
  clock,
  log,
  storage,
  onResult,
  clockCheck,
}: {
  db: Db;
  clock: Clock;
  log?: Log;
  storage?: StorageHealth;
  onResult?: (notice: ScanNotice) => void;
  clockCheck?: Pick<ClockCheck, 'eventMark'>;
}): CheckinService {
  const repo = createCheckinRepo(db);
  // What the HTTP door's answers repeat of an order, kept between its people's scans.
  const pedidos = createPedidoCache();
  const queue = db.writes;

  /** The write queue, with a database that cannot be written answered as SERVICE_UNAVAILABLE, not a 500. */
  const write = <T>(work: () => T, background = false): Promise<T> =>
    queue.run(work, { background }).then(
      (value) => {
        storage?.recovered();
        return value;
      },
      (err: unknown) => {
        const code = storageFailure(err);
        if (!code) throw err;
        storage?.record(err);
        throw new AppError('SERVICE_UNAVAILABLE', { motivo: code }, CANNOT_RECORD);
      },
    );
  const inSavepoint = db.sqlite.transaction((work: () => unknown) => work()) as <T>(work: () => T) => T;

  const flowFor = (input: CheckinInput, caller: CheckinCaller, area = PARK_AREA): Flow => {
    const now = clock.now();
    return {
      db,
      repo,
      clock,
      now: now.toISOString(),
      today: clock.localDate(now),
      relogio: clockCheck?.eventMark(now) ?? null,
      area,
      actor: Object.assign({}, caller, {
        terminal: input.terminal?.trim() || null,
        operador: input.operador?.trim() || null,
        motivo: input.motivo?.trim() || null,
      }),
    };
  };

  function checkInCode(f: Flow, code: string): CheckinResult {
    const tenant = f.actor.tenantId;
    const person = repo.personByQr(tenant, code);
    if (person) return checkInPerson(f, code, person);
    const order = GROUP_QR.test(code) ? repo.orderByNumero(tenant, code) : undefined;
    if (order) return checkInGroup(f, code, order);
    const additional = code.length === ADDITIONAL_QR_LENGTH ? repo.additionalByQr(tenant, code) : undefined;
    if (additional) return checkInAdditional(f, code, additional);
    return refuse(f, { action: 'checkin', mode: 'qr', code, qrCode: code }, 'TICKET_NOT_FOUND', { qr_code: code });
  }

  function reverseCode(f: Flow, code: string): ReversalResult {
    const tenant = f.actor.tenantId;
    const person = repo.personByQr(tenant, code);
    if (person) return reversePerson(f, code, person);
    const order = GROUP_QR.test(code) ? repo.orderByNumero(tenant, code) : undefined;
    if (order) return reverseMany(f, 'combo', code, order);
    const additional = code.length === ADDITIONAL_QR_LENGTH ? repo.additionalByQr(tenant, code) : undefined;
    if (additional) return reverseAdditional(f, code, additional);
    return refuse(
      f,
      { action: 'estorno', mode: 'qr', code, qrCode: code },
      repo.existsElsewhere(tenant, code) ? 'TENANT_MISMATCH' : 'TICKET_NOT_FOUND',
      { qr_code: code },
    );
  }

  function reverseOrder(f: Flow, numero: string): ReversalResult {
    const order = repo.orderByNumero(f.actor.tenantId, numero);
    if (!order)
      return refuse(f, { action: 'estorno', mode: 'pedido', code: numero, numeroPedido: numero }, 'ORDER_NOT_FOUND', {
        numero_pedido: numero,
      });
    return reverseMany(f, 'pedido', numero, order);
  }

  const notify = (
    action: ScanNotice['action'],
    input: CheckinInput,
    caller: CheckinCaller,
    results: (CheckinResult | ReversalResult)[],
    started: number,
  ) => {
    if (!onResult) return;
    const terminal = input.terminal?.trim() || null;
    const operador = input.operador?.trim() || null;
    const ms = Math.round((performance.now() - started) * 10) / 10;
    for (const result of results) {
      try {
        onResult({ action, tenantId: caller.tenantId, source: caller.source, terminal, operador, result, ms });
      } catch (err) {
        log?.error({ err }, 'scan listener failed');
      }
    }
  };

  async function execute<R extends CheckinResult | ReversalResult, V>(
    action: 'checkin' | 'estorno',
    input: CheckinInput,
    caller: CheckinCaller,
    flows: { code: (f: Flow, code: string) => R; order: (f: Flow, numero: string) => R },
    options: CheckinOptions<R, V>,
  ): Promise<Reply<R, V>> {
    const started = performance.now();
    const target = requestTarget(
      { qr_code: input.qr_code ?? undefined, numero_pedido: input.numero_pedido ?? undefined },
      options.batch ?? true,
    );
    const order: OrderReader = {
      record: (orderId) => loadOrders(db, [orderId], caller.apiKeyId)[0]!,
      checkinPedidoJson: (orderId) => pedidos.checkinPedidoJson(db, orderId, caller.apiKeyId),
    };
    const viewOf = (result: R) =>
      result.ok && options.view ? options.view(result as Extract<R, { ok: true }>, order) : undefined;
    if (target.kind === 'order' || target.codes.length === 1) {
      const reply = await write((): Reply<R, V> => {
        const f = flowFor(input, caller);
        const result = target.kind === 'order' ? flows.order(f, target.numero) : flows.code(f, target.codes[0]!);
        return { batch: false, result, view: viewOf(result) };
      });
      if (!reply.batch) notify(action, input, caller, [reply.result], started);
      return reply;
    }
    // Batch: sequential, each code in its own savepoint, so one failure does not undo the others;
    // a slice of codes per commit, so a scan at a turnstile never waits behind a whole batch.
    const items: { code: string; result: R; view: V | undefined }[] = [];
    for (let from = 0; from < target.codes.length; from += BATCH_SLICE) {
      const slice = target.codes.slice(from, from + BATCH_SLICE);
      // A batch of more than one slice is bulk work (an ERP, a back office): single scans go first.
      items.push(
        ...(await write(() => {
          const f = flowFor(input, caller);
          return slice.map((code) => {
            try {
              return inSavepoint(() => {
                const result = flows.code(f, code);
                return { code, result, view: viewOf(result) };
              });
            } catch (err) {
              // Nothing more can be written: the whole request fails with it (SERVICE_UNAVAILABLE).
              if (storageFailure(err)) throw err;
              log?.error({ err }, 'batch item failed');
              return { code, result: { ok: false, code: 'INTERNAL_ERROR' } as R, view: undefined };
            }
          });
        }, target.codes.length > BATCH_SLICE)),
      );
    }
    // A bulk batch (an ERP, a back office) is not streamed code by code: wording each result for the
    // consoles would hold the event loop as long as the batch itself.
    if (items.length <= BATCH_SLICE)
      notify(
        action,
        input,
        caller,
        items.map((i) => i.result),
        started,
      );
    return { batch: true, items };
  }

  function moveCode(f: Flow, code: string, policy: MovePolicy): CheckinResult {
    const tenant = f.actor.tenantId;
    const entry = policy.direction === 'entrada';
    const person = repo.personByQr(tenant, code);
    if (person) return entry ? enterPerson(f, code, person, policy) : exitPerson(f, code, person, policy);
    const order = GROUP_QR.test(code) ? repo.orderByNumero(tenant, code) : undefined;
    if (order) return entry ? enterGroup(f, code, order, policy) : exitGroup(f, code, order, policy);
    if (!entry) return exitUnknown(f, code, policy);
    const additional = code.length === ADDITIONAL_QR_LENGTH ? repo.additionalByQr(tenant, code) : undefined;
    if (additional) return checkInAdditional(f, code, additional);
    return refuse(f, { action: 'checkin', mode: 'qr', code, qrCode: code }, 'TICKET_NOT_FOUND', { qr_code: code });
  }

  return {
    checkIn: (input, caller, options = {}) =>
      execute('checkin', input, caller, { code: checkInCode, order: checkInOrder }, options),
    reverse: (input, caller, options = {}) =>
      execute('estorno', input, caller, { code: reverseCode, order: reverseOrder }, options),
    async move(input, caller, policy) {
      const started = performance.now();
      const target = requestTarget(
        { qr_code: input.qr_code ?? undefined, numero_pedido: input.numero_pedido ?? undefined },
        false,
      );
      const code = target.kind === 'order' ? target.numero : target.codes[0]!;
      const result = await write(() => moveCode(flowFor(input, caller, policy.area), code, policy));
      notify('movimento', input, caller, [result], started);
      return result;
    },
    occupancy: (tenantId) => repo.occupancy(tenantId, clock.today()),
  };
}
