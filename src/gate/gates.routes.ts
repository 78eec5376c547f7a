import { z } from 'zod';
import type { RouteRegistrar } from '../app.js';
import type { Auth } from '../auth/auth.js';
import { guard } from '../auth/guard.js';
import type { LaneEventKind } from '../db/schema.js';
import type { CheckinService } from '../checkin/checkin.service.js';
import { occupancyPayload } from '../checkin/occupancy.payload.js';
import { pageLimit } from '../http/validation.js';
import { gatesDocs, laneEventsDocs } from './gates.docs.js';
import { lanePayload } from './gates.payload.js';
import type { GatesInfo } from './lanes/gates.js';

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
