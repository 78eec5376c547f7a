import type { Generated } from 'kysely';

// Row types of migrations/. Money is integer centavos; JSON columns are TEXT.
export interface TenantsTable {
  id: Generated<number>;
  slug: string;
  nome: string;
  created_at: string;
}

export interface ApiKeysTable {
  id: Generated<number>;
  tenant_id: number;
  name: string;
  key_id: string;
  key_hash: Buffer;
  permissions: string;
  created_at: string;
  expires_at: string | null;
  revoked_at: string | null;
}

export interface OrdersTable {
  id: Generated<number>;
  tenant_id: number;
  numero_pedido: string;
  status: 'pago' | 'cancelado' | 'reembolsado';
  pago_em: string | null;
  origem: string;
  cupom: string | null;
  cliente: string;
  total_bruto: number;
  desconto_promocao: string | null;
  desconto_pagamento: string | null;
  acrescimo_pagamento: string | null;
  valor_estornado: number;
  created_at: string;
  updated_at: string;
  /** Random, new at each write of the order by upsertOrder (migration 0012; src/orders/pedido-cache.ts). */
  revision: Generated<number>;
}

export interface LotsTable {
  id: Generated<number>;
  order_id: number;
  position: number;
  ingresso_id: string;
  lote_mestre_id: string;
  categoria: string;
  nome_ingresso: string;
  nome_lote: string;
  tipo_ingresso: string;
  data_uso: string;
  valor_unitario: number;
}

export interface PeopleTable {
  id: Generated<number>;
  tenant_id: number;
  order_id: number;
  lot_id: number;
  position: number;
  qr_code: string;
  nome: string;
  dados: string;
  checkin_em: string | null;
  checkin_dispositivo: string | null;
  checkin_operador: string | null;
  estornado_em: string | null;
  estorno_dispositivo: string | null;
  estorno_operador: string | null;
}

export interface AdditionalsTable {
  id: Generated<number>;
  tenant_id: number;
  order_id: number;
  position: number;
  adicional_id: string;
  nome: string;
  quantidade: number;
  preco_unitario: number;
  subtotal: number;
  pessoa_ingresso_id: string | null;
  combo_id: string | null;
  combo_item_id: string | null;
  is_brinde: number;
  codigo_integracao: string;
  adicional_qr_code: string | null;
}

/** One unit of an additional checked in; the columns are named as people's (migrations/0011_reversal_names.ts). */
export interface AdditionalRedemptionsTable {
  id: Generated<number>;
  additional_id: number;
  checkin_em: string;
  checkin_dispositivo: string | null;
  checkin_operador: string | null;
  estornado_em: string | null;
  estorno_dispositivo: string | null;
  estorno_operador: string | null;
}

export interface VoucherMarksTable {
  api_key_id: number;
  person_id: number;
  sincronizado_em: string;
}

export interface CombosTable {
  id: Generated<number>;
  tenant_id: number;
  combo_id: string;
  slug: string;
  nome: string;
  descricao: string;
  preco_combo: number;
  preco_original: number;
  economia_valor: number;
  economia_percentual: number;
  tipo_desconto: string;
  modo_qrcode: string;
  requer_data: number;
  destaque: number;
  max_por_pedido: number | null;
  total_ingressos: number;
  itens_resumo: string;
  ativo: Generated<number>;
  created_at: string;
  updated_at: string;
}

export interface ComboItemsTable {
  combo_pk: number;
  position: number;
  tipo_ingresso_id: string;
  tipo_ingresso_nome: string;
  lote_nome: string;
  categoria_lote_id: string;
  quantidade: number;
  preco_unitario: number;
}

export interface ComboStockTable {
  combo_pk: number;
  date: string;
  position: number;
  tipo_ingresso_nome: string;
  lote_nome: string;
  quantidade_necessaria: number;
  estoque_disponivel: number;
}

export interface ClientsTable {
  id: Generated<number>;
  tenant_id: number;
  cliente_id: string;
  nome: string;
  sobrenome: string;
  email: string;
  cpf: string;
  data_nascimento: string | null;
  telefone: string;
  whatsapp: string;
  endereco: string | null;
  created_at: string;
  ultimo_login: string | null;
  updated_at: string;
}

export interface ClientMarksTable {
  api_key_id: number;
  client_pk: number;
  sincronizado_em: string;
}

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

export interface DB {
  tenants: TenantsTable;
  api_keys: ApiKeysTable;
  orders: OrdersTable;
  lots: LotsTable;
  people: PeopleTable;
  additionals: AdditionalsTable;
  additional_redemptions: AdditionalRedemptionsTable;
  voucher_marks: VoucherMarksTable;
  combos: CombosTable;
  combo_items: ComboItemsTable;
  combo_stock: ComboStockTable;
  clients: ClientsTable;
  client_marks: ClientMarksTable;
  events: EventsTable;
  lane_events: LaneEventsTable;
  presence: PresenceTable;
  sync_push: SyncPushTable;
  sync_state: SyncStateTable;
  sync_rejects: SyncRejectsTable;
  sync_inbox: SyncInboxTable;
  event_marks: EventMarksTable;
  retention_moving: RetentionMovingTable;
  retention_runs: RetentionRunsTable;
}
