import type { Kysely } from 'kysely';
import { execDdl } from './ddl.js';

// Money columns are integer centavos. Timestamps are UTC ISO strings. Dates are YYYY-MM-DD.
export async function up(db: Kysely<unknown>): Promise<void> {
  await execDdl(db, DDL);
}

const DDL = `
    CREATE TABLE tenants (
      id INTEGER PRIMARY KEY,
      slug TEXT NOT NULL UNIQUE,
      nome TEXT NOT NULL,
      created_at TEXT NOT NULL
    );

    CREATE TABLE api_keys (
      id INTEGER PRIMARY KEY,
      tenant_id INTEGER NOT NULL REFERENCES tenants(id),
      name TEXT NOT NULL,
      key_id TEXT NOT NULL UNIQUE,
      key_hash BLOB NOT NULL,
      permissions TEXT NOT NULL,
      created_at TEXT NOT NULL,
      expires_at TEXT,
      revoked_at TEXT
    );

    CREATE TABLE orders (
      id INTEGER PRIMARY KEY,
      tenant_id INTEGER NOT NULL REFERENCES tenants(id),
      numero_pedido TEXT NOT NULL,
      status TEXT NOT NULL CHECK (status IN ('pago', 'cancelado', 'reembolsado')),
      pago_em TEXT,
      origem TEXT NOT NULL,
      cupom TEXT,
      cliente TEXT NOT NULL,
      total_bruto INTEGER NOT NULL,
      desconto_promocao TEXT,
      desconto_pagamento TEXT,
      acrescimo_pagamento TEXT,
      valor_estornado INTEGER NOT NULL DEFAULT 0,
      created_at TEXT NOT NULL,
      updated_at TEXT NOT NULL,
      UNIQUE (tenant_id, numero_pedido)
    );
    CREATE INDEX orders_tenant_created ON orders (tenant_id, created_at, id);
    CREATE INDEX orders_tenant_paid ON orders (tenant_id, pago_em, id);

    CREATE TABLE lots (
      id INTEGER PRIMARY KEY,
      order_id INTEGER NOT NULL REFERENCES orders(id) ON DELETE CASCADE,
      position INTEGER NOT NULL,
      ingresso_id TEXT NOT NULL,
      lote_mestre_id TEXT NOT NULL,
      categoria TEXT NOT NULL,
      nome_ingresso TEXT NOT NULL,
      nome_lote TEXT NOT NULL,
      tipo_ingresso TEXT NOT NULL,
      data_uso TEXT NOT NULL,
      valor_unitario INTEGER NOT NULL
    );
    CREATE INDEX lots_order ON lots (order_id, position);
    CREATE INDEX lots_data_uso ON lots (data_uso, order_id);

    CREATE TABLE people (
      id INTEGER PRIMARY KEY,
      tenant_id INTEGER NOT NULL REFERENCES tenants(id),
      order_id INTEGER NOT NULL REFERENCES orders(id) ON DELETE CASCADE,
      lot_id INTEGER NOT NULL REFERENCES lots(id) ON DELETE CASCADE,
      position INTEGER NOT NULL,
      qr_code TEXT NOT NULL,
      nome TEXT NOT NULL DEFAULT '',
      dados TEXT NOT NULL,
      checkin_em TEXT,
      checkin_dispositivo TEXT,
      checkin_operador TEXT,
      estornado_em TEXT,
      estorno_dispositivo TEXT,
      estorno_operador TEXT,
      UNIQUE (tenant_id, qr_code)
    );
    CREATE INDEX people_qr ON people (qr_code);
    CREATE INDEX people_order ON people (order_id, lot_id, position);

    CREATE TABLE additionals (
      id INTEGER PRIMARY KEY,
      tenant_id INTEGER NOT NULL REFERENCES tenants(id),
      order_id INTEGER NOT NULL REFERENCES orders(id) ON DELETE CASCADE,
      position INTEGER NOT NULL,
      adicional_id TEXT NOT NULL,
      nome TEXT NOT NULL,
      quantidade INTEGER NOT NULL,
      preco_unitario INTEGER NOT NULL,
      subtotal INTEGER NOT NULL,
      pessoa_ingresso_id TEXT,
      combo_id TEXT,
      combo_item_id TEXT,
      is_brinde INTEGER NOT NULL DEFAULT 0,
      codigo_integracao TEXT NOT NULL DEFAULT '',
      adicional_qr_code TEXT
    );
    CREATE INDEX additionals_order ON additionals (order_id, position);
    CREATE UNIQUE INDEX additionals_qr ON additionals (tenant_id, adicional_qr_code) WHERE adicional_qr_code IS NOT NULL;

    -- One row per redeemed unit of an additional (a 14-character QR redeems one unit per scan).
    CREATE TABLE additional_redemptions (
      id INTEGER PRIMARY KEY,
      additional_id INTEGER NOT NULL REFERENCES additionals(id) ON DELETE CASCADE,
      redeemed_at TEXT NOT NULL,
      terminal TEXT,
      operador TEXT,
      reversed_at TEXT,
      reversal_terminal TEXT,
      reversal_operador TEXT
    );
    CREATE INDEX additional_redemptions_additional ON additional_redemptions (additional_id, reversed_at);

    -- Per API key synchronisation marks: one row per (key, voucher); sincronizado_em is the first marking.
    CREATE TABLE voucher_marks (
      api_key_id INTEGER NOT NULL REFERENCES api_keys(id),
      person_id INTEGER NOT NULL REFERENCES people(id) ON DELETE CASCADE,
      sincronizado_em TEXT NOT NULL,
      PRIMARY KEY (api_key_id, person_id)
    ) WITHOUT ROWID;
    CREATE INDEX voucher_marks_person ON voucher_marks (person_id);

    CREATE TABLE combos (
      id INTEGER PRIMARY KEY,
      tenant_id INTEGER NOT NULL REFERENCES tenants(id),
      combo_id TEXT NOT NULL,
      slug TEXT NOT NULL,
      nome TEXT NOT NULL,
      descricao TEXT NOT NULL,
      preco_combo INTEGER NOT NULL,
      preco_original INTEGER NOT NULL,
      economia_valor INTEGER NOT NULL,
      economia_percentual REAL NOT NULL,
      tipo_desconto TEXT NOT NULL,
      modo_qrcode TEXT NOT NULL,
      requer_data INTEGER NOT NULL,
      destaque INTEGER NOT NULL,
      max_por_pedido INTEGER,
      total_ingressos INTEGER NOT NULL,
      itens_resumo TEXT NOT NULL,
      ativo INTEGER NOT NULL DEFAULT 1,
      created_at TEXT NOT NULL,
      updated_at TEXT NOT NULL,
      UNIQUE (tenant_id, combo_id),
      UNIQUE (tenant_id, slug)
    );

    CREATE TABLE combo_items (
      combo_pk INTEGER NOT NULL REFERENCES combos(id) ON DELETE CASCADE,
      position INTEGER NOT NULL,
      tipo_ingresso_id TEXT NOT NULL,
      tipo_ingresso_nome TEXT NOT NULL,
      lote_nome TEXT NOT NULL,
      categoria_lote_id TEXT NOT NULL,
      quantidade INTEGER NOT NULL,
      preco_unitario INTEGER NOT NULL,
      PRIMARY KEY (combo_pk, position)
    ) WITHOUT ROWID;

    -- Stock per combo item and date, as the cloud reported it; availability is derived from it.
    CREATE TABLE combo_stock (
      combo_pk INTEGER NOT NULL REFERENCES combos(id) ON DELETE CASCADE,
      date TEXT NOT NULL,
      position INTEGER NOT NULL,
      tipo_ingresso_nome TEXT NOT NULL,
      lote_nome TEXT NOT NULL,
      quantidade_necessaria INTEGER NOT NULL,
      estoque_disponivel INTEGER NOT NULL,
      PRIMARY KEY (combo_pk, date, position)
    ) WITHOUT ROWID;

    CREATE TABLE clients (
      id INTEGER PRIMARY KEY,
      tenant_id INTEGER NOT NULL REFERENCES tenants(id),
      cliente_id TEXT NOT NULL,
      nome TEXT NOT NULL,
      sobrenome TEXT NOT NULL DEFAULT '',
      email TEXT NOT NULL DEFAULT '',
      cpf TEXT NOT NULL DEFAULT '',
      data_nascimento TEXT,
      telefone TEXT NOT NULL DEFAULT '',
      whatsapp TEXT NOT NULL DEFAULT '',
      endereco TEXT,
      created_at TEXT NOT NULL,
      ultimo_login TEXT,
      updated_at TEXT NOT NULL,
      UNIQUE (tenant_id, cliente_id)
    );
    CREATE INDEX clients_tenant_created ON clients (tenant_id, created_at, id);
    CREATE INDEX clients_tenant_cpf ON clients (tenant_id, cpf);

    CREATE TABLE client_marks (
      api_key_id INTEGER NOT NULL REFERENCES api_keys(id),
      client_pk INTEGER NOT NULL REFERENCES clients(id) ON DELETE CASCADE,
      sincronizado_em TEXT NOT NULL,
      PRIMARY KEY (api_key_id, client_pk)
    ) WITHOUT ROWID;

    -- Append-only log of every check-in, reversal and refusal, written in the same transaction as the change.
    CREATE TABLE events (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      tenant_id INTEGER NOT NULL REFERENCES tenants(id),
      occurred_at TEXT NOT NULL,
      action TEXT NOT NULL CHECK (action IN ('checkin', 'estorno')),
      mode TEXT NOT NULL,
      code TEXT NOT NULL,
      qr_code TEXT,
      numero_pedido TEXT,
      person_id INTEGER,
      additional_id INTEGER,
      result TEXT NOT NULL,
      key_name TEXT,
      terminal TEXT,
      operador TEXT,
      source TEXT NOT NULL,
      details TEXT
    );
    CREATE INDEX events_tenant ON events (tenant_id, id);
    CREATE TRIGGER events_no_update BEFORE UPDATE ON events BEGIN SELECT RAISE(ABORT, 'events are append-only'); END;
    CREATE TRIGGER events_no_delete BEFORE DELETE ON events BEGIN SELECT RAISE(ABORT, 'events are append-only'); END;
`;
