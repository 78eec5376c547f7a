import path from 'node:path';
import fs from 'node:fs';
import { Migrator } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { migrations } from '../../migrations/index.js';
import { classifyQuery, searchOrders } from '../../src/console/search.repo.js';
import { migrateToLatest, openDatabase } from '../../src/db/open.js';
import { catchUpSearchIndex, MOVE_CHUNK, MOVE_DOCS, searchIndexUpkeep } from '../../src/db/search-index.js';
import { upsertOrder } from '../../src/orders/orders.repo.js';
import { pedidoSchema, type PedidoInput } from '../../src/orders/order.schemas.js';
import { ensureTenant } from '../../src/tenants/tenants.repo.js';
import { createTestBox, tempDir, type TestBox } from '../support/box.js';
import { makeOrder } from '../support/fixtures.js';
import { onOlderSchema } from '../support/older-schema.js';

// The help desk's search over the index that migration 0008 builds and its triggers keep: every
// order here is stored by the real import (upsertOrder), never written into the index by the test.

type Person = Record<string, string>;
function order(
  numero: string,
  buyer: Partial<PedidoInput['cliente']>,
  people: Person[],
  extra: Partial<PedidoInput> = {},
): PedidoInput {
  const o = makeOrder({ numero, people: people.length });
  Object.assign(o.cliente, buyer);
  o.lotes[0]!.dados = people.map((p, i) => ({ qr_code: `QR-${numero}-${i + 1}`, ...p }));
  return Object.assign(o, extra);
}

/** Moves every pending document into the FTS5 tables, as the box's upkeep does a piece at a time. */
function moveAll(db: TestBox['db']) {
  catchUpSearchIndex(db);
  expect(db.sqlite.prepare('select count(*) from search_pending').pluck().get()).toBe(0);
}

let box: TestBox;
/** Stores orders as the import does, and leaves their documents pending (the box's upkeep is kept away here). */
const store = (pedidos: PedidoInput[], tenant = box.tenantId) =>
  box.db.sqlite.transaction(() => {
    for (const p of pedidos) upsertOrder(box.db, tenant, pedidoSchema.parse(p), box.clock.nowIso());
  })();
const search = (q: string, tenant = box.tenantId) => searchOrders(box.db, tenant, q);
const numbers = (q: string, tenant?: number) => search(q, tenant).map((h) => h.numero_pedido);

beforeEach(async () => {
  // The box's upkeep of the index never comes round during a test here: the test moves the documents itself.
  box = await createTestBox({ searchIdleMs: 2 ** 31 - 1 });
  store([
    order(
      '20261120-0001',
      { nome: 'Maria', sobrenome: 'Silva', email: 'maria.silva@example.com', cpf: '12345678909' },
      [
        { Nome: 'João Araújo', CPF: '987.654.321-00', Email: 'Joao.Araujo@Mail.com' },
        { Nome: 'Ana Beatriz Conceição', CPF: '' },
      ],
    ),
    order(
      '20261120-0002',
      { nome: 'Pedro', sobrenome: 'Souza', email: 'pedro@example.com', cpf: '11122233344' },
      [{ Nome: 'Anabela Souza' }],
      {
        adicionais: [
          {
            adicional_id: '00000000-0000-4000-8000-000000000009',
            nome: 'Almoço',
            quantidade: 1,
            preco_unitario: 30,
            subtotal: 30,
            adicional_qr_code: 'AD000000000001',
          },
        ],
      },
    ),
  ]);
});
afterEach(async () => {
  await box.close();
});

