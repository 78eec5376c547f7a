import type { Clock } from '../clock.js';
import { addDays } from '../clock.js';
import type { Db } from '../db/open.js';
import { lanePayload } from '../gate/gates.payload.js';
import { errorCatalogue, type ErrorCode } from '../http/errors.js';
import type { BoxStatus } from '../status/box-status.js';
import { refusalTitle, type Leitura } from './console.view.js';
import { sitePanel } from './site.panel.js';

// The supervisor's panels (docs/console.md): lanes and alarms, sync, the day's report. Read from the
// tables the lanes, the event log and the sync worker write.

export const ALARM_KINDS = ['carona', 'incendio_inicio', 'dispositivo_offline'] as const;

export interface Alarme {
  id: number;
  tipo: string;
  pista: string;
  em: string;
  detalhes: Record<string, unknown> | null;
  reconhecido_por: string | null;
  reconhecido_em: string | null;
}

interface EventRow {
  occurred_at: string;
  action: string;
  code: string;
  numero_pedido: string | null;
  result: string;
  terminal: string | null;
  operador: string | null;
  source: string;
  details: string | null;
}

const parse = (json: string | null) => (json ? (JSON.parse(json) as Record<string, unknown>) : null);
const ENTRY_ACTIONS = `('checkin', 'entrada', 'reentrada')`;

const alarm = (r: Omit<Alarme, 'detalhes'> & { details: string | null }): Alarme => ({
  id: r.id,
  tipo: r.tipo,
  pista: r.pista,
  em: r.em,
  detalhes: parse(r.details),
  reconhecido_por: r.reconhecido_por,
  reconhecido_em: r.reconhecido_em,
});

/** A row of the event log as the scan view's Leitura (no lookups: the panel lists 20 at a time). */
function eventLeitura(e: EventRow): Leitura {
  const ok = e.result === 'ok';
  const code = (ok ? null : e.result) as ErrorCode | null;
  return {
    resultado: ok ? 'liberado' : 'recusado',
    acao: e.action === 'saida' ? 'movimento' : 'checkin',
    codigo: e.code,
    em: e.occurred_at,
    porta: e.source === 'lane' ? 'pista' : e.source,
    terminal: e.terminal,
    operador: e.operador,
    titulo: ok ? (e.action === 'saida' ? 'SAÍDA' : 'LIBERADO') : refusalTitle(code!),
    mensagem: ok ? '' : (errorCatalogue[code!]?.message ?? e.result),
    pessoas: [],
    numero_pedido: e.numero_pedido,
    lote: null,
    erro: ok ? null : { code: code!, message: errorCatalogue[code!]?.message ?? e.result, details: parse(e.details) },
  };
}

