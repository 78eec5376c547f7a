import type { FastifyBaseLogger } from 'fastify';
import type { Clock } from '../clock.js';
import type { Db } from '../db/open.js';
import { AppError } from '../http/errors.js';
import { checkInAdditional, checkInGroup, checkInOrder, checkInPerson } from './checkin.flows.js';
import { createCheckinRepo } from './checkin.repo.js';
import { ADDITIONAL_QR_LENGTH, GROUP_QR, batchMessage, requestTarget } from './checkin.rules.js';
import { refuse, type Flow, type Outcome } from './flow.js';
import { reverseAdditional, reverseMany, reversePerson } from './reversal.flows.js';
import { createWriteQueue } from './write-queue.js';

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
}

export interface CheckinOptions {
  /** false: qr_code is one scanned code, never a comma-separated batch (lanes, console scans). */
  batch?: boolean;
}

export interface CheckinService {
  /** POST check-in (4.1): resolves to the spec's `data`; throws AppError for a refused single code. */
  checkIn(input: CheckinInput, caller: CheckinCaller, options?: CheckinOptions): Promise<Record<string, unknown>>;
  /** PATCH reversal (4.2), same contract. */
  reverse(input: CheckinInput, caller: CheckinCaller, options?: CheckinOptions): Promise<Record<string, unknown>>;
}

/** The one rule set for every door: HTTP routes, serial lanes and the console all call this. */
export function createCheckinService({ db, clock, log }: { db: Db; clock: Clock; log?: FastifyBaseLogger }): CheckinService {
  const { sqlite, kysely: k } = db;
  const repo = createCheckinRepo(sqlite, k);
  const queue = createWriteQueue(sqlite);
  const inSavepoint = sqlite.transaction((work: () => Outcome) => work());

  const flowFor = (input: CheckinInput, caller: CheckinCaller): Flow => {
    const now = clock.now();
    return {
      sqlite,
      k,
      repo,
      clock,
      now: now.toISOString(),
      today: clock.localDate(now),
      actor: { ...caller, terminal: input.terminal?.trim() || null, operador: input.operador?.trim() || null },
    };
  };

  function checkInCode(f: Flow, code: string): Outcome {
    const tenant = f.actor.tenantId;
    const person = repo.personByQr(tenant, code);
    if (person) return checkInPerson(f, code, person);
    const order = GROUP_QR.test(code) ? repo.orderByNumero(tenant, code) : undefined;
    if (order) return checkInGroup(f, code, order);
    const additional = code.length === ADDITIONAL_QR_LENGTH ? repo.additionalByQr(tenant, code) : undefined;
    if (additional) return checkInAdditional(f, code, additional);
    return refuse(f, { action: 'checkin', mode: 'qr', code, qrCode: code }, new AppError('TICKET_NOT_FOUND', { qr_code: code }));
  }

  function reverseCode(f: Flow, code: string): Outcome {
    const tenant = f.actor.tenantId;
    const person = repo.personByQr(tenant, code);
    if (person) return reversePerson(f, code, person);
    const order = GROUP_QR.test(code) ? repo.orderByNumero(tenant, code) : undefined;
    if (order) return reverseMany(f, 'combo', code, order);
    const additional = code.length === ADDITIONAL_QR_LENGTH ? repo.additionalByQr(tenant, code) : undefined;
    if (additional) return reverseAdditional(f, code, additional);
    const error = repo.existsElsewhere(tenant, code) ? new AppError('TENANT_MISMATCH', { qr_code: code }) : new AppError('TICKET_NOT_FOUND', { qr_code: code });
    return refuse(f, { action: 'estorno', mode: 'qr', code, qrCode: code }, error);
  }

  function reverseOrder(f: Flow, numero: string): Outcome {
    const order = repo.orderByNumero(f.actor.tenantId, numero);
    if (!order) return refuse(f, { action: 'estorno', mode: 'pedido', code: numero, numeroPedido: numero }, new AppError('ORDER_NOT_FOUND', { numero_pedido: numero }));
    return reverseMany(f, 'pedido', numero, order);
  }

  /** Batch: sequential, each code in its own savepoint; HTTP 200 with one result per code. */
  function batch(f: Flow, codes: string[], perCode: (f: Flow, code: string) => Outcome, verb: string): Outcome {
    const resultados = codes.map((code) => {
      let o: Outcome;
      try {
        o = inSavepoint(() => perCode(f, code));
      } catch (err) {
        log?.error({ err }, 'batch item failed');
        o = { ok: false, error: new AppError('INTERNAL_ERROR') };
      }
      return o.ok ? { ...o.data, qr_code: code, success: true, status: 200 } : { qr_code: code, success: false, status: o.error.status, error: o.error.toBody() };
    });
    const ok = resultados.filter((r) => r.success).length;
    return {
      ok: true,
      data: { message: batchMessage(ok, codes.length - ok, verb), total_enviados: codes.length, total_sucesso: ok, total_falha: codes.length - ok, resultados },
    };
  }

  async function execute(input: CheckinInput, caller: CheckinCaller, action: 'checkin' | 'estorno', options: CheckinOptions = {}): Promise<Record<string, unknown>> {
    const target = requestTarget({ qr_code: input.qr_code ?? undefined, numero_pedido: input.numero_pedido ?? undefined }, options.batch ?? true);
    const perCode = action === 'checkin' ? checkInCode : reverseCode;
    const outcome = await queue.run(() => {
      const f = flowFor(input, caller);
      if (target.kind === 'order') return action === 'checkin' ? checkInOrder(f, target.numero) : reverseOrder(f, target.numero);
      if (target.codes.length === 1) return perCode(f, target.codes[0]!);
      return batch(f, target.codes, perCode, action === 'checkin' ? 'check-in(s)' : 'estorno(s)');
    });
    if (!outcome.ok) throw outcome.error;
    return outcome.data;
  }

  return {
    checkIn: (input, caller, options) => execute(input, caller, 'checkin', options),
    reverse: (input, caller, options) => execute(input, caller, 'estorno', options),
  };
}