// Each behaviour twice: with the documents still pending (matched by the search itself) and moved
// into the FTS5 tables (matched by FTS5).
describe.each(['pending', 'moved'] as const)('searchOrders, documents %s', (state) => {
  beforeEach(() => {
    if (state === 'moved') moveAll(box.db);
  });

  it('ignores accents and case, both in the query and in the stored name', () => {
    for (const q of ['joao', 'JOAO', 'João', 'jOãO araújo', 'conceicao', 'CONCEIÇÃO'])
      expect(numbers(q), q).toEqual(['20261120-0001']);
    const [hit] = search('joao');
    expect(hit).toEqual({
      numero_pedido: '20261120-0001',
      status: 'pago',
      cliente_nome: 'Maria Silva',
      cliente_email: 'maria.silva@example.com',
      total_pessoas: 2,
      checkins: 0,
      data_uso: '2026-11-21',
      encontrado: 'João Araújo',
    });
  });

  it('takes the beginning of any word of the name, every word typed must match, and not the middle of a word', () => {
    expect(numbers('silv')).toEqual(['20261120-0001']);
    expect(search('silv')[0]!.encontrado).toBe('Maria Silva'); // the buyer's name
    expect(numbers('jo ara')).toEqual(['20261120-0001']);
    expect(numbers('bea ana')).toEqual(['20261120-0001']);
    expect(numbers('souz')).toEqual(['20261120-0002']);
    expect(numbers('ana')).toEqual(['20261120-0002', '20261120-0001']); // Anabela, Ana Beatriz: newest first
    expect(numbers('joao souza')).toEqual([]);
    expect(numbers('ilva')).toEqual([]);
    expect(numbers('a')).toEqual([]); // one letter is a whole word (an initial), not a prefix
  });

  it("finds a CPF with or without punctuation, the buyer's and a person's", () => {
    for (const q of ['12345678909', '123.456.789-09', ' 123 456 789 09 '])
      expect(search(q), q).toMatchObject([{ numero_pedido: '20261120-0001', encontrado: 'CPF' }]);
    expect(numbers('987.654.321-00')).toEqual(['20261120-0001']);
    expect(numbers('98765432100')).toEqual(['20261120-0001']);
    expect(numbers('98765432101')).toEqual([]);
  });

  it('finds an e-mail in full or by its beginning, in any case', () => {
    expect(search('maria.silva@example.com')).toMatchObject([
      { numero_pedido: '20261120-0001', encontrado: 'maria.silva@example.com' },
    ]);
    expect(numbers('MARIA.SILVA@EXA')).toEqual(['20261120-0001']);
    expect(search('joao.araujo@')).toMatchObject([
      { numero_pedido: '20261120-0001', encontrado: 'joao.araujo@mail.com' },
    ]);
    expect(numbers('pedro@example.com')).toEqual(['20261120-0002']);
    expect(numbers('@example.com')).toEqual([]);
  });

  it('finds an order number in full, by its beginning, or typed without the dash', () => {
    expect(search('20261120-0002')).toMatchObject([{ numero_pedido: '20261120-0002', encontrado: 'número do pedido' }]);
    expect(numbers('202611200002')).toEqual(['20261120-0002']);
    expect(numbers('20261120-')).toEqual(['20261120-0002', '20261120-0001']);
    expect(numbers('20261120')).toEqual(['20261120-0002', '20261120-0001']);
    expect(numbers('20261120-0003')).toEqual([]);
  });

  it("finds a person's QR (in any case) and an additional's QR", () => {
    expect(search('QR-20261120-0001-2')).toMatchObject([{ numero_pedido: '20261120-0001', encontrado: 'QR' }]);
    expect(numbers('qr-20261120-0001-2')).toEqual(['20261120-0001']);
    expect(numbers('QR-20261120-000')).toEqual(['20261120-0002', '20261120-0001']); // beginning of a QR, from 8 characters
    expect(search('AD000000000001')).toMatchObject([{ numero_pedido: '20261120-0002', encontrado: 'QR do adicional' }]);
  });

  it('counts people and check-ins of each order found', () => {
    box.db.sqlite
      .prepare(`update people set checkin_em = '2026-11-21T13:00:00.000Z' where qr_code = 'QR-20261120-0001-1'`)
      .run();
    expect(search('20261120-0001')[0]).toMatchObject({ total_pessoas: 2, checkins: 1 });
  });

  it('answers at most 20 orders, the newest first', () => {
    store(
      Array.from({ length: 25 }, (_, i) =>
        order(`20261121-${String(i).padStart(4, '0')}`, { nome: 'Rosa', sobrenome: 'Lima' }, [{ Nome: 'Criança' }]),
      ),
    );
    const found = numbers('rosa lima');
    expect(found).toHaveLength(20);
    expect(found[0]).toBe('20261121-0024');
    expect(searchOrders(box.db, box.tenantId, 'rosa', 5)).toHaveLength(5);
  });

  it("never shows another tenant's orders", () => {
    store(
      [
        order(
          '20261120-0009',
          { nome: 'Maria', sobrenome: 'Silva', email: 'maria.silva@example.com', cpf: '12345678909' },
          [{ Nome: 'Joana Outra', Email: 'joana@outro.com' }],
        ),
      ],
      box.otherTenantId,
    );
    for (const q of [
      'maria silva',
      '12345678909',
      'maria.silva@',
      'joana',
      'joana@outro.com',
      '20261120-0009',
      'QR-20261120-0009-1',
      '20261120',
    ]) {
      expect(numbers(q), q).not.toContain('20261120-0009');
      expect(
        numbers(q, box.otherTenantId).every((n) => n === '20261120-0009'),
        q,
      ).toBe(true);
    }
    expect(numbers('maria silva', box.otherTenantId)).toEqual(['20261120-0009']);
    expect(numbers('joao', box.otherTenantId)).toEqual([]);
  });

  it('follows a second import: a changed name, e-mail or CPF is found under the new value only', () => {
    store([
      order(
        '20261120-0001',
        { nome: 'Mariana', sobrenome: 'Teixeira', email: 'mariana@example.com', cpf: '55566677788' },
        [
          { Nome: 'Joaquim Araújo', CPF: '987.654.321-00', Email: 'joao.araujo@mail.com' },
          { Nome: 'Ana Beatriz Conceição', CPF: '' },
        ],
      ),
    ]);
    expect(numbers('joaquim')).toEqual(['20261120-0001']);
    expect(numbers('joao')).toEqual([]);
    expect(search('teixeira')).toMatchObject([{ encontrado: 'Mariana Teixeira', cliente_nome: 'Mariana Teixeira' }]);
    expect(numbers('maria silva')).toEqual([]);
    expect(numbers('maria.silva@example.com')).toEqual([]);
    expect(numbers('12345678909')).toEqual([]);
    expect(numbers('55566677788')).toEqual(['20261120-0001']);
    expect(numbers('98765432100')).toEqual(['20261120-0001']); // unchanged person keeps its keys
  });

  it('forgets a person the second import leaves out, and everything of a deleted order', () => {
    const ana = { qr_code: 'QR-20261120-0001-2', Nome: 'Ana Beatriz Conceição' };
    store([
      order(
        '20261120-0001',
        { nome: 'Maria', sobrenome: 'Silva', email: 'maria.silva@example.com', cpf: '12345678909' },
        [ana],
      ),
    ]);
    for (const q of ['joao', 'araujo', '98765432100', 'joao.araujo@mail.com', 'QR-20261120-0001-1'])
      expect(numbers(q), q).toEqual([]);
    expect(numbers('beatriz')).toEqual(['20261120-0001']);

    const s = box.db.sqlite;
    s.prepare(`delete from orders where numero_pedido = '20261120-0002'`).run(); // people go by ON DELETE CASCADE
    for (const q of ['pedro', 'anabela', 'pedro@example.com', '11122233344']) expect(numbers(q), q).toEqual([]);
    // What is left is order 1's: the names of the buyer and of Ana, the buyer's keys (one document).
    const count = (table: string, pending: string) =>
      (s.prepare(`select count(*) from ${table}_docsize`).pluck().get() as number) +
      (s.prepare(`select count(distinct doc) from ${pending}`).pluck().get() as number);
    expect([count('search_names', 'search_pending_names'), count('search_keys', 'search_pending_keys')]).toEqual([
      2, 1,
    ]);
  });

  it('reads hostile or odd input as plain text: never throws, blank finds nothing', () => {
    const odd = [
      '"ana" OR *',
      '*',
      '"',
      "'",
      'ana"',
      'NEAR(ana silva)',
      'nome:ana',
      '^ana',
      'ana AND',
      '(',
      ')',
      '-ana',
      '+',
      'OR',
      '\u0000',
      '%',
      '_',
      '\\',
      '🙂',
      'ana\u0301',
      'x'.repeat(5000),
      '@',
      '@@',
      '"@"',
      '"ana" OR *@',
      'a"b@c',
      "o'brien@x",
      '*@*',
      '.',
      '-',
      '20261120-',
      ' '.repeat(10),
      '\t\n',
    ];
    for (const q of odd) expect(() => search(q), JSON.stringify(q)).not.toThrow();
    expect(numbers('"ana" *')).toEqual(['20261120-0002', '20261120-0001']);
    expect(numbers('"ana" OR *')).toEqual([]); // "or" is one more word every name found must have
    for (const q of ['', '   ', '\t\n']) expect(search(q)).toEqual([]);
  });
});

