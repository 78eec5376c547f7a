import fs from 'node:fs';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { verifySecret } from '../../src/operators/operators.repo.js';
import { tempDir } from '../support/box.js';
import { gate, openData } from './run.js';

let dir: string;
beforeEach(async () => {
  dir = tempDir('gate-operators-');
  expect((await gate(dir, ['tenants', 'create', 'parque'])).code).toBe(0);
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

const secretOf = (nome: string) => {
  const db = openData(dir);
  try {
    return (db.sqlite.prepare('SELECT secret_hash FROM operators WHERE nome = ?').get(nome) as { secret_hash: string })
      .secret_hash;
  } finally {
    db.close();
  }
};

it('gate operators add prints a one-time PIN that is kept only as a hash; list and disable', async () => {
  const added = await gate(dir, [
    'operators',
    'add',
    '--tenant',
    'parque',
    '--name',
    'Ana Souza',
    '--role',
    'atendente',
  ]);
  expect(added.code).toBe(0);
  expect(added.stdout).toMatch(/^\d{6}\n$/);
  const pin = added.stdout.trim();
  expect(secretOf('Ana Souza')).not.toContain(pin);
  expect(await verifySecret(pin, secretOf('Ana Souza'))).toBe(true);

  const withPassword = await gate(
    dir,
    ['operators', 'add', '--tenant', 'parque', '--name', 'Sofia', '--role', 'supervisor', '--password'],
    { stdin: 'senha-longa\n' },
  );
  expect(withPassword.code).toBe(0);
  expect(withPassword.stdout).toBe('');
  expect(await verifySecret('senha-longa', secretOf('Sofia'))).toBe(true);

  expect(
    (await gate(dir, ['operators', 'add', '--tenant', 'parque', '--name', 'ana souza', '--role', 'atendente'])).stderr,
  ).toContain('já existe um operador chamado');
  expect((await gate(dir, ['operators', 'add', '--tenant', 'parque', '--name', 'X', '--role', 'chefe'])).code).toBe(2);

  const listed = await gate(dir, ['operators', 'list', '--tenant', 'parque']);
  expect(
    listed.stdout
      .trim()
      .split('\n')
      .map((l) => l.split('\t').slice(1)),
  ).toEqual([
    ['Ana Souza', 'atendente', 'ativo'],
    ['Sofia', 'supervisor', 'ativo'],
  ]);
  const id = listed.stdout.split('\t')[0]!;
  expect((await gate(dir, ['operators', 'disable', '--tenant', 'parque', id])).code).toBe(0);
  expect((await gate(dir, ['operators', 'list', '--tenant', 'parque'])).stdout).toMatch(
    /Ana Souza\tatendente\tdesativado em /,
  );
  expect((await gate(dir, ['operators', 'disable', '--tenant', 'parque', '999'])).code).toBe(1);
});
