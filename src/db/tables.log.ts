import type { Generated } from 'kysely';

// Row types of the log tables of migrations/ (events, movements, lanes, sync, retention).
export interface EventsTable {
  id: Generated<number>;
  tenant_id: number;
  occurred_at: string;
  /** checkin and estorno go to the cloud; the movements entrada, reentrada and saida are local facts. */
  action: 'checkin' | 'estorno' | 'entrada' | 'reentrada' | 'saida';
  mode: string;
  code: string;
  qr_code: string | null;
  numero_pedido: string | null;
  person_id: number | null;
  additional_id: number | null;
  result: string;
  key_name: string | null;
  terminal: string | null;
  operador: string | null;
  source: string;
  details: string | null;
  /**
   * Why the clock was suspect when the event was written (src/clock-check.ts, migrations/0010_clock.ts); null when it
   * looked right.
   */
  relogio_suspeito: string | null;
  /**
   * A movement applied from another box of the site (migrations/0013_site.ts): its id there, that box, its sequence
   * on the hub, and 1 when that box decided without the site. Null (0) for this box's own events.
   */
  site_id: Generated<string | null>;
  site_box: Generated<string | null>;
  site_seq: Generated<number | null>;
  sem_site: Generated<number>;
}

/** Who is inside each area today (migrations/0004_movements.ts). */
export interface PresenceTable {
  tenant_id: number;
  area: string;
  person_id: number;
  local_date: string;
  inside: number;
  since: string;
}

export type LaneEventKind =
  | 'liberada'
  | 'negada'
  | 'passagem'
  | 'nao_passou'
  | 'carona'
  | 'incendio_inicio'
  | 'incendio_fim'
  | 'dispositivo_offline'
  | 'dispositivo_online';

/** Gate lane events (migrations/0003_lane_events.ts); `lane` is '*' for the whole box (fire alarm). */
export interface LaneEventsTable {
  id: Generated<number>;
  tenant_id: number;
  occurred_at: string;
  lane: string;
  kind: LaneEventKind;
  code: string | null;
  details: string | null;
}

/** Outbox of the sync worker (migrations/0002_sync.ts): what the cloud said about each pushed event. */
export type PushResult = 'aceito' | 'ja_utilizado_na_nuvem' | 'fora_do_prazo' | 'cancelado_na_nuvem' | 'outro';

export interface SyncPushTable {
  event_id: number;
  tenant_id: number;
  chave: string;
  action: 'checkin' | 'estorno';
  status: Generated<'pendente' | 'concluido'>;
  attempts: Generated<number>;
  next_attempt_at: string | null;
  first_sent_at: string | null;
  last_sent_at: string | null;
  last_error: string | null;
  resultado: PushResult | null;
  cloud_code: string | null;
  cloud_message: string | null;
  /** The cloud's checkin_em (or estornado_em) for this item, when it said one. */
  cloud_em: string | null;
  settled_at: string | null;
}

export interface SyncStateTable {
  tenant_id: number;
  online: number | null;
  last_contact_at: string | null;
  last_pull_ok_at: string | null;
  last_push_ok_at: string | null;
  last_refresh_ok_at: string | null;
  last_full_refresh_ok_at: string | null;
  last_error: string | null;
  last_error_at: string | null;
}

export interface SyncRejectsTable {
  tenant_id: number;
  kind: string;
  ref: string;
  reason: string;
  at: string;
}

/** A marked page of orders from the cloud, kept until all of it is stored (migration 0006). */
export interface SyncInboxTable {
  id: Generated<number>;
  tenant_id: number;
  body: string;
  /** Valid orders of the page stored so far, in the page's order. */
  applied: number;
  received_at: string;
}

export interface EventMarksTable {
  api_key_id: number;
  event_id: number;
  sincronizado_em: string;
}

/** Ids `gate archive` is deleting, filled and emptied inside its delete transaction (migrations/0009_retention.ts). */
export interface RetentionMovingTable {
  tbl: 'events' | 'lane_events';
  id: number;
}

/** One archiving run of `gate archive` (src/retention/); unfinished runs are resumed with their file and cut-off. */
export interface RetentionRunsTable {
  id: Generated<number>;
  file: string;
  cutoff: string;
  started_at: string;
  finished_at: string | null;
  events: Generated<number>;
  lane_events: Generated<number>;
}

/** The site (migrations/0013_site.ts, src/site/): this box's own movements there. */
export interface SiteMovesTable {
  event_id: number;
  tenant_id: number;
  site_id: string;
  seq: number | null;
  sem_site: number;
  occurred_at: string;
  /** 1 once the other boxes were told the cloud settled it. */
  nuvem_anunciada: Generated<number>;
}

export interface SiteSettledTable {
  site_id: string;
  /** What the cloud said of it (its box's sync_push.resultado). */
  resultado: PushResult;
  settled_at: string;
}

export interface SiteStateTable {
  tenant_id: number;
  applied_seq: Generated<number>;
  applied_id: string | null;
  /** JSON list of this database's recent runs (site-messages.ts, Origin.run). */
  runs: Generated<string>;
}

export interface SiteSubjectsTable {
  tenant_id: number;
  subject: string;
  seq: number;
}

export interface SiteParkedTable {
  tenant_id: number;
  seq: number;
  code: string;
  body: string;
  parked_at: string;
}

export interface SiteRejectsTable {
  id: Generated<number>;
  tenant_id: number;
  seq: number;
  reason: string;
  detail: string | null;
  at: string;
}

export interface SiteConflictsTable {
  id: Generated<number>;
  tenant_id: number;
  kind: 'duplo_no_site';
  event_id: number;
  other_event_id: number;
  found_at: string;
}

export interface HandheldPairingsTable {
  token_hash: Buffer;
  tenant_id: number;
  created_by: string;
  created_at: string;
  expires_at: string;
  used_at: string | null;
}

export interface HandheldDevicesTable {
  id: Generated<number>;
  tenant_id: number;
  name: string;
  key_id: string;
  key_hash: Buffer;
  paired_at: string;
  paired_by: string;
  revoked_at: string | null;
  last_seen_at: string | null;
  app_version: string | null;
  /** gerado_em of the day data the device holds, as it last said. */
  data_at: string | null;
  queued: Generated<number>;
  offline_today: Generated<number>;
}

export interface HandheldMovesTable {
  device_id: number;
  move_id: string;
  received_at: string;
  /** 'online' (decided by the box) or 'upload' (decided on the device). */
  how: string;
  result: string;
  /** JSON list of the classifications of an uploaded movement. */
  classes: Generated<string>;
  /** The scanned code; null on rows written before migration 0019. */
  code: string | null;
  /** JSON list of the qrHash of the people an online scan let in. */
  admitted: Generated<string>;
}

export interface HandheldConflictsTable {
  id: Generated<number>;
  tenant_id: number;
  kind: 'duplo_handheld' | 'cancelado_no_handheld' | 'desconhecido_handheld' | 'relogio_handheld';
  event_id: number;
  other_event_id: number | null;
  device_id: number;
  found_at: string;
}
