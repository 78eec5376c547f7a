import fs from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createFixedClock } from '../../src/clock.js';
import { loadConfig } from '../../src/config.js';
import { demoWarning } from '../../src/demo/retire.js';
import { main } from '../../src/main.js';
import { bootBox, tempDir, TZ } from '../support/box.js';
import { count, gate, openData, writeImportFile } from './run.js';
import { orders } from '../import/data.js';

const EXAMPLE = 'docs/examples/importacao.json';
const KEY = /gk_[0-9a-f]{12}_[A-Za-z0-9_-]{43}/g;

let dir: string;
beforeEach(() => {
  dir = tempDir('gate-tenants-');
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

/** What a mistaken command could have left behind. */
function rows() {
  const db = openData(dir);
  try {
    return {
      tenants: count(db, 'tenants'),
      orders: count(db, 'orders'),
      keys: count(db, 'api_keys'),
      operators: count(db, 'operators'),
    };
  } finally {
    db.close();
  }
}

describe('gate tenants', () => {
  it('create makes a tenant that list shows with its orders, keys and operators', async () => {
    const created = await gate(dir, ['tenants', 'create', 'parque-norte', '--name', 'Parque Norte']);
    expect(created.code).toBe(0);
    expect(created.stdout).toBe('tenant parque-norte ("Parque Norte") criado\n');
    expect((await gate(dir, ['tenants', 'create', 'lagoa'])).code).toBe(0);

    expect((await gate(dir, ['import', '--tenant', 'parque-norte', EXAMPLE])).code).toBe(0);
    expect(
      (await gate(dir, ['keys', 'create', '--tenant', 'parque-norte', '--permissions', 'vouchers:checkin'])).code,
    ).toBe(0);
    expect(
      (await gate(dir, ['operators', 'add', '--tenant', 'lagoa', '--name', 'Ana', '--role', 'atendente'])).code,
    ).toBe(0);

    const list = await gate(dir, ['tenants', 'list']);
    expect(list.code).toBe(0);
    const [header, ...lines] = list.stdout.trim().split('\n');
    expect(header).toMatch(/^SLUG\s+NOME\s+CRIADO\s+PEDIDOS\s+CHAVES\s+OPERADORES\s+OBS$/);
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^lagoa\s+lagoa\s+\d{4}-\d{2}-\d{2} \d{2}:\d{2}\s+0\s+0\s+1$/);
    expect(lines[1]).toMatch(/^parque-norte\s+Parque Norte\s+\d{4}-\d{2}-\d{2} \d{2}:\d{2}\s+4\s+1\s+0$/);
  });

  it('list on an empty box says how to create one', async () => {
    expect(await gate(dir, ['tenants', 'list'])).toEqual({
      code: 0,
      stdout: 'nenhum tenant; crie um com: gate tenants create SLUG\n',
      stderr: '',
    });
  });

  it('create refuses a bad slug and the demo slug (exit 2) and an existing tenant (exit 1)', async () => {
    for (const slug of ['Parque', 'parque_norte', 'ação', 'parque norte', 'x'.repeat(64)]) {
      const res = await gate(dir, ['tenants', 'create', slug]);
      expect({ slug, code: res.code }).toEqual({ slug, code: 2 });
      expect(res.stderr).toContain(`tenant inválido: "${slug}" (use letras minúsculas sem acento, dígitos e hífens`);
    }
    const demo = await gate(dir, ['tenants', 'create', 'demo']);
    expect(demo.code).toBe(2);
    expect(demo.stderr).toContain('reservado ao parque de demonstração');
    expect((await gate(dir, ['tenants', 'list'])).stdout).toContain('nenhum tenant');

    expect((await gate(dir, ['tenants', 'create', 'parque'])).code).toBe(0);
    const again = await gate(dir, ['tenants', 'create', 'parque', '--name', 'Outro']);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('tenant "parque" já existe');
    expect(rows().tenants).toBe(1);
  });
});

describe('an unknown tenant', () => {
  it('is an error naming the known tenants, for every command that takes one, and creates nothing', async () => {
    expect((await gate(dir, ['demo'])).code).toBe(0);
    expect((await gate(dir, ['tenants', 'create', 'parque-norte'])).code).toBe(0);
    const before = rows();
    const file = writeImportFile(dir, { pedidos: orders(2) });
    const message =
      'tenant "parque-nrte" não existe; conhecidos: demo, parque-norte. Crie com: gate tenants create parque-nrte';
    const attempts = [
      ['import', '--tenant', 'parque-nrte', file],
      ['import', '--dry-run', '--tenant', 'parque-nrte', file],
      ['keys', 'create', '--tenant', 'parque-nrte', '--permissions', 'all'],
      ['keys', 'list', '--tenant', 'parque-nrte'],
      ['operators', 'add', '--tenant', 'parque-nrte', '--name', 'Ana', '--role', 'atendente'],
      ['operators', 'list', '--tenant', 'parque-nrte'],
    ];
    for (const argv of attempts) {
      const res = await gate(dir, argv);
      expect({ argv, code: res.code }).toEqual({ argv, code: 1 });
      expect(res.stderr).toContain(message);
      expect(res.stdout).toBe('');
    }
    // The same through GATE_TENANT.
    const viaEnv = await gate(dir, ['import', file], { env: { GATE_TENANT: 'parque-nrte' } });
    expect(viaEnv.code).toBe(1);
    expect(viaEnv.stderr).toContain(message);
    expect(rows()).toEqual(before);
  });

  it('in GATE_TENANT stops the box from starting, naming the known tenants', async () => {
    await gate(dir, ['tenants', 'create', 'parque-norte']);
    const start = main(
      loadConfig({
        GATE_DATA_DIR: dir,
        GATE_PORT: '0',
        GATE_HOST: '127.0.0.1',
        GATE_LOG_LEVEL: 'silent',
        GATE_TENANT: 'parque-nrte',
      }),
    );
    await expect(start).rejects.toThrow(
      'GATE_TENANT: tenant "parque-nrte" não existe; conhecidos: parque-norte. Crie com: gate tenants create parque-nrte',
    );
    expect(rows().tenants).toBe(1);
  });
});

describe('the demo beside a real park', () => {
  it('its keys are refused once a park exists, the start line warns, and demo --remove takes it all away', async () => {
    const seeded = await gate(dir, ['demo']);
    const [checkinKey, combosKey] = [...seeded.stdout.matchAll(KEY)].map((m) => m[0]);
    const sampleQr = (JSON.parse(/-d '([^']+)'/.exec(seeded.stdout)![1]!) as { qr_code: string }).qr_code;

    // A check-in on the demo, so that it has an event log to take away.
    const db = openData(dir);
    try {
      const today = db.sqlite.prepare('select min(data_uso) from lots').pluck().get() as string;
      const { app, close: closeBox } = await bootBox({
        db,
        clock: createFixedClock(TZ, `${today}T15:00:00.000Z`),
        logger: false,
      });
      const res = await app.inject({
        method: 'POST',
        url: '/api/v1/api-qrcode-checkin',
        headers: { 'x-api-key': checkinKey! },
        payload: { qr_code: sampleQr },
      });
      expect(res.statusCode).toBe(200);
      await closeBox();
    } finally {
      db.close();
    }

    const pin = (
      await gate(dir, ['operators', 'add', '--tenant', 'demo', '--name', 'Demo Sup', '--role', 'supervisor'])
    ).stdout.trim();
    const box = await main(
      loadConfig({ GATE_DATA_DIR: dir, GATE_PORT: '0', GATE_HOST: '127.0.0.1', GATE_LOG_LEVEL: 'silent' }),
    );
    try {
      const vouchers = () =>
        fetch(`${box.url}/api/v1/api-vouchers?marcar_sincronizado=false`, { headers: { 'x-api-key': checkinKey! } });
      const combos = () => fetch(`${box.url}/api/integration/combos`, { headers: { 'x-integration-key': combosKey! } });
      const signIn = () =>
        fetch(`${box.url}/api/console/entrar`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ nome: 'Demo Sup', segredo: pin }),
        });
      const session = async (cookie: string) =>
        (await fetch(`${box.url}/api/console/sessao`, { headers: { cookie } })).status;
      expect((await vouchers()).status).toBe(200);
      expect((await combos()).status).toBe(200);
      const signedIn = await signIn();
      expect(signedIn.status).toBe(200);
      const cookie = signedIn.headers.get('set-cookie')!.split(';')[0]!;
      expect(await session(cookie)).toBe(200);

      // The park is made by another process while the box runs: its next request already sees it.
      const park = await gate(dir, ['tenants', 'create', 'parque-norte', '--name', 'Parque Norte']);
      expect(park.code).toBe(0);
      expect(park.stderr).toContain('suas chaves passam a ser recusadas. Remova-o com: gate demo --remove');
      const refused = await vouchers();
      expect(refused.status).toBe(401);
      expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('INVALID_API_KEY');
      const refusedCombos = await combos();
      expect(refusedCombos.status).toBe(401);
      expect(((await refusedCombos.json()) as { error: { code: string } }).error.code).toBe('AUTH_ERROR');
      // The demo's console operators too: no new sign-in, and the open session ends.
      expect(await session(cookie)).toBe(401);
      expect((await signIn()).status).toBe(401);
    } finally {
      await box.close();
    }

    const look = openData(dir);
    try {
      expect(demoWarning(look)).toBe(
        'ATENÇÃO: o tenant de demonstração "demo" continua neste banco ao lado de parque-norte. Suas chaves de API e seus operadores do console são recusados, mas seus pedidos continuam aqui. Remova-o com: gate demo --remove',
      );
    } finally {
      look.close();
    }
    expect((await gate(dir, ['tenants', 'list'])).stdout).toMatch(
      /^demo\s+Parque Demonstração\s.*demonstração: chaves recusadas \(gate demo --remove\)$/m,
    );
    const demoKey = await gate(dir, ['keys', 'create', '--tenant', 'demo', '--permissions', 'all']);
    expect(demoKey.code).toBe(1);
    expect(demoKey.stdout).toBe('');
    const reseed = await gate(dir, ['demo']);
    expect(reseed.code).toBe(1);
    expect(reseed.stderr).toContain('este banco tem um parque real (parque-norte)');

    const removed = await gate(dir, ['demo', '--remove']);
    expect(removed.code).toBe(0);
    expect(removed.stdout).toBe('tenant de demonstração removido: 5 pedidos, 2 chaves, 1 operador, 1 evento\n');

    const after = openData(dir);
    try {
      expect(after.sqlite.prepare('select slug from tenants').pluck().all()).toEqual(['parque-norte']);
      // The park has nothing yet: whatever is left in these was the demo's.
      const owned = after.sqlite
        .prepare(
          `select m.name from sqlite_schema m, pragma_table_info(m.name) c where m.type = 'table' and c.name = 'tenant_id'`,
        )
        .pluck()
        .all() as string[];
      const children = [
        'lots',
        'combo_items',
        'combo_stock',
        'additional_redemptions',
        'voucher_marks',
        'client_marks',
        'event_marks',
        'console_sessions',
        'alarm_acks',
        'search_pending',
      ];
      expect(owned).toEqual(
        expect.arrayContaining([
          'orders',
          'people',
          'api_keys',
          'operators',
          'events',
          'lane_events',
          'clients',
          'combos',
        ]),
      );
      for (const t of [...owned, ...children]) expect({ t, n: count(after, t) }).toEqual({ t, n: 0 });
      expect(
        after.sqlite.prepare(`select count(*) from search_names where search_names match 'Souza'`).pluck().get(),
      ).toBe(0);
      expect(after.sqlite.pragma('foreign_key_check')).toEqual([]);
      expect(demoWarning(after)).toBeUndefined();
    } finally {
      after.close();
    }
    expect(await gate(dir, ['demo', '--remove'])).toMatchObject({
      code: 0,
      stdout: 'não há tenant de demonstração neste banco\n',
    });
  });

  it('the event logs stay append-only after demo --remove lifted that for the demo rows', async () => {
    await gate(dir, ['demo']);
    await gate(dir, ['tenants', 'create', 'parque-norte']);
    expect((await gate(dir, ['import', '--tenant', 'parque-norte', EXAMPLE])).code).toBe(0);
    const key = (
      await gate(dir, ['keys', 'create', '--tenant', 'parque-norte', '--permissions', 'vouchers:checkin'])
    ).stdout.trim();
    expect((await gate(dir, ['demo', '--remove'])).code).toBe(0);

    const db = openData(dir);
    try {
      const { app, close: closeBox } = await bootBox({
        db,
        clock: createFixedClock(TZ, '2026-12-05T13:00:00.000Z'),
        logger: false,
      });
      const res = await app.inject({
        method: 'POST',
        url: '/api/v1/api-qrcode-checkin',
        headers: { 'x-api-key': key },
        payload: { qr_code: 'EX0001A1' },
      });
      expect(res.statusCode).toBe(200);
      await closeBox();
      expect(count(db, 'events')).toBe(1);
      expect(() => db.sqlite.prepare('delete from events').run()).toThrow('events are append-only');
      expect(() => db.sqlite.prepare('update events set terminal = ?').run('x')).toThrow('events are append-only');
      expect(
        db.sqlite
          .prepare(`select name from sqlite_schema where type = 'trigger' and name like '%no_delete' order by name`)
          .pluck()
          .all(),
      ).toEqual(['events_no_delete', 'lane_events_no_delete']);
    } finally {
      db.close();
    }
  });
});
