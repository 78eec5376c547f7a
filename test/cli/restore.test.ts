import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, expect, it } from 'vitest';
import { createTestBox, tempDir, type TestBox } from '../support/box.js';
import { makeOrder } from '../support/fixtures.js';
import { checkin } from '../support/http.js';
import { gate } from './run.js';

// `gate restore` says what the copy and the current database hold, and refuses a copy that holds less
// unless told --force (issue 22, 6.8: a backup of an empty database was restored without a word).

let box: TestBox | undefined;
afterEach(async () => box?.close());

const eventsIn = (dir: string) => {
  const db = new Database(path.join(dir, 'gate.db'), { readonly: true });
  try {
    return db.prepare('SELECT count(*) FROM events').pluck().get() as number;
  } finally {
    db.close();
  }
};

const backupTo = async (dataDir: string, to: string) => {
  const res = await gate(dataDir, ['backup', '--to', to]);
  expect(res.code, res.stderr).toBe(0);
  return res.stdout.trim();
};

it('shows orders, people, events and the newest event of both; refuses a copy with less unless --force, and says when one is empty', async () => {
  const copies = tempDir('gate-copias-');
  box = await createTestBox();
  box.importOrders(
    Array.from({ length: 3 }, (_, i) =>
      makeOrder({ numero: `20261121-000${i}`, prefix: `RS${i}`, dataUso: '2026-11-21', people: 2 }),
    ),
  );
  for (const code of ['RS0-1', 'RS1-1'])
    expect((await checkin(box, { qr_code: code, terminal: 'c1' })).status).toBe(200);
  const older = await backupTo(box.dir, path.join(copies, 'antiga'));
  expect((await checkin(box, { qr_code: 'RS2-1', terminal: 'c1' })).status).toBe(200);
  const newer = await backupTo(box.dir, path.join(copies, 'nova'));
  const fresh = tempDir('gate-vazio-');
  expect((await gate(fresh, ['migrate'])).code).toBe(0);
  const empty = await backupTo(fresh, path.join(copies, 'vazia'));
  await box.close();
  box = undefined;

  const target = tempDir('gate-alvo-');
  const first = await gate(target, ['restore', newer]);
  expect(first.code, first.stderr).toBe(0);
  expect(first.stdout).toMatch(/^\s+pedidos\s+pessoas\s+eventos\s+evento mais recente$/m);
  expect(first.stdout).toMatch(/^cópia\s+3\s+6\s+3\s+2026-11-21 10:00$/m);
  expect(first.stdout).toMatch(/^banco atual\s+-\s+-\s+-\s+\(não existe\)$/m);
  expect(eventsIn(target)).toBe(3);

  const kept = () =>
    fs.readdirSync(target).filter((f) => f.includes('antes-de-restaurar') || f.includes('restaurando'));
  const fewerEvents = await gate(target, ['restore', older]);
  expect(fewerEvents.code).toBe(1);
  expect(fewerEvents.stdout).toMatch(/^cópia\s+3\s+6\s+2\s+2026-11-21 10:00$/m);
  expect(fewerEvents.stdout).toMatch(/^banco atual\s+3\s+6\s+3\s+2026-11-21 10:00$/m);
  expect(fewerEvents.stderr).toContain('a cópia tem menos que o banco atual (eventos: 2 na cópia, 3 no banco atual)');
  expect(fewerEvents.stderr).toContain('gate restore --force ARQUIVO');
  const emptyOne = await gate(target, ['restore', empty]);
  expect(emptyOne.code).toBe(1);
  expect(emptyOne.stdout).toMatch(/^cópia\s+0\s+0\s+0\s+\(nenhum\)$/m);
  expect(emptyOne.stderr).toContain('pedidos: 0 na cópia, 3 no banco atual');
  expect(emptyOne.stderr).toContain('o evento mais recente da cópia é anterior ao do banco atual');
  expect(eventsIn(target)).toBe(3);
  expect(kept()).toEqual([]);

  const forced = await gate(target, ['restore', '--force', empty]);
  expect(forced.code, forced.stderr).toBe(0);
  expect(forced.stderr).toContain('atenção: a cópia não tem pedidos nem eventos');
  expect(eventsIn(target)).toBe(0);
  expect(kept()).toHaveLength(1);
});
