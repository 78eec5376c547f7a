import type { DoorFactTools } from '../checkin/checkin.service.js';
import { GROUP_QR, PARK_AREA, type Calendar } from '../checkin/rules/index.js';
import type { Db } from '../db/open.js';
import type { Device } from './devices.repo.js';
import { keepMove, knownMove } from './moves.repo.js';
import type { HandheldClass, UploadItem, UploadItemAnswer } from './handheld.schemas.js';

// One movement a handheld decided offline, recorded at the box (docs/handheld.md, "Envio da fila"): applied as a
// fact, whatever the box would say now — the visitor already went through — and classified into the conflicts feed.

const SOURCE = 'handheld';

/** Records one uploaded movement (inside its own savepoint) and says what it revealed. */
export function recordItem(
  db: Db,
  tools: DoorFactTools,
  device: Device,
  item: UploadItem,
  o: { skewed: boolean; cal: Calendar; nowIso: string },
): UploadItemAnswer {
  const known = knownMove(db, device.id, item.id);
  if (known) return { id: item.id, estado: 'ja_recebido', classificacao: [] };
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
    const targets = factTargets(db, tenant, item.codigo, o.cal.dayOf(at));
    // Nothing here matches what the device let in (a code unknown here, a group with nobody for that day).
    if (targets.kind === 'unknown' || targets.list.length === 0) {
      firstEvent = event('TICKET_NOT_FOUND', { admitido_no_aparelho: true });
      classes.add('desconhecido_handheld');
    } else {
      for (const t of targets.list) {
        const outcome = tools.apply({
          action: 'checkin',
          kind: t.kind,
          qr: t.qr,
          code: item.codigo,
          mode: targets.mode,
          at,
          area: PARK_AREA,
          terminal: device.name,
          operator: item.operador,
          source: SOURCE,
          details,
        });
        if (outcome.kind === 'double') {
          classes.add('duplo_handheld');
          conflicts.push({ kind: 'duplo_handheld', eventId: outcome.eventId, other: outcome.otherEventId || null });
        }
        if (outcome.kind === 'recorded' || outcome.kind === 'double') firstEvent ??= outcome.eventId;
        if (outcome.kind === 'recorded' && t.overused?.()) {
          classes.add('duplo_handheld');
          conflicts.push({ kind: 'duplo_handheld', eventId: outcome.eventId, other: null });
        }
      }
      if (targets.status !== 'pago') classes.add('cancelado_no_handheld');
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
    at: o.nowIso,
    how: 'upload',
    result: item.resultado,
    classes: [...classes],
  });
  return { id: item.id, estado: 'aplicado', classificacao: [...classes] };
}

type Targets =
  | { kind: 'unknown' }
  | {
      kind: 'known';
      mode: 'qr' | 'combo' | 'adicional';
      status: string;
      list: { kind: 'person' | 'additional'; qr: string; overused?: () => boolean }[];
    };

/**
 * Who an uploaded check-in moved, looked up as the box's check-in does (person QR, group QR, additional QR): for a
 * group, its people not checked in here who were valid on the decision's day — or, when all of them are, all of them
 * (a double entry of the group).
 */
function factTargets(db: Db, tenantId: number, code: string, day: string): Targets {
  const person = db
    .statement(
      'SELECT p.qr_code, o.status FROM people p JOIN orders o ON o.id = p.order_id WHERE p.tenant_id = ? AND p.qr_code = ?',
    )
    .get(tenantId, code) as { qr_code: string; status: string } | undefined;
  if (person)
    return { kind: 'known', mode: 'qr', status: person.status, list: [{ kind: 'person', qr: person.qr_code }] };
  if (GROUP_QR.test(code)) {
    const order = db
      .statement('SELECT id, status FROM orders WHERE tenant_id = ? AND numero_pedido = ?')
      .get(tenantId, code) as { id: number; status: string } | undefined;
    if (order) {
      const people = db
        .statement(
          `SELECT p.qr_code, p.checkin_em FROM people p JOIN lots l ON l.id = p.lot_id
            WHERE p.order_id = ? AND (l.data_uso = ? OR l.tipo_ingresso = 'dayuse_sem_data') ORDER BY p.lot_id, p.position`,
        )
        .all(order.id, day) as { qr_code: string; checkin_em: string | null }[];
      const pending = people.filter((p) => p.checkin_em === null);
      const moved = pending.length > 0 ? pending : people;
      return {
        kind: 'known',
        mode: 'combo',
        status: order.status,
        list: moved.map((p) => ({ kind: 'person', qr: p.qr_code })),
      };
    }
  }
  const additional = db
    .statement(
      `SELECT a.id, a.adicional_qr_code AS qr, a.quantidade, o.status FROM additionals a JOIN orders o ON o.id = a.order_id
        WHERE a.tenant_id = ? AND a.adicional_qr_code = ?`,
    )
    .get(tenantId, code) as { id: number; qr: string; quantidade: number; status: string } | undefined;
  if (additional) {
    const overused = () =>
      (
        db
          .statement(
            'SELECT count(*) AS n FROM additional_redemptions WHERE additional_id = ? AND estornado_em IS NULL',
          )
          .get(additional.id) as { n: number }
      ).n > additional.quantidade;
    return {
      kind: 'known',
      mode: 'adicional',
      status: additional.status,
      list: [{ kind: 'additional', qr: additional.qr, overused }],
    };
  }
  return { kind: 'unknown' };
}
