import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { DOCUMENT_TRIGGERS } from '../migrations/0017_search_upkeep.js';
import { searchOrders } from '../src/console/search.repo.js';
import { migrateToLatest, openDatabase, type Sqlite } from '../src/db/open.js';
import { catchUpSearchIndex } from '../src/db/search-index.js';
import { upsertOrder } from '../src/orders/orders.repo.js';
import { pedidoSchema, type Pedido } from '../src/orders/order.schemas.js';
import { ensureTenant } from '../src/tenants/tenants.repo.js';
import { heading, int, machine, mb, ms, out, summarise, table } from './report.js';
import { prng } from '../test/support/prng.js';

// `npm run bench:search`: the help desk's search (issue 12) over 1,000,000 people. A real SQLite
// file is filled with BENCH_ORDERS orders of 2 people (default 500,000) by plain INSERTs in
// transactions of 1,000 orders (a sync page), each followed by the index's upkeep (moves and merges, as the box's
// runs them: src/db/search-index.ts). Then searches of each kind, many rounds, on a connection opened as
// the box opens it, timed per call of searchOrders; target p99 < 100 ms. The baseline is a
// primary-key lookup of an order in the same rounds. Also: the index's size on disk, and what the
// triggers cost the import (upsertOrder on the same database, with and without them). A
// measurement, not a test.

const ORDERS = Number(process.env.BENCH_ORDERS ?? 500_000);
const PEOPLE = 2;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const PER_ROUND = 100;
const TARGET_MS = 100;
const IMPORT_PAGE = 1000;
const IMPORT_ROUNDS = 7;

const FIRST = (
  'Maria José Ana João Antônio Francisca Carlos Paulo Pedro Lucas Luiz Marcos Luís Gabriel Rafael Francisco Daniel Marcelo Bruno ' +
  'Eduardo Felipe Raimundo Rodrigo Manoel Mateus André Fernando Fábio Leonardo Gustavo Guilherme Leandro Tiago Anderson Ricardo Márcio ' +
  'Jorge Sebastião Alexandre Roberto Adriana Juliana Márcia Fernanda Patrícia Aline Sandra Camila Amanda Bruna Jéssica Letícia Júlia ' +
  'Luciana Vanessa Mariana Gabriela Vera Vitória Larissa Cláudia Beatriz Luana Rita Sônia Renata Eliane Josefa Simone Natália Cristina ' +
  'Débora Conceição Irene Inês Ângela Lúcia Tânia Cecília Heloísa Valéria Rosângela Benedito Otávio Caio Ênio Ítalo Úrsula Iara Moisés ' +
  'Estêvão Joaquim Matheus Enzo Davi Heitor Arthur Bernardo Lorena Alícia'
).split(' ');
const LAST = (
  'Silva Santos Oliveira Souza Rodrigues Ferreira Alves Pereira Lima Gomes Costa Ribeiro Martins Carvalho Almeida Lopes Soares ' +
  'Fernandes Vieira Barbosa Rocha Dias Nascimento Andrade Moreira Nunes Marques Machado Mendes Freitas Cardoso Ramos Gonçalves Santana ' +
  'Teixeira Araújo Conceição Simões Brandão Magalhães Guimarães Assunção Falcão Romão Leão Sebastião Damião Adão Camões Peixoto Sá ' +
  'Tavares Xavier Azevedo Campos Pinto Monteiro Moura Correia Cavalcanti Dantas Borges Batista Medeiros Jesus Farias Siqueira Sales ' +
  'Queiroz Coelho Aragão Bezerra Nogueira Macedo Brito Fonseca Miranda Reis Duarte Pires Castro Melo Bastos Prado Matos Sampaio Viana ' +
  'Leite Paiva Porto Mota Neves Frota Amaral Lacerda Toledo Vasconcelos Rezende Quintão Müller'
).split(' ');
// A fixed seed: every run draws the same names.
const random = prng(12);
// Skewed as real names are: the first of each list (Maria, Silva) is drawn about 1 time in 10.
const pick = (list: string[]) => list[Math.floor(list.length * random() * random())]!;
const ascii = (s: string) => s.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();
const cpfOf = (n: number) => String(10_000_000_000 + n * 7);
const punctuated = (cpf: string) => `${cpf.slice(0, 3)}.${cpf.slice(3, 6)}.${cpf.slice(6, 9)}-${cpf.slice(9)}`;
const DAY_MS = 86_400_000;
const numeroOf = (i: number) =>
  `${new Date(Date.UTC(2026, 0, 1) + Math.floor(i / 10_000) * DAY_MS).toISOString().slice(0, 10).replace(/-/g, '')}-${String(i % 10_000).padStart(4, '0')}`;

