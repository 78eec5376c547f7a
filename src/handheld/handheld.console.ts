import { z } from 'zod';
import type { RouteRegistrar } from '../app.js';
import type { Clock } from '../clock.js';
import type { ConsoleGuard } from '../console/sessions.js';
import type { Db } from '../db/open.js';
import { AppError } from '../http/errors.js';
import type { HandheldDevice } from './handheld.schemas.js';
import { pairingQrSvg } from './pairing-qr.js';
import {
  createPairing,
  listDevices,
  PAIRING_MINUTES,
  revokeDevice,
  silentWithQueue,
  type DeviceRow,
} from './devices.repo.js';

// The supervisor's handhelds screen (docs/handheld.md, "Parear e acompanhar"): a one-time pairing code, the list of
// devices with what each last told, an alarm for one with queued movements unseen for 15 minutes, revocation.

const tags = ['console'];
const idParams = z.object({ id: z.coerce.number({ message: 'deve ser um número' }).int().min(1) });

export const deviceView = (d: DeviceRow, nowMs: number): HandheldDevice => ({
  id: d.id,
  nome: d.name,
  pareado_em: d.paired_at,
  pareado_por: d.paired_by,
  visto_em: d.last_seen_at,
  versao_app: d.app_version,
  dados_em: d.data_at,
  fila: d.queued,
  decisoes_offline_hoje: d.offline_today,
  revogado_em: d.revoked_at,
  alarme: silentWithQueue(d, nowMs),
});

export const handheldConsoleRoutes =
  ({ db, clock, guard }: { db: Db; clock: Clock; guard: ConsoleGuard }): RouteRegistrar =>
  (app) => {
    const onRequest = guard.supervisor;

    app.post(
      '/api/console/handhelds/pareamento',
      { onRequest, schema: { tags, summary: 'Código de pareamento de um handheld, de uso único (supervisor)' } },
      async (request) => {
        const s = guard.sessionOf(request);
        const now = clock.now();
        const expiresAt = new Date(now.getTime() + PAIRING_MINUTES * 60_000).toISOString();
        const token = await db.writes.run(() =>
          createPairing(db, { tenantId: s.tenantId, by: s.nome, nowIso: now.toISOString(), expiresAt }),
        );
        // The address the supervisor reached the box at: the one the handheld will use too (docs/handheld.md).
        const url = `${request.protocol}://${request.host}/m/#parear=${token}`;
        return { success: true, data: { token, url, expira_em: expiresAt, qr_svg: pairingQrSvg(url) } };
      },
    );

    app.get(
      '/api/console/handhelds',
      { onRequest, schema: { tags, summary: 'Handhelds pareados: visto, versão, dados, fila, alarme (supervisor)' } },
      async (request) => {
        const nowMs = clock.now().getTime();
        const devices = listDevices(db, guard.sessionOf(request).tenantId).map((d) => deviceView(d, nowMs));
        return { success: true, data: { aparelhos: devices, alarmes: devices.filter((d) => d.alarme).length } };
      },
    );

    app.post(
      '/api/console/handhelds/:id/revogar',
      { onRequest, schema: { tags, summary: 'Revogar a chave de um handheld (supervisor)', params: idParams } },
      async (request) => {
        const s = guard.sessionOf(request);
        const done = await db.writes.run(() => revokeDevice(db, s.tenantId, request.params.id, clock.nowIso()));
        if (!done)
          throw new AppError('NOT_FOUND', { id: request.params.id }, 'Aparelho não encontrado ou já revogado.');
        return { success: true, data: { id: request.params.id, revogado: true } };
      },
    );
  };