describe('the pending documents', () => {
  it('move to the FTS5 tables a piece at a time; both places are searched and kept right on re-import', () => {
    const s = box.db.sqlite;
    const many = (n: number, surname: string) =>
      order(
        `20261122-${String(n).padStart(4, '0')}`,
        { nome: 'Rosa', sobrenome: surname, email: `rosa${n}@${surname}.com` },
        [{ Nome: `Filho ${n} Lima` }],
      );
    const total = MOVE_DOCS / 2 + 20; // 2 documents each, + the 5 of beforeEach: one piece moves some, some wait
    const last = total - 1;
    const numero = (n: number) => `20261122-${String(n).padStart(4, '0')}`;
    store(Array.from({ length: total }, (_, n) => many(n, 'Lima')));
    const piece = s.transaction(searchIndexUpkeep(box.db).move)();
    expect(piece).toBeGreaterThanOrEqual(MOVE_CHUNK); // the lowest ids first: orders 0 to 3 among them
    expect(piece).toBeLessThanOrEqual(MOVE_DOCS);
    const moved = s.prepare('select count(*) from search_names_docsize').pluck().get() as number;
    const waiting = s.prepare('select count(*) from search_pending').pluck().get() as number;
    expect([moved, waiting]).toEqual([piece, 5 + 2 * total - piece]);
    expect(numbers('rosa lima')).toHaveLength(20);
    expect(numbers('filho 3')).toEqual(['20261122-0003']); // moved
    expect(numbers(`filho ${last}`)).toEqual([numero(last)]); // waiting

    store([many(3, 'Prado'), many(last, 'Prado')]); // the buyer's name changes, in each place
    expect(numbers('rosa prado')).toEqual([numero(last), '20261122-0003']);
    for (const n of [3, last]) {
      expect(numbers(`rosa${n}@lima.com`)).toEqual([]);
      expect(numbers(`rosa${n}@prado.com`)).toEqual([numero(n)]);
    }
    expect(search('rosa4@lima.c')).toMatchObject([{ numero_pedido: '20261122-0004', encontrado: 'rosa4@lima.com' }]); // moved
    expect(numbers('rosa lima')).not.toContain('20261122-0003');
    const rosaLima = s
      .prepare(`select count(*) from search_names where search_names match 'rosa lima'`)
      .pluck()
      .get() as number;
    const rosaLimaWaiting = (s.prepare('select nome from search_pending_names').pluck().all() as string[]).filter(
      (n) => n === 'Rosa Lima',
    ).length;
    expect(rosaLima + rosaLimaWaiting).toBe(total - 2);
    s.prepare(`delete from orders where numero_pedido in (?, ?)`).run(numero(3), numero(last));
    for (const q of ['rosa prado', 'filho 3', `filho ${last}`, 'rosa3@', `rosa${last}@`])
      expect(numbers(q), q).toEqual([]);
  });
});

