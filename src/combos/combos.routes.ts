import type { FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { RouteRegistrar } from '../app.js';
import type { Caller } from '../auth/api-keys.js';
import type { Auth } from '../auth/auth.js';
import { addDays, daysBetween, type Clock } from '../clock.js';
import type { Db } from '../db/open.js';
import { AppError } from '../http/errors.js';
import { createRateLimiter } from '../http/rate-limit.js';
import { pageLimit, pageOffset, queryBoolean } from '../http/validation.js';
import { dateString } from '../lib/wire.js';
import type { AvailabilityAnswer, ComboListAnswer, ServedCombo } from './combo.answers.js';
import { availabilityDates, comboPayload } from './combo.payload.js';
import { availabilityDocs, comboDocs, comboListDocs } from './combos.docs.js';
import { comboItems, findCombo, listCombos, stockRows } from './combos.repo.js';

// Decisions on what the spec leaves open: docs/api-listings.md.
const PAGE_MAX = 100;
const PAGE_DEFAULT = 100;
const RATE_LIMIT = 100;
const RATE_WINDOW_MS = 60_000;
const RANGE_DEFAULT_DAYS = 30;
const RANGE_MAX_DAYS = 366;

const listQuery = z.object({
  destaque: queryBoolean.optional().describe('true: só destacados; false: só os outros; ausente: todos'),
  slug: z.string().trim().min(1, 'não pode ser vazio').max(200).optional().describe('Slug exato'),
  limit: pageLimit(PAGE_MAX, PAGE_DEFAULT).describe(`Combos por página: padrão e máximo ${PAGE_MAX}`),
  offset: pageOffset.describe('Combos a pular'),
});
const idParams = z.object({
  id: z
    .string()
    .trim()
    .min(1, 'informe o id ou o slug do combo')
    .max(200, 'longo demais')
    .describe('Id (uuid) ou slug do combo'),
});
const availabilityQuery = z.object({
  date_from: dateString.optional().describe('Primeiro dia (YYYY-MM-DD); padrão: hoje no fuso do parque'),
  date_to: dateString.optional().describe(`Último dia, inclusive; padrão: date_from + ${RANGE_DEFAULT_DAYS} dias`),
});

function rangeError(mensagem: string): AppError {
  return new AppError(
    'VALIDATION_ERROR',
    { campos: [{ campo: 'querystring.date_to', mensagem }] },
    `Parâmetros inválidos: querystring.date_to: ${mensagem}`,
  );
}

type ComboDeps = { db: Db; clock: Clock; auth: Auth };

/** The key check and rate limit every combo route runs first, and the reads they share. */
function comboAccess(deps: ComboDeps) {
  const { db, clock } = deps;
  // One limiter per box, shared by both path prefixes: the budget is per key, not per path.
  const limiter = createRateLimiter({ limit: RATE_LIMIT, windowMs: RATE_WINDOW_MS, clock });
  const callers = new WeakMap<FastifyRequest, Caller>();

  // Runs before validation, so an unauthenticated caller learns nothing about its parameters.
  const guard = async (request: FastifyRequest, reply: FastifyReply) => {
    const caller = deps.auth.integrationKey(request, 'integration:combos:read');
    const r = limiter.hit(`key:${caller.apiKeyId}`);
    reply
      .header('X-RateLimit-Limit', RATE_LIMIT)
      .header('X-RateLimit-Remaining', r.remaining)
      .header('X-RateLimit-Reset', r.resetSeconds);
    if (!r.allowed) {
      reply.header('Retry-After', r.resetSeconds);
      throw new AppError('RATE_LIMITED', {
        limite: RATE_LIMIT,
        janela_segundos: RATE_WINDOW_MS / 1000,
        tentar_novamente_em_segundos: r.resetSeconds,
      });
    }
    callers.set(request, caller);
  };
  const callerOf = (request: FastifyRequest) => {
    const caller = callers.get(request);
    if (!caller) throw new AppError('AUTH_ERROR');
    return caller;
  };
  // 7.3: a failure reading the data is QUERY_ERROR, not a generic INTERNAL_ERROR.
  const reading = <T>(request: FastifyRequest, read: () => T): T => {
    try {
      return read();
    } catch (error) {
      if (error instanceof AppError) throw error;
      request.log.error({ err: error, url: request.routeOptions.url }, 'combo query failed');
      throw new AppError('QUERY_ERROR');
    }
  };
  const found = (request: FastifyRequest, id: string) => {
    const combo = findCombo(db, callerOf(request).tenantId, id);
    if (!combo) throw new AppError('COMBO_NOT_FOUND');
    return combo;
  };
  return { guard, callerOf, reading, found };
}

export const comboRoutes = (deps: ComboDeps): RouteRegistrar => {
  const { db, clock } = deps;
  const { guard, callerOf, reading, found } = comboAccess(deps);
  const common = { tags: ['combos'], security: [{ integrationKey: [] }] };

  return (app) => {
    app.get(
      '/combos',
      {
        onRequest: guard,
        schema: { ...common, summary: 'Combos ativos', querystring: listQuery, docs: comboListDocs },
      },
      async (request) =>
        reading(request, () => {
          const { destaque, slug, limit, offset } = request.query;
          const { rows, total } = listCombos(
            db,
            { tenantId: callerOf(request).tenantId, destaque, slug },
            limit,
            offset,
          );
          const items = comboItems(
            db,
            rows.map((r) => r.id),
          );
          return {
            success: true,
            data: { combos: rows.map((r) => comboPayload(r, items.get(r.id) ?? [])), total, limit, offset },
          } satisfies ComboListAnswer;
        }),
    );

    app.get(
      '/combos/:id',
      {
        onRequest: guard,
        schema: { ...common, summary: 'Um combo por id ou slug', params: idParams, docs: comboDocs },
      },
      async (request) =>
        reading(request, () => {
          const combo = found(request, request.params.id);
          return { success: true, data: comboPayload(combo, comboItems(db, [combo.id]).get(combo.id) ?? []) };
        }),
    );

    app.get(
      '/combos/:id/availability',
      {
        onRequest: guard,
        schema: {
          ...common,
          summary: 'Disponibilidade por data',
          params: idParams,
          querystring: availabilityQuery,
          docs: availabilityDocs,
        },
      },
      async (request) =>
        reading(request, () => {
          const from = request.query.date_from ?? clock.today();
          const to = request.query.date_to ?? addDays(from, RANGE_DEFAULT_DAYS);
          if (to < from) throw rangeError(`deve ser igual ou posterior a date_from (${from})`);
          if (daysBetween(from, to) >= RANGE_MAX_DAYS)
            throw rangeError(`o período pode ter no máximo ${RANGE_MAX_DAYS} dias`);
          const combo = found(request, request.params.id);
          const items = comboItems(db, [combo.id]).get(combo.id) ?? [];
          return {
            success: true,
            data: {
              combo_id: combo.combo_id,
              combo_nome: combo.nome,
              modo_qrcode: combo.modo_qrcode as ServedCombo['modo_qrcode'],
              total_ingressos: combo.total_ingressos,
              requer_data: combo.requer_data === 1,
              dates: availabilityDates(items, stockRows(db, combo.id, from, to), from, to),
            },
            timestamp: clock.nowIso(),
          } satisfies AvailabilityAnswer;
        }),
    );
  };
};
