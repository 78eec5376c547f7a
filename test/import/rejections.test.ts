import fs from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { count, gate, openData, writeImportFile } from '../cli/run.js';
import { tempDir } from '../support/box.js';
import { makeOrder } from '../support/fixtures.js';
import { availability, client, combo, orders } from './data.js';

let dir: string;
beforeEach(async () => {
  dir = tempDir('gate-import-');
  expect((await gate(dir, ['tenants', 'create', 'parque'])).code).toBe(0);
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

const importFile = (content: unknown) => gate(dir, ['import', '--tenant', 'parque', writeImportFile(dir, content)]);

/** Rows in the tables an import writes, and whether the tenant (created before each test) is there. */
function written() {
  const db = openData(dir);
  try {
    const tenant = db.sqlite.prepare("select count(*) as n from tenants where slug = 'parque'").get() as { n: number };
    return {
      tenant: tenant.n,
      orders: count(db, 'orders'),
      people: count(db, 'people'),
      combos: count(db, 'combos'),
      clients: count(db, 'clients'),
    };
  } finally {
    db.close();
  }
}
const NOTHING = { tenant: 1, orders: 0, people: 0, combos: 0, clients: 0 };

describe('gate import refuses a bad file and writes nothing', () => {
  it('names the exact path of a bad field', async () => {
    const pedidos = orders(3);
    pedidos[1]!.lotes[0]!.data_uso = '21/11/2026';
    const res = await importFile({ pedidos, combos: [combo()] });

    expect(res.code).toBe(1);
    expect(res.stderr).toContain('pedidos[1].lotes[0].data_uso: use o formato YYYY-MM-DD');
    expect(res.stderr).toContain('nada foi gravado');
    expect(written()).toEqual(NOTHING);
  });

  it('also when the bad record is the last one after many good ones', async () => {
    // More good orders than one write transaction holds, so a single pass would have committed some.
    const pedidos = orders(700);
    pedidos[699]!.pagamento.valores.total_pago = 1;
    const res = await importFile({ pedidos });

    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(/pedidos\[699\]\.pagamento\.valores\.total_pago: não confere/);
    expect(written()).toEqual(NOTHING);
  });

  it('refuses a QR repeated across two orders of the file', async () => {
    const a = makeOrder({ numero: '20261121-0001', prefix: 'A' });
    const b = makeOrder({ numero: '20261121-0002', prefix: 'B' });
    b.lotes[0]!.dados[1]!.qr_code = 'A-2';
    const res = await importFile({ pedidos: [a, b] });

    expect(res.code).toBe(1);
    expect(res.stderr).toContain(
      'pedidos[1].lotes[0].dados[1].qr_code: qr_code A-2 repetido no arquivo (já em pedidos[0])',
    );
    expect(written()).toEqual(NOTHING);
  });

  it('refuses a QR that belongs to another order of the tenant already in the database', async () => {
    expect((await importFile({ pedidos: [makeOrder({ numero: '20261121-0001', prefix: 'A' })] })).code).toBe(0);
    const res = await importFile({ pedidos: [makeOrder({ numero: '20261121-0009', prefix: 'A' })] });

    expect(res.code).toBe(1);
    expect(res.stderr).toContain(
      'pedidos[0].lotes[0].dados[0].qr_code: qr_code A-1 já pertence ao pedido 20261121-0001',
    );
    expect(written()).toMatchObject({ orders: 1, people: 2 });
  });

  it('refuses a repeated order number, an unknown combo and an unknown key, all in one report', async () => {
    const res = await importFile({
      pedidos: [
        makeOrder({ numero: '20261121-0001', prefix: 'A' }),
        makeOrder({ numero: '20261121-0001', prefix: 'B' }),
      ],
      disponibilidade: [availability('combo-que-nao-existe')],
      clientes: [client(1), client(2), client(1)],
      pedido: [],
    });

    expect(res.code).toBe(1);
    expect(res.stderr).toContain('gate import: 4 erros');
    expect(res.stderr).toMatch(/clientes\[2\]\.id: cliente \S+ repetido no arquivo \(já em clientes\[0\]\)/);
    expect(res.stderr).toContain(
      'pedidos[1].numero_pedido: pedido 20261121-0001 repetido no arquivo (já em pedidos[0])',
    );
    expect(res.stderr).toContain('disponibilidade[0].combo_id: combo combo-que-nao-existe desconhecido');
    expect(res.stderr).toContain('pedido: chave desconhecida');
    expect(written()).toEqual(NOTHING);
  });

  it('lists at most 20 problems and counts the rest', async () => {
    const pedidos = orders(30).map((p) => ({ ...p, origem: 'loja' }));
    const res = await importFile({ pedidos });

    expect(res.code).toBe(1);
    const listed = res.stderr.split('\n').filter((l) => l.startsWith('  pedidos['));
    expect(listed).toHaveLength(20);
    expect(listed[0]).toMatch(/^ {2}pedidos\[0\]\.origem: /);
    expect(res.stderr).toContain('... e mais 10 erros');
  });

  it('says where malformed JSON breaks, by line, column and byte', async () => {
    const good = JSON.stringify({ pedidos: orders(2) }, null, 2);
    // Drop the comma that ends the line of the second order's status.
    const lines = good.split('\n');
    const at = lines.findIndex(
      (l, i) => i > lines.findIndex((x) => x.includes('"20261121-0002"')) && l.includes('"status"'),
    );
    lines[at] = lines[at]!.replace(/,$/, '');
    const res = await importFile(lines.join('\n'));

    expect(res.code).toBe(1);
    // The parser stops at the next key, on the following line, after its indentation.
    const column = lines[at + 1]!.indexOf('"') + 1;
    expect(res.stderr).toContain(
      `JSON malformado na linha ${at + 2}, coluna ${column} (byte ${Buffer.byteLength(lines.slice(0, at + 1).join('\n')) + 1 + column - 1}): esperava ','`,
    );
    expect(written()).toEqual(NOTHING);
  });

  it('finds a syntax error far into a big file, past the first chunks', async () => {
    const text = JSON.stringify({ pedidos: orders(400) });
    // A stray character where the last order's first key should start.
    const cut = text.lastIndexOf('"numero_pedido"');
    const broken = `${text.slice(0, cut)}@${text.slice(cut)}`;
    const res = await importFile(broken);

    expect(res.code).toBe(1);
    // Columns count characters; the byte offset counts the UTF-8 of "Praça da Sé" and the like.
    expect(res.stderr).toContain(`linha 1, coluna ${cut + 1} (byte ${Buffer.byteLength(text.slice(0, cut))})`);
  });

  it('says when the file ends before the JSON does', async () => {
    const text = JSON.stringify({ pedidos: orders(2) });
    const res = await importFile(text.slice(0, -2));
    expect(res.code).toBe(1);
    expect(res.stderr).toContain(`JSON incompleto: o arquivo acaba na linha 1, coluna ${text.length - 1}`);
    expect(written()).toEqual(NOTHING);
  });

  it('refuses a file that is not an object of lists', async () => {
    const array = await importFile([makeOrder()]);
    expect(array.code).toBe(1);
    expect(array.stderr).toContain('o arquivo deve ser um objeto JSON');

    const notList = await importFile({ pedidos: { numero_pedido: '20261121-0001' } });
    expect(notList.code).toBe(1);
    expect(notList.stderr).toContain('pedidos: deve ser uma lista');
    expect(written()).toEqual(NOTHING);
  });

  it('reports a missing file', async () => {
    const res = await gate(dir, ['import', '--tenant', 'parque', `${dir}/nao-existe.json`]);
    expect(res.code).toBe(1);
    expect(res.stderr).toContain('arquivo não encontrado');
  });
});