describe('classifyQuery', () => {
  it('tells CPF, order number, e-mail and text apart', () => {
    expect(classifyQuery('123.456.789-09')).toEqual({ kind: 'cpf', cpf: '12345678909' });
    expect(classifyQuery('12345678909')).toEqual({ kind: 'cpf', cpf: '12345678909' });
    expect(classifyQuery('20261120-0001')).toEqual({ kind: 'pedido', numero: '20261120-0001', exact: true });
    expect(classifyQuery('20261120-001')).toEqual({ kind: 'pedido', numero: '20261120-001', exact: false });
    expect(classifyQuery(' Maria@Example.COM ')).toEqual({ kind: 'email', email: 'maria@example.com' });
    expect(classifyQuery('João  da Silva')).toEqual({ kind: 'texto', words: ['joao', 'da', 'silva'], code: null });
    expect(classifyQuery('  ')).toEqual({ kind: 'vazia' });
  });
});

describe('migration 0008_search', () => {
  let dir: string;
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('indexes the orders and people already stored', async () => {
    dir = tempDir('gate-search-');
    const db = openDatabase(path.join(dir, 'gate.db'));
    try {
      const migrator = new Migrator({ db: db.kysely, provider: { getMigrations: async () => migrations } });
      expect((await migrator.migrateTo('0007_console')).error).toBeUndefined();
      const tenantId = ensureTenant(db, 'parque', '2026-11-21T13:00:00.000Z');
      const o = order(
        '20261120-0042',
        { nome: 'Cecília', sobrenome: 'Müller', email: 'cecilia@example.com', cpf: '12345678909' },
        [
          { Nome: 'Otávio Müller', CPF: '111.222.333-44', 'E-mail': 'O.Muller@Example.com' },
          { Nome: "Ana O'Brien", Email: "ana.o'brien@example.com" },
        ],
      );
      onOlderSchema(db, () =>
        db.sqlite.transaction(() => upsertOrder(db, tenantId, pedidoSchema.parse(o), '2026-11-21T13:00:00.000Z'))(),
      );
      await migrateToLatest(db);
      for (const q of ['cecilia muller', 'otavio', '111.222.333-44', '12345678909', 'cecilia@'])
        expect(
          searchOrders(db, tenantId, q).map((h) => h.numero_pedido),
          q,
        ).toEqual(['20261120-0042']);
      expect(searchOrders(db, tenantId, 'otavio')[0]!.encontrado).toBe('Otávio Müller');
      expect(searchOrders(db, tenantId, 'cecilia@ex')[0]!.encontrado).toBe('cecilia@example.com');
      expect(searchOrders(db, tenantId, 'o.muller@')[0]!.encontrado).toBe('o.muller@example.com');
      // An address with a character that splits FTS5 tokens is still found, in full or by its beginning.
      for (const q of ["ana.o'brien@example.com", "ana.o'brien@ex"])
        expect(searchOrders(db, tenantId, q)[0]?.encontrado, q).toBe("ana.o'brien@example.com");
    } finally {
      db.close();
    }
  });
});
