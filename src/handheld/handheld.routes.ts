import { Readable } from 'node:stream';
import type { FastifyRequest } from 'fastify';
import type { App, RouteRegistrar } from '../app.js';
import { guard } from '../auth/guard.js';
import { asHttp } from '../checkin/checkin.errors.js';
import type { Clock } from '../clock.js';
import type { Db } from '../db/open.js';
import { AppError } from '../http/errors.js';
import { JSON_TYPE } from '../http/send-bytes.js';
import { dayDataParts } from './day-data.js';
import { handheldDocs as docs } from './handheld.docs.js';
import { checkDeviceKey, pairDevice, recordDeviceState, type Device } from './devices.repo.js';
import type { HandheldService } from './handheld.service.js';
import {
  dayDataQuery,
  deviceState,
  HANDHELD_KEY_HEADER,
  MAX_UPLOAD_BYTES,
  MAX_UPLOAD_ITEMS,
  pairRequest,
  scanRequest,
  uploadRequest,
} from './handheld.schemas.js';

// The endpoints a paired handheld calls (docs/handheld.md, "O que o aparelho chama"), all under /api/handheld and
// in the spec's envelope. The device's key opens these only; pairing needs the one-time token instead.

const tags = ['handheld'];
const security = [{ handheldKey: [] }];

export interface HandheldRouteDeps {
  db: Db;
  clock: Clock;
  service: HandheldService;
  names: boolean;
}

function deviceOf(db: Db, request: FastifyRequest): Device {
  const value = request.headers[HANDHELD_KEY_HEADER];
  const key = (Array.isArray(value) ? value[0] : value)?.trim() ?? '';
  if (!key) throw new AppError('CHAVE_HANDHELD_AUSENTE');
  const check = checkDeviceKey(db, key);
  if (check.kind === 'revoked') throw new AppError('DISPOSITIVO_REVOGADO');
  if (check.kind === 'invalid') throw new AppError('CHAVE_HANDHELD_INVALIDA');
  return check.device;
}

export const handheldRoutes =
  (deps: HandheldRouteDeps): RouteRegistrar =>
  (app) => {
    pairRoute(app, deps);
    deviceRoutes(app, deps);
  };

/** Pairing: the one route without a device key (the console's one-time code instead). */
function pairRoute(app: App, { db, clock }: HandheldRouteDeps): void {
  app.post(
    '/api/handheld/parear',
    {
      schema: {
        tags,
        summary: 'Parear um aparelho com o código de uso único do console',
        body: pairRequest,
        docs: docs.pair,
      },
    },
    async (request, reply) => {
      const { token, nome, versao_app } = request.body;
      const nowIso = clock.nowIso();
      const outcome = await db.writes.run(() => pairDevice(db, { token, name: nome, version: versao_app, nowIso }));
      if (outcome.kind === 'invalid') throw new AppError('PAREAMENTO_INVALIDO');
      if (outcome.kind === 'name-taken') throw new AppError('NOME_EM_USO', { nome });
      const tenant = db.statement('SELECT slug FROM tenants WHERE id = ?').get(outcome.device.tenantId) as {
        slug: string;
      };
      return reply.status(201).send({
        success: true,
        data: {
          chave: outcome.key,
          dispositivo: { id: outcome.device.id, nome: outcome.device.name },
          tenant: tenant.slug,
          data_local: clock.today(),
        },
      });
    },
  );
}

/** What a paired device calls with its key. */
function deviceRoutes(app: App, { db, clock, service, names }: HandheldRouteDeps): void {
  const { onRequest, callerOf } = guard((request) => deviceOf(db, request));

  app.get(
    '/api/handheld/dados',
    {
      onRequest,
      schema: {
        tags,
        security,
        summary: 'Os dados do dia para decidir offline',
        querystring: dayDataQuery,
        docs: docs.dayData,
      },
    },
    async (request, reply) => {
      const device = callerOf(request);
      const now = clock.now();
      const parts = dayDataParts(db, {
        tenantId: device.tenantId,
        today: clock.localDate(now),
        nowIso: now.toISOString(),
        names,
        since: request.query.desde,
      });
      return reply.type(JSON_TYPE).send(Readable.from(parts));
    },
  );

  app.post(
    '/api/handheld/checkin',
    {
      onRequest,
      schema: {
        tags,
        security,
        summary: 'Check-in decidido pela caixa (aparelho online)',
        body: scanRequest,
        docs: docs.scan,
      },
    },
    async (request) => ({ success: true, data: await asHttp(service.scan(callerOf(request), request.body)) }),
  );

  app.post(
    '/api/handheld/movimentos',
    {
      onRequest,
      bodyLimit: MAX_UPLOAD_BYTES,
      schema: {
        tags,
        security,
        summary: 'Movimentos decididos no aparelho (offline)',
        body: uploadRequest,
        docs: docs.upload,
      },
    },
    async (request) => {
      const { enviado_em, itens } = request.body;
      if (itens.length > MAX_UPLOAD_ITEMS)
        throw new AppError('MOVIMENTOS_DEMAIS', { limite: MAX_UPLOAD_ITEMS, recebidos: itens.length });
      const answers = await asHttp(service.upload(callerOf(request), enviado_em, itens));
      return { success: true, data: { itens: answers } };
    },
  );

  app.put(
    '/api/handheld/estado',
    {
      onRequest,
      schema: {
        tags,
        security,
        summary: 'O aparelho diz como está (e sabe se a caixa responde)',
        body: deviceState,
        docs: docs.state,
      },
    },
    async (request) => {
      const device = callerOf(request);
      const s = request.body;
      const now = clock.now();
      await db.writes.run(
        () =>
          recordDeviceState(db, device.id, {
            version: s.versao_app,
            dataAt: s.dados_em,
            queued: s.fila,
            offlineToday: s.decisoes_offline_hoje,
            nowIso: now.toISOString(),
          }),
        { background: true },
      );
      return {
        success: true,
        data: { data_local: clock.localDate(now), agora: now.toISOString(), nome: device.name },
      };
    },
  );
}
