import crypto from 'node:crypto';
import fs from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { gate, openData, writeImportFile } from '../cli/run.js';
import { tempDir } from '../support/box.js';
import { availability, client, combo, orders } from './data.js';

let dir: string;
beforeEach(async () => {
  dir = tempDir('gate-dry-run-');
  expect((await gate(dir, ['tenants', 'create', 'parque'])).code).toBe(0);
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

/** Every row of every table, hashed: equal before and after means nothing was written. */
function contents(): string {
  const db = openData(dir);
  try {
    const tables = db.sqlite
      .prepare(`select name from sqlite_schema where type = 'table' order by name`)
      .pluck()
      .all() as string[];
    const hash = crypto.createHash('sha256');
    for (const t of tables) {
      const rows = (db.sqlite.prepare(`select * from "${t}"`).raw().all() as unknown[][])
        .map((r) => JSON.stringify(r))
        .sort();
      hash.update(`${t}\n${rows.join('\n')}\n`);
    }
    return hash.digest('hex');
  } finally {
    db.close();
  }
}

const body = (stdout: string) => stdout.split('\n').slice(1).join('\n');

describe('gate import --dry-run', () => {
  it('reports what the import would do, writes nothing, and the real run then reports the same', async () => {
    expect(
      (
        await gate(dir, [
          'import',
          '--tenant',
          'parque',
          writeImportFile(dir, { pedidos: orders(2), clientes: [client(1)] }, 'first.json'),
        ])
      ).code,
    ).toBe(0);
    // Two orders already there (one of them now cancelled), three new; a new combo and its dates.
    const pedidos = orders(5);
    pedidos[0] = { ...pedidos[0]!, status: 'cancelado' };
    const file = writeImportFile(dir, {
      pedidos,
      combos: [combo()],
      disponibilidade: [availability()],
      clientes: [client(1), client(2)],
    });
    const before = contents();

    const dry = await gate(dir, ['import', '--dry-run', '--tenant', 'parque', file]);
    expect(dry.code).toBe(0);
    expect(dry.stdout).toBe(
      'tenant parque (simulação: nada foi gravado; a importação faria):\n' +
        '  combos: 1 criado, 0 atualizados\n' +
        '  disponibilidade: 1 combo, 2 datas\n' +
        '  clientes: 1 criado, 1 atualizado\n' +
        '  pedidos: 3 criados, 2 atualizados (1 com novo status)\n',
    );
    expect(dry.stderr).toMatch(/^validação concluída: 9 registros/);
    expect(contents()).toBe(before);

    const real = await gate(dir, ['import', '--tenant', 'parque', file]);
    expect(real.code).toBe(0);
    expect(real.stdout.split('\n')[0]).toBe('tenant parque:');
    expect(body(real.stdout)).toBe(body(dry.stdout));
    expect(contents()).not.toBe(before);

    // Once imported, a dry run of the same file says it would only update.
    const again = await gate(dir, ['import', '--dry-run', '--tenant', 'parque', file]);
    expect(body(again.stdout)).toBe(
      '  combos: 0 criados, 1 atualizado\n  disponibilidade: 1 combo, 2 datas\n  clientes: 0 criados, 2 atualizados\n  pedidos: 0 criados, 5 atualizados\n',
    );
  });

  it('lists the rejections with their reasons, exits 1 and writes nothing', async () => {
    const pedidos = orders(3);
    pedidos[2]!.lotes[0]!.data_uso = '2026-02-30';
    const before = contents();
    const res = await gate(dir, [
      'import',
      '--dry-run',
      '--tenant',
      'parque',
      writeImportFile(dir, { pedidos, disponibilidade: [availability('combo-x')] }),
    ]);
    expect(res.code).toBe(1);
    expect(res.stdout).toBe('');
    expect(res.stderr).toContain('gate import --dry-run: 2 erros em');
    expect(res.stderr).toContain('a importação seria recusada e nada seria gravado');
    expect(res.stderr).toContain('  pedidos[2].lotes[0].data_uso: data inexistente');
    expect(res.stderr).toContain(
      '  disponibilidade[0].combo_id: combo combo-x desconhecido (não está no arquivo nem no banco)',
    );
    expect(contents()).toBe(before);
  });
});
