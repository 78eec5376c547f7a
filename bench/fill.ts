import fs from 'node:fs';
import { createApiKey } from '../src/auth/api-keys.js';
import type { Clock } from '../src/clock.js';
import { migrateToLatest, openDatabase } from '../src/db/open.js';
import { catchUpSearchIndex } from '../src/db/search-index.js';
import { cleanDados, personName } from '../src/orders/orders.repo.js';
import { pedidoSchema } from '../src/orders/order.schemas.js';
import { ensureTenant } from '../src/tenants/tenants.repo.js';

export const TENANT = 'bench';
export const PEOPLE_PER_ORDER = 4;

/** The QR of the n-th person (0-based): unique, never a group QR or a 14-character additional QR. */
export const qrOf = (n: number) => `QB${String(n).padStart(8, '0')}`;

export interface FillResult {
  orders: number;
  people: number;
  today: string;
  apiKey: string;
  seconds: number;
  bytes: number;
}

const DAY_MS = 86_400_000;
const uuid = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const daysBefore = (date: string, days: number) =>
  new Date(Date.parse(`${date}T12:00:00Z`) - days * DAY_MS).toISOString().slice(0, 10);

/**
 * Fills a fresh database with `orders` paid orders of PEOPLE_PER_ORDER people each, all valid today
 * (dayuse, data_uso = today in the clock's zone), for tenant `bench`, plus one check-in API key.
 * Same schema and same column shapes as `gate import` (cliente through pedidoSchema, dados through
 * cleanDados), but with direct prepared INSERTs in large transactions and synchronous=OFF on this
 * connection only.
 */
export async function fillDatabase(file: string, clock: Clock, orders: number): Promise<FillResult> {
  const started = process.hrtime.bigint();
  const db = openDatabase(file);
  await migrateToLatest(db);
  const { sqlite } = db;
  sqlite.pragma('synchronous = OFF'); // the filling connection only; the server opens with openDatabase
  sqlite.pragma('cache_size = -262144');

  const nowIso = clock.nowIso();
  const today = clock.today();
  const tenantId = ensureTenant(db, TENANT, nowIso, 'Bench Park');
  const { key: apiKey } = createApiKey(db, { tenantId, name: 'bench-gate', permissions: ['vouchers:checkin'], nowIso });

  // One template order through the real cloud schema, so stored JSON has the shape imports produce.
  const template = pedidoSchema.parse({
    numero_pedido: '20260101-0001',
    status: 'pago',
    pago_em: nowIso,
    origem: 'online',
    pagamento: { valores: { total_bruto: 400, valor_estornado: 0 } },
    cliente: {
      nome: 'Maria',
      sobrenome: 'Silva',
      email: 'maria@example.com',
      cpf: '123.456.789-09',
      data_nascimento: '1990-05-01',
      telefone: '(11) 99999-0000',
      whatsapp: '(11) 99999-0000',
      endereco: {
        cep: '01001-000',
        rua: 'Praça da Sé',
        numero: '1',
        complemento: '',
        bairro: 'Sé',
        cidade: 'São Paulo',
        estado: 'SP',
      },
    },
    lotes: [],
  });
  const cliente = JSON.stringify(template.cliente);

  const insertOrder = sqlite.prepare(
    `INSERT INTO orders (id, tenant_id, numero_pedido, status, pago_em, origem, cupom, cliente, total_bruto,
       desconto_promocao, desconto_pagamento, acrescimo_pagamento, valor_estornado, created_at, updated_at)
     VALUES (?, ?, ?, 'pago', ?, 'online', NULL, ?, ?, NULL, NULL, NULL, 0, ?, ?)`,
  );
  const insertLot = sqlite.prepare(
    `INSERT INTO lots (id, order_id, position, ingresso_id, lote_mestre_id, categoria, nome_ingresso, nome_lote, tipo_ingresso, data_uso, valor_unitario)
     VALUES (?, ?, 0, ?, ?, 'adulto', 'Passaporte Dia', 'Adulto', 'dayuse', ?, 10000)`,
  );
  const insertPerson = sqlite.prepare(
    `INSERT INTO people (id, tenant_id, order_id, lot_id, position, qr_code, nome, dados) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
  );

  // numero_pedido is YYYYMMDD-NNNN: 10,000 orders per sale day, sale days going back from yesterday.
  const fillChunk = sqlite.transaction((from: number, to: number) => {
    for (let i = from; i < to; i++) {
      const saleDay = daysBefore(today, 1 + Math.floor(i / 10_000));
      const numero = `${saleDay.replace(/-/g, '')}-${String(i % 10_000).padStart(4, '0')}`;
      const createdAt = `${saleDay}T15:00:00.000Z`;
      const id = i + 1;
      insertOrder.run(id, tenantId, numero, createdAt, cliente, 10000 * PEOPLE_PER_ORDER, createdAt, createdAt);
      insertLot.run(id, id, uuid(1), uuid(2), today);
      for (let j = 0; j < PEOPLE_PER_ORDER; j++) {
        const n = i * PEOPLE_PER_ORDER + j;
        const dados = cleanDados({ qr_code: qrOf(n), Nome: `Pessoa ${n}`, CPF: '', Email: `p${n}@example.com` });
        insertPerson.run(n + 1, tenantId, id, id, j, qrOf(n), personName(dados), JSON.stringify(dados));
      }
    }
  });
  const CHUNK = 25_000;
  for (let from = 0; from < orders; from += CHUNK) fillChunk(from, Math.min(orders, from + CHUNK));
  // As `gate import` leaves it: every document moved into the search index, its segments merged.
  catchUpSearchIndex(db);

  sqlite.pragma('wal_checkpoint(TRUNCATE)');
  db.close();
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const bytes = fs.statSync(file).size + (fs.existsSync(`${file}-wal`) ? fs.statSync(`${file}-wal`).size : 0);
  return { orders, people: orders * PEOPLE_PER_ORDER, today, apiKey, seconds, bytes };
}
