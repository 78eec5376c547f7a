import type { Generated } from 'kysely';

// Row types of the sale tables of migrations/ (orders, combos, clients, keys). Money is integer centavos; JSON
// columns are TEXT.
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
