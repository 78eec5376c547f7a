import { z } from 'zod';
import type { RouteRegistrar } from '../app.js';
import { CHECKIN_PERMISSIONS, type Auth } from '../auth/auth.js';
import { guard } from '../auth/guard.js';
import { AppError } from '../http/errors.js';
import { asHttp } from './checkin.errors.js';
import type { CheckinService } from './checkin.service.js';
import { exitDocs, occupancyDocs } from './movement.docs.js';
import { occupancyPayload } from './occupancy.payload.js';
import { areaName, PARK_AREA, type MovementSettings, type MovePolicy } from './movement.settings.js';
import { MAX_CODE_LENGTH } from './rules/index.js';

// The box's own movement doors for people with a handheld (docs/api.md, "Movements"): an exit
// (POST /api/local/saida; entries are the spec's check-in) and the occupancy of each area.

const exitBody = z.preprocess(
  (b) => b ?? {},
  z.object({
    qr_code: z
      .string()
      .trim()
      .min(1, 'informe qr_code')
      .max(MAX_CODE_LENGTH)
      .describe('QR de pessoa ou QR de combo (YYYYMMDD-NNNN): um código'),
    terminal: z.string().max(200).nullish().describe('Identificador do dispositivo'),
    operador: z.string().max(200).nullish().describe('Nome do operador'),
    area: areaName.optional().describe(`Área de onde a pessoa sai (padrão: ${PARK_AREA})`),
  }),
);

export const movementRoutes =
  (deps: { auth: Auth; checkin: CheckinService; settingsOf: (tenantId: number) => MovementSettings }): RouteRegistrar =>
  (app) => {
    const exits = guard((request) => deps.auth.apiKey(request, CHECKIN_PERMISSIONS));
    const reads = guard((request) => deps.auth.apiKey(request, ['local:read']));
    const common = { tags: ['local'], security: [{ apiKey: [] }] };

    app.post(
      '/api/local/saida',
      {
        onRequest: exits.onRequest,
        schema: {
          ...common,
          summary: 'Saída de uma pessoa ou grupo (nunca um check-in)',
          body: exitBody,
          docs: exitDocs,
        },
      },
      async (request) => {
        const c = exits.callerOf(request);
        const body = request.body;
        const settings = deps.settingsOf(c.tenantId);
        const policy: MovePolicy = {
          direction: 'saida',
          area: body.area ?? PARK_AREA,
          reentrada: settings.reentrada,
          saidaSemEntrada: settings.saidaSemEntrada,
          capacity: null,
        };
        const result = await asHttp(
          deps.checkin.move(
            { code: body.qr_code, terminal: body.terminal, operator: body.operador },
            { tenantId: c.tenantId, apiKeyId: c.apiKeyId, keyName: c.keyName, source: 'api' },
            policy,
          ),
        );
        if (!result.ok) throw new AppError(result.code, result.details);
        return {
          success: true,
          data: {
            message: result.withoutEntry
              ? 'Saída liberada sem entrada registrada hoje.'
              : `Saída registrada: ${result.people.length} pessoa(s).`,
            movimento: result.movement,
            sem_entrada: result.withoutEntry,
            area: policy.area,
            em: result.at,
            numero_pedido: result.numeroPedido,
            pessoas: result.people.map((p) => ({ qr_code: p.qrCode, nome: p.nome })),
          },
        };
      },
    );

    app.get(
      '/api/local/ocupacao',
      {
        onRequest: reads.onRequest,
        schema: { ...common, summary: 'Pessoas dentro de cada área agora', docs: occupancyDocs },
      },
      async (request) => {
        const tenantId = reads.callerOf(request).tenantId;
        return { success: true, data: { areas: occupancyPayload(deps.checkin, tenantId, deps.settingsOf(tenantId)) } };
      },
    );
  };
