import { z } from 'zod';
import type { RouteRegistrar } from '../app.js';
import type { Auth } from '../auth/auth.js';
import { guard } from '../auth/guard.js';
import type { LaneEventKind } from '../db/schema.js';
import type { CheckinService } from '../checkin/checkin.service.js';
import { occupancyPayload } from '../checkin/movement.routes.js';
import { pageLimit } from '../http/validation.js';
import { gatesDocs, laneEventsDocs } from './gates.docs.js';
import { laneEventRow } from './lane-events.js';
import type { GateLaneStatus, GatesInfo } from './gates.js';

const KINDS = [
  'liberada',
  'negada',
  'passagem',
  'nao_passou',
  'carona',
  'incendio_inicio',
  'incendio_fim',
  'dispositivo_offline',
  'dispositivo_online',
] as const satisfies readonly LaneEventKind[];

const eventsQuery = z.object({
  apos_id: z.coerce
    .number({ message: 'deve ser um número' })
    .int('deve ser um número inteiro')
    .min(0, 'não pode ser negativo')
    .optional(),
  pista: z.string().trim().min(1).max(64).optional(),
  tipo: z.enum(KINDS, { message: `use ${KINDS.join(', ')}` }).optional(),
  limit: pageLimit(1000, 100),
});

export function lanePayload(l: GateLaneStatus) {
  const last = l.lastResult ? laneEventRow(l.lastResult) : null;
  return {
    nome: l.name,
    direcao: l.direction,
    area: l.area,
    operador: l.operador,
    sensor_passagem: l.passageSensor,
    falha_segura: l.failSafe,
    rele: {
      driver: l.relay.driver,
      porta: l.relay.path,
      online: l.relay.online,
      passagem_livre: l.relay.freePassage,
      visto_em: l.relay.lastSeenAt,
      problema: l.relay.problem,
      dispositivo: l.relay.device,
    },
    leitores: l.scanners.map((s) => ({
      porta: s.path,
      conectado: s.up,
      desde: s.since,
      reconexoes: s.reconnects,
      ultimo_erro: s.lastError,
    })),
    ultima_leitura: l.lastScan ? { codigo: l.lastScan.code, em: l.lastScan.at } : null,
    ultimo_resultado: last
      ? { tipo: last.kind, em: last.at, codigo: last.code ?? null, detalhes: last.details ?? null }
      : null,
    liberacoes_aguardando_passagem: l.pendingGrants,
    contadores: {
      leituras: l.counters.scans,
      ignoradas: l.counters.ignored,
      liberadas: l.counters.granted,
      negadas: l.counters.denied,
      passagens: l.counters.passed,
      nao_passaram: l.counters.notPassed,
      caronas: l.counters.tailgating,
      erros: l.counters.errors,
    },
  };
}

/** GET /api/local/gates and /api/local/gates/eventos: the lanes as the gate technician sees them (docs/lanes.md). */
export const gatesRoutes =
  (deps: { auth: Auth; gates: GatesInfo | undefined; checkin: CheckinService }): RouteRegistrar =>
  (app) => {
    const { onRequest, callerOf } = guard((request) => deps.auth.apiKey(request, ['local:read']));
    const common = { tags: ['local'], security: [{ apiKey: [] }] };
    // The lanes check in for one tenant; a key of another tenant sees none.
    const gatesOf = (tenantId: number) => (deps.gates?.tenantId === tenantId ? deps.gates : undefined);

    app.get(
      '/api/local/gates',
      { onRequest, schema: { ...common, summary: 'Pistas, leitores, relés e alarme de incêndio', docs: gatesDocs } },
      async (request) => {
        const info = gatesOf(callerOf(request).tenantId);
        if (!info)
          return {
            success: true,
            data: {
              configurado: false,
              alarme_incendio: null,
              pistas: [],
              mensagem: 'Nenhuma pista configurada (GATE_CONFIG) para este tenant.',
            },
          };
        const s = info.gates.status();
        return {
          success: true,
          data: {
            configurado: true,
            alarme_incendio: { ativo: s.fireAlarm.active, desde: s.fireAlarm.since, origens: s.fireAlarm.sources },
            ocupacao: occupancyPayload(deps.checkin, info.tenantId, info.settings),
            pistas: s.lanes.map(lanePayload),
          },
        };
      },
    );

    app.get(
      '/api/local/gates/eventos',
      {
        onRequest,
        schema: {
          ...common,
          summary: 'Eventos das pistas (passagens, caronas, incêndio, dispositivos)',
          querystring: eventsQuery,
          docs: laneEventsDocs,
        },
      },
      async (request) => {
        const info = gatesOf(callerOf(request).tenantId);
        const q = request.query;
        const eventos = info
          ? info.events.list({ afterId: q.apos_id, lane: q.pista, kind: q.tipo, limit: q.limit })
          : [];
        const data: Record<string, unknown> = { eventos, total: eventos.length };
        if (eventos.length === 0)
          data.mensagem = info
            ? 'Nenhum evento de pista para os filtros informados.'
            : 'Nenhuma pista configurada (GATE_CONFIG) para este tenant.';
        return { success: true, data };
      },
    );
  };
