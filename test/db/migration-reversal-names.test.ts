import fs from 'node:fs';
import path from 'node:path';
import { Migrator } from 'kysely';
import { afterEach, expect, it } from 'vitest';
import { migrations } from '../../migrations/index.js';
import { createCheckinService } from '../../src/checkin/checkin.service.js';
import { createFixedClock } from '../../src/clock.js';
import { migrateToLatest, openDatabase, type Db } from '../../src/db/open.js';
import { pedidoSchema } from '../../src/orders/order.schemas.js';
import { upsertOrder } from '../../src/orders/orders.repo.js';
import { ensureTenant } from '../../src/tenants/tenants.repo.js';
import { makeOrder } from '../support/fixtures.js';
import { tempDir } from '../support/temp.js';
import { onOlderSchema } from '../support/older-schema.js';

// 0011 renames the columns of an additional's redeemed units to people's names: units redeemed and
// reversed before the upgrade keep who, where and when, and the answers built from them are the same.

let dir: string | null = null;
let db: Db | null = null;
afterEach(() => {
  db?.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
  db = dir = null;
});

it('migration 0011 keeps the redeemed and reversed units of additionals: a second reversal is refused with the original one', async () => {
  dir = tempDir('gate-mig-');
  db = openDatabase(path.join(dir, 'gate.db'));
  const migrator = new Migrator({ db: db.kysely, provider: { getMigrations: async () => migrations } });
  expect((await migrator.migrateTo('0010_clock')).error).toBeUndefined();
  const clock = createFixedClock('America/Sao_Paulo', '2026-11-21T13:00:00.000Z');
  const tenantId = ensureTenant(db, 'parque', clock.nowIso());
  const adicional = {
    adicional_id: 'a1',
    nome: 'Refrigerante',
    quantidade: 2,
    preco_unitario: 8,
    subtotal: 16,
    codigo_integracao: 'REF',
  };
  const old = db;
  onOlderSchema(old, () =>
    upsertOrder(
      old,
      tenantId,
      pedidoSchema.parse(
        makeOrder({
          prefix: 'MIG',
          adicionais: [
            { ...adicional, adicional_qr_code: 'ADQR0000000001' },
            { ...adicional, adicional_id: 'a2', adicional_qr_code: 'ADQR0000000002' },
          ],
        }),
      ),
      clock.nowIso(),
    ),
  );
  const ids = db.sqlite.prepare('SELECT id FROM additionals ORDER BY position').pluck().all() as number[];
  const redeem = db.sqlite.prepare(
    'INSERT INTO additional_redemptions (additional_id, redeemed_at, terminal, operador, reversed_at, reversal_terminal, reversal_operador) VALUES (?, ?, ?, ?, ?, ?, ?)',
  );
  redeem.run(ids[0], '2026-11-21T12:00:00.000Z', 'c1', 'Ana', '2026-11-21T12:30:00.000Z', 'c2', 'Beto');
  redeem.run(ids[1], '2026-11-21T12:05:00.000Z', 'c1', 'Ana', null, null, null);
  redeem.run(ids[1], '2026-11-21T12:06:00.000Z', 'c3', null, null, null, null);

  // 0011 and every later one.
  expect((await migrateToLatest(db))[0]).toBe('0011_reversal_names');
  expect(
    db.sqlite
      .prepare(
        'SELECT additional_id, checkin_em, checkin_dispositivo, checkin_operador, estornado_em, estorno_dispositivo, estorno_operador FROM additional_redemptions ORDER BY id',
      )
      .raw()
      .all(),
  ).toEqual([
    [ids[0], '2026-11-21T12:00:00.000Z', 'c1', 'Ana', '2026-11-21T12:30:00.000Z', 'c2', 'Beto'],
    [ids[1], '2026-11-21T12:05:00.000Z', 'c1', 'Ana', null, null, null],
    [ids[1], '2026-11-21T12:06:00.000Z', 'c3', null, null, null, null],
  ]);

  const service = createCheckinService({ db, clock });
  const caller = { tenantId, apiKeyId: null, keyName: null, source: 'api' };
  const again = await service.reverse({ code: 'ADQR0000000001', terminal: 'c4' }, caller);
  expect(again.batch ? null : again.result).toEqual({
    ok: false,
    code: 'JA_ESTORNADO',
    details: {
      qr_code: 'ADQR0000000001',
      estornado_em: '2026-11-21T12:30:00.000Z',
      estorno_operador: 'Beto',
      estorno_terminal: 'c2',
    },
  });
  // Both units of the second one were redeemed before the upgrade: it is used up.
  const used = await service.checkIn({ code: 'ADQR0000000002' }, caller);
  expect(used.batch ? null : used.result).toMatchObject({
    ok: false,
    code: 'TICKET_ALREADY_USED',
    details: {
      qr_code: 'ADQR0000000002',
      checkin_em: '2026-11-21T12:06:00.000Z',
      quantidade: 2,
      unidades_utilizadas: 2,
    },
  });
});
