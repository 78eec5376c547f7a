import type { DoorFactTools } from '../checkin/checkin.service.js';
import { PARK_AREA, type Calendar } from '../checkin/rules/index.js';
import type { Db } from '../db/open.js';
import type { Device } from './devices.repo.js';
import { keepMove, knownMove } from './moves.repo.js';
import type { HandheldClass, UploadItem, UploadItemAnswer } from './handheld.schemas.js';

// One movement a handheld decided offline, recorded at the box (docs/handheld.md, "Envio da fila"): applied as a
// fact, whatever the box would say now — the visitor already went through — and classified into the conflicts feed.

/** The door of a handheld's movements in the event log. */
export const HANDHELD_SOURCE = 'handheld';

/** Records one uploaded movement (inside its own savepoint) and says what it revealed. */
export function recordItem(
  db: Db,
  tools: DoorFactTools,
  device: Device,
  item: UploadItem,
  o: { skewed: boolean; cal: Calendar; nowIso: string },
): UploadItemAnswer {
  const known = knownMove(db, device, item.id, item.codigo);
  if (known) return { id: item.id, estado: 'ja_recebido', classificacao: known.classes as HandheldClass[] };
  const classes = new Set<HandheldClass>(o.skewed ? ['relogio_handheld'] : []);
  const conflicts: { kind: HandheldClass; eventId: number; other: number | null }[] = [];
  const who = { terminal: device.name, operador: item.operador };
  const details = { aparelho: { movimento: item.id, dados_de: item.dados_de } };
  const at = new Date(item.decidido_em).toISOString();
  const tenant = device.tenantId;
  let firstEvent: number | undefined;
  const event = (result: string, extra: Record<string, unknown> = {}) =>
    tools.event(who, at, {
      action: 'checkin',
      mode: 'qr',
      code: item.codigo,
      qrCode: null,
      result,
      details: { ...details, ...extra },
    });
  if (item.resultado !== 'ok') {
    // Refused on the device: kept in the event log as it was decided there, nothing changes here.
    firstEvent = event(item.resultado);
  } else {
    const door = { code: item.codigo, at, area: PARK_AREA, terminal: device.name, operator: item.operador };
    const done = tools.checkin({ ...door, source: HANDHELD_SOURCE, details });
    if (done.kind === 'unknown') {
      firstEvent = event('TICKET_NOT_FOUND', { admitido_no_aparelho: true });
      classes.add('desconhecido_handheld');
    } else {
      for (const outcome of done.outcomes) {
        if (outcome.kind !== 'recorded' && outcome.kind !== 'double') continue;
        firstEvent ??= outcome.eventId;
        if (outcome.kind === 'double') {
          classes.add('duplo_handheld');
          conflicts.push({ kind: 'duplo_handheld', eventId: outcome.eventId, other: outcome.otherEventId || null });
        }
      }
      if (done.status !== 'pago') classes.add('cancelado_no_handheld');
    }
  }
  for (const kind of classes)
    if (kind !== 'duplo_handheld' && firstEvent !== undefined)
      conflicts.push({ kind, eventId: firstEvent, other: null });
  for (const c of conflicts)
    db.statement(
      `INSERT INTO handheld_conflicts (tenant_id, kind, event_id, other_event_id, device_id, found_at)
       VALUES (?, ?, ?, ?, ?, ?)`,
    ).run(tenant, c.kind, c.eventId, c.other, device.id, o.nowIso);
  keepMove(db, {
    device: device.id,
    id: item.id,
    code: item.codigo,
    at: o.nowIso,
    how: 'upload',
    result: item.resultado,
    classes: [...classes],
  });
  return { id: item.id, estado: 'aplicado', classificacao: [...classes] };
}