export function createConsolePanels({ db, clock, status }: { db: Db; clock: Clock; status: BoxStatus }) {
  const alarmColumns = `e.id, e.kind AS tipo, e.lane AS pista, e.occurred_at AS em, e.details, o.nome AS reconhecido_por, a.acked_at AS reconhecido_em
       FROM lane_events e LEFT JOIN alarm_acks a ON a.lane_event_id = e.id LEFT JOIN operators o ON o.id = a.operator_id
      WHERE e.tenant_id = ? AND e.kind IN ${`(${ALARM_KINDS.map((k) => `'${k}'`).join(', ')})`}`;
  const openAlarms = db.statement(`SELECT ${alarmColumns} AND a.lane_event_id IS NULL ORDER BY e.id DESC LIMIT 200`);
  const ackedAlarms = db.statement(
    `SELECT ${alarmColumns} AND a.lane_event_id IS NOT NULL ORDER BY a.acked_at DESC LIMIT 20`,
  );
  const alarmById = db.statement(`SELECT ${alarmColumns} AND e.id = ?`);
  const alarmsAfter = db.statement(
    `SELECT e.tenant_id AS tenantId, ${alarmColumns.replace('WHERE e.tenant_id = ? AND', 'WHERE')} AND e.id > ? ORDER BY e.id LIMIT 100`,
  );
  const lastLaneEventId = db.statement('SELECT coalesce(max(id), 0) AS id FROM lane_events');
  const ack = db.statement('INSERT OR IGNORE INTO alarm_acks (lane_event_id, operator_id, acked_at) VALUES (?, ?, ?)');
  const lastEvents = db.statement(
    `SELECT occurred_at, action, code, numero_pedido, result, terminal, operador, source, details FROM events
      WHERE tenant_id = ? AND action IN ('checkin', 'entrada', 'reentrada', 'saida') ORDER BY id DESC LIMIT 20`,
  );
  const entriesBetween = db.statement(
    `SELECT count(*) AS n FROM events WHERE tenant_id = ? AND action IN ${ENTRY_ACTIONS} AND result = 'ok' AND occurred_at >= ? AND occurred_at < ?`,
  );
  const entriesByUtcHour = db.statement(
    `SELECT substr(occurred_at, 1, 13) AS hour, coalesce(terminal, '(sem terminal)') AS terminal, count(*) AS n FROM events
      WHERE tenant_id = ? AND action IN ${ENTRY_ACTIONS} AND result = 'ok' AND occurred_at >= ? AND occurred_at < ? GROUP BY 1, 2 ORDER BY 1, 2`,
  );
  const refusalsBetween = db.statement(
    `SELECT result AS code, count(*) AS total FROM events WHERE tenant_id = ? AND action IN ${ENTRY_ACTIONS} AND result != 'ok'
        AND occurred_at >= ? AND occurred_at < ? GROUP BY result ORDER BY total DESC`,
  );
  const hourOf = new Intl.DateTimeFormat('en-GB', { timeZone: clock.timeZone, hour: '2-digit', hourCycle: 'h23' });

  const dayRange = (date: string) =>
    [clock.startOfLocalDate(date).toISOString(), clock.startOfLocalDate(addDays(date, 1)).toISOString()] as const;

  function lanes(tenantId: number) {
    const s = status.lanes(tenantId);
    if (!s) return { configurado: false, alarme_incendio: null, pistas: [] };
    return {
      configurado: true,
      alarme_incendio: { ativo: s.fireAlarm.active, desde: s.fireAlarm.since, origens: s.fireAlarm.sources },
      pistas: s.lanes.map(lanePayload),
    };
  }

  return {
    lanes,
    pistas(tenantId: number) {
      const [from, to] = dayRange(clock.today());
      return {
        ...lanes(tenantId),
        entradas_hoje: (entriesBetween.get(tenantId, from, to) as { n: number }).n,
        ultimas_leituras: (lastEvents.all(tenantId) as EventRow[]).map(eventLeitura),
        alarmes: [
          ...(openAlarms.all(tenantId) as Parameters<typeof alarm>[0][]),
          ...(ackedAlarms.all(tenantId) as Parameters<typeof alarm>[0][]),
        ].map(alarm),
      };
    },
    /** Acknowledges an alarm of the tenant; null when there is none with that id. */
    acknowledge(tenantId: number, id: number, operatorId: number): Alarme | null {
      if (!alarmById.get(tenantId, id)) return null;
      ack.run(id, operatorId, clock.nowIso());
      return alarm(alarmById.get(tenantId, id) as Parameters<typeof alarm>[0]);
    },
    lastLaneEventId: () => (lastLaneEventId.get() as { id: number }).id,
    /** Alarms of every tenant after a lane event id. */
    alarmsAfter: (id: number) =>
      (alarmsAfter.all(id) as (Parameters<typeof alarm>[0] & { tenantId: number })[]).map((r) => ({
        tenantId: r.tenantId,
        alarme: alarm(r),
      })),
    sync(tenantId: number) {
      const s = status.sync(tenantId)!;
      const tls = status.tls();
      return {
        configurado: s.configured,
        online: s.online,
        ultimo_pull_em: s.lastPullAt,
        ultimo_push_em: s.lastPushAt,
        ultimo_erro: s.lastError,
        eventos_pendentes: s.waiting,
        aguardando_outra_caixa: { eventos: s.heldForSite, ate: s.heldUntil },
        conflitos_total: s.conflictsTotal,
        certificado: tls && { ca_sha256: tls.caFingerprint, expira_em: tls.certExpiresAt },
      };
    },
    /** The tenant's site (site.panel.ts): the live monitor samples it like the lanes and the sync. */
    site: (tenantId: number) => sitePanel(status, tenantId),
    report(tenantId: number, date: string) {
      const [from, to] = dayRange(date);
      const hours = new Map<string, number>();
      for (const r of entriesByUtcHour.all(tenantId, from, to) as { hour: string; terminal: string; n: number }[]) {
        const key = `${Number(hourOf.format(new Date(`${r.hour}:00:00Z`)))}|${r.terminal}`;
        hours.set(key, (hours.get(key) ?? 0) + r.n);
      }
      const por_hora = [...hours]
        .map(([key, entradas]) => ({
          hora: Number(key.split('|')[0]),
          terminal: key.slice(key.indexOf('|') + 1),
          entradas,
        }))
        .sort((a, b) => a.hora - b.hora || a.terminal.localeCompare(b.terminal));
      const recusas = (refusalsBetween.all(tenantId, from, to) as { code: ErrorCode; total: number }[]).map((r) => ({
        code: r.code,
        titulo: refusalTitle(r.code),
        total: r.total,
      }));
      return {
        data: date,
        total_entradas: por_hora.reduce((n, h) => n + h.entradas, 0),
        total_recusas: recusas.reduce((n, r) => n + r.total, 0),
        por_hora,
        recusas,
      };
    },
  };
}

export type ConsolePanels = ReturnType<typeof createConsolePanels>;