function buyer(i: number) {
  const nome = pick(FIRST);
  const sobrenome = `${pick(LAST)} ${pick(LAST)}`;
  return {
    nome,
    sobrenome,
    email: `${ascii(nome)}.${ascii(sobrenome.split(' ')[0]!)}.${i}@example.com`,
    cpf: cpfOf(3 * i),
    telefone: '11999990000',
  };
}
function person(i: number, j: number) {
  const nome = `${pick(FIRST)} ${pick(LAST)} ${pick(LAST)}`;
  return {
    Nome: nome,
    CPF: punctuated(cpfOf(3 * i + 1 + j)),
    Email: `${ascii(nome.split(' ')[0]!)}${PEOPLE * i + j}@mail.example`,
  };
}

function fill(sqlite: Sqlite, tenantId: number, upkeep: () => void) {
  const insertOrder = sqlite.prepare(
    `INSERT INTO orders (id, tenant_id, numero_pedido, status, pago_em, origem, cupom, cliente, total_bruto, valor_estornado, created_at, updated_at)
     VALUES (?, ?, ?, 'pago', ?, 'online', NULL, ?, 20000, 0, ?, ?)`,
  );
  const insertLot = sqlite.prepare(
    `INSERT INTO lots (id, order_id, position, ingresso_id, lote_mestre_id, categoria, nome_ingresso, nome_lote, tipo_ingresso, data_uso, valor_unitario)
     VALUES (?, ?, 0, 'ing-1', 'lote-1', 'adulto', 'Passaporte Dia', 'Adulto', 'dayuse', ?, 10000)`,
  );
  const insertPerson = sqlite.prepare(
    `INSERT INTO people (id, tenant_id, order_id, lot_id, position, qr_code, nome, dados) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const page = sqlite.transaction((from: number, to: number) => {
    for (let i = from; i < to; i++) {
      const id = i + 1;
      const at = `${numeroOf(i).slice(0, 4)}-${numeroOf(i).slice(4, 6)}-${numeroOf(i).slice(6, 8)}T15:00:00.000Z`;
      insertOrder.run(id, tenantId, numeroOf(i), at, JSON.stringify(buyer(i)), at, at);
      insertLot.run(id, id, at.slice(0, 10));
      for (let j = 0; j < PEOPLE; j++) {
        const dados = person(i, j);
        insertPerson.run(
          PEOPLE * i + j + 1,
          tenantId,
          id,
          id,
          j,
          crypto.randomUUID(),
          dados.Nome,
          JSON.stringify(dados),
        );
      }
    }
  });
  for (let from = 0; from < ORDERS; from += 1000) {
    page(from, Math.min(ORDERS, from + 1000));
    upkeep();
  }
}

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gate-bench-search-'));
try {
  out(
    `Search over ${int(ORDERS * PEOPLE)} people in ${int(ORDERS)} orders (issue 12): target p99 < ${TARGET_MS} ms per search`,
  );
  for (const line of machine()) out(line);

  // --- Filling, through the triggers -------------------------------------------------------------
  const file = path.join(dir, 'gate.db');
  const filling = openDatabase(file);
  await migrateToLatest(filling);
  filling.sqlite.pragma('synchronous = OFF'); // this connection only; the searches open the file as the box does
  filling.sqlite.pragma('cache_size = -262144');
  const tenantId = ensureTenant(filling, 'bench', new Date().toISOString());
  let started = performance.now();
  fill(filling.sqlite, tenantId, () => catchUpSearchIndex(filling));
  const fillSeconds = (performance.now() - started) / 1000;
  filling.sqlite.pragma('wal_checkpoint(TRUNCATE)');
  const sizes = filling.sqlite.prepare(`SELECT name, sum(pgsize) AS bytes FROM dbstat GROUP BY name`).all() as {
    name: string;
    bytes: number;
  }[];
  const waiting = filling.sqlite.prepare(`SELECT count(*) FROM search_pending`).pluck().get() as number;
  filling.close();
  const size = (test: (name: string) => boolean) => sizes.filter((s) => test(s.name)).reduce((n, s) => n + s.bytes, 0);
  heading('Index on disk');
  out(
    `filled in ${fillSeconds.toFixed(1)} s (${int((ORDERS * PEOPLE) / fillSeconds)} people/s with the index, synchronous=OFF); ${int(waiting)} documents left pending (searched too)`,
  );
  table([
    ['part', 'size'],
    ['search_names (FTS5: data, docsize, idx, config)', mb(size((n) => n.startsWith('search_names')))],
    ['search_keys (FTS5: CPF, e-mail)', mb(size((n) => n.startsWith('search_keys')))],
    ['index total', mb(size((n) => n.startsWith('search_')))],
    [
      'orders + people + lots (tables and their indexes)',
      mb(size((n) => /^(orders|people|lots|sqlite_autoindex_(orders|people|lots))/.test(n))),
    ],
    ['database file', mb(fs.statSync(file).size)],
  ]);

  // --- Searches ----------------------------------------------------------------------------------
  const db = openDatabase(file);
  const s = db.sqlite;
  const personRow = s.prepare(
    `SELECT p.qr_code, p.dados, o.numero_pedido, o.cliente FROM people p JOIN orders o ON o.id = p.order_id WHERE p.id = ?`,
  );
  const pkLookup = s.prepare(`SELECT * FROM orders WHERE id = ?`);
  type Target = { qr_code: string; dados: string; numero_pedido: string; cliente: string };
  const someone = () => personRow.get(1 + Math.floor(random() * ORDERS * PEOPLE)) as Target;
  const prefix = (w: string) => ascii(w).slice(0, 2 + Math.floor(random() * 3));
  // Each kind makes one query and says which order must be among the hits (null: any answer will do).
  const kinds: Record<string, () => { q: string; order: string | null }> = {
    'name prefix (2-4 letters)': () => ({ q: prefix(pick(random() < 0.5 ? FIRST : LAST)), order: null }),
    'two prefixes (first + last)': () => ({ q: `${prefix(pick(FIRST))} ${prefix(pick(LAST))}`, order: null }),
    'full name, accents': () => {
      const t = someone();
      return { q: (JSON.parse(t.dados) as { Nome: string }).Nome, order: null };
    },
    'CPF punctuated': () => {
      const t = someone();
      return { q: (JSON.parse(t.dados) as { CPF: string }).CPF, order: t.numero_pedido };
    },
    'e-mail, full': () => {
      const t = someone();
      return { q: (JSON.parse(t.cliente) as { email: string }).email, order: t.numero_pedido };
    },
    'e-mail, beginning': () => {
      const t = someone();
      const email = (JSON.parse(t.dados) as { Email: string }).Email;
      return { q: email.slice(0, email.indexOf('@') + 3), order: t.numero_pedido };
    },
    'order number': () => {
      const t = someone();
      return { q: t.numero_pedido, order: t.numero_pedido };
    },
    QR: () => {
      const t = someone();
      return { q: t.qr_code, order: t.numero_pedido };
    },
  };
  const samples: Record<string, number[]> = { 'baseline: order by primary key': [] };
  const misses: Record<string, number> = {};
  const hits: Record<string, number> = {};
  for (const k of Object.keys(kinds)) [samples[k], misses[k], hits[k]] = [[], 0, 0];
  for (const make of Object.values(kinds)) for (let i = 0; i < 20; i++) searchOrders(db, tenantId, make().q); // warm-up
  started = performance.now();
  for (let round = 0; round < ROUNDS; round++) {
    for (const [kind, make] of Object.entries(kinds)) {
      for (let i = 0; i < PER_ROUND; i++) {
        const { q, order } = make();
        const t = performance.now();
        const found = searchOrders(db, tenantId, q);
        samples[kind]!.push(performance.now() - t);
        hits[kind]! += found.length;
        if (order !== null && !found.some((h) => h.numero_pedido === order)) misses[kind]! += 1;
        const id = 1 + Math.floor(random() * ORDERS);
        const b = performance.now();
        pkLookup.get(id);
        samples['baseline: order by primary key']!.push(performance.now() - b);
      }
    }
  }
  const searchSeconds = (performance.now() - started) / 1000;
  const base = summarise(samples['baseline: order by primary key']!);
  heading(
    `Searches (${ROUNDS} rounds × ${PER_ROUND} per kind, kinds interleaved; searchOrders on the box's connection settings)`,
  );
  let worst = 0;
  table([
    ['kind', 'n', 'p50', 'p99', 'max', 'p50 / baseline', 'orders found (mean)', 'target order missed'],
    ...Object.keys(samples).map((kind) => {
      const r = summarise(samples[kind]!);
      if (kind in kinds) worst = Math.max(worst, r.p99);
      const found = kind in kinds ? (hits[kind]! / r.n).toFixed(1) : '';
      return [
        kind,
        r.n,
        ms(r.p50),
        ms(r.p99),
        ms(r.max),
        kind in kinds ? `${int(r.p50 / base.p50)}×` : '1×',
        found,
        kind in kinds ? String(misses[kind]) : '',
      ];
    }),
  ]);
  out(
    `searches took ${searchSeconds.toFixed(1)} s; worst p99 ${ms(worst)}: ${worst < TARGET_MS ? 'within' : 'OVER'} the ${TARGET_MS} ms target`,
  );

  // --- What the triggers cost the import, on this database -----------------------------------------
  // Pages of new orders through upsertOrder, as the sync stores them, alternately with the search
  // triggers and without them (dropped for that page: its orders stay unindexed; the run ends here).
  const page = (from: number) =>
    Array.from({ length: IMPORT_PAGE }, (_, k) => {
      const i = ORDERS + from + k;
      return pedidoSchema.parse({
        numero_pedido: numeroOf(i),
        status: 'pago',
        pago_em: '2026-01-01T15:00:00.000Z',
        origem: 'online',
        pagamento: { valores: { total_bruto: 200, valor_estornado: 0 } },
        cliente: buyer(i),
        lotes: [
          {
            ingresso_id: 'ing-1',
            lote_mestre_id: 'lote-1',
            categoria: 'adulto',
            nome_ingresso: 'Passaporte Dia',
            nome_lote: 'Adulto',
            tipo_ingresso: 'dayuse',
            data_uso: '2026-01-02',
            valor_unitario: 100,
            dados: [0, 1].map((j) => ({ qr_code: crypto.randomUUID(), ...person(i, j) })),
          },
        ],
      });
    });
  s.pragma('synchronous = NORMAL'); // as the write queue commits (it fsyncs the WAL itself, off the loop)
  const store = s.transaction((pedidos: Pedido[]) => {
    for (const p of pedidos) upsertOrder(db, tenantId, p, '2026-01-01T16:00:00.000Z');
  });
  const triggerNames = DOCUMENT_TRIGGERS.map((t) => /CREATE TRIGGER (\w+)/.exec(t)![1]!);
  const perOrder = { with: [] as number[], without: [] as number[] };
  for (let round = 0; round < IMPORT_ROUNDS; round++) {
    for (const withIndex of [true, false]) {
      const pedidos = page((2 * round + (withIndex ? 0 : 1)) * IMPORT_PAGE);
      if (!withIndex) for (const name of triggerNames) s.exec(`DROP TRIGGER ${name}`);
      const t = performance.now();
      store(pedidos);
      if (withIndex) catchUpSearchIndex(db);
      perOrder[withIndex ? 'with' : 'without'].push(((performance.now() - t) * 1000) / IMPORT_PAGE);
      if (!withIndex) for (const t of DOCUMENT_TRIGGERS) s.exec(t);
    }
  }
  db.close();
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const [withIndex, without] = [median(perOrder.with), median(perOrder.without)];
  heading(
    `Import cost of the index (upsertOrder on this database, ${IMPORT_ROUNDS} pages of ${int(IMPORT_PAGE)} new orders of 2 people each way; median)`,
  );
  table([
    ['', 'µs per order', 'orders/s', 'pages'],
    [
      'without the search triggers',
      without.toFixed(1),
      int(1e6 / without),
      perOrder.without.map((x) => x.toFixed(0)).join(' '),
    ],
    [
      'with the index (triggers, moves, merges)',
      withIndex.toFixed(1),
      int(1e6 / withIndex),
      perOrder.with.map((x) => x.toFixed(0)).join(' '),
    ],
  ]);
  out(
    `the index adds ${(withIndex - without).toFixed(1)} µs per order (+${((withIndex / without - 1) * 100).toFixed(0)}%)`,
  );
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}
