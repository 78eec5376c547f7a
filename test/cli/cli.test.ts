import fs from 'node:fs';
import net from 'node:net';
import { Writable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createKeyVerifier } from '../../src/auth/api-keys.js';
import { createFixedClock } from '../../src/clock.js';
import { loadConfig } from '../../src/config.js';
import { main } from '../../src/main.js';
import { migrations } from '../../migrations/index.js';
import { bootBox, tempDir, TZ } from '../support/box.js';
import { count, gate, openData } from './run.js';

let dir: string;
beforeEach(() => {
  dir = tempDir('gate-cli-');
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('gate usage', () => {
  it('help prints the commands on stdout', async () => {
    for (const argv of [['help'], ['--help']]) {
      const res = await gate(dir, argv);
      expect(res.code).toBe(0);
      for (const command of [
        'serve',
        'migrate',
        'tenants list',
        'tenants create',
        'import --tenant',
        '--dry-run',
        'keys create',
        'keys list',
        'keys revoke',
        'demo',
        'demo --remove',
      ])
        expect(res.stdout).toContain(command);
    }
    const sub = await gate(dir, ['import', '--help']);
    expect(sub.code).toBe(0);
    expect(sub.stdout).toBe('uso: gate import --tenant SLUG [--dry-run] ARQUIVO.json\n');
  });

  it('an unknown or missing command prints the usage on stderr and exits 2', async () => {
    for (const argv of [['lançar'], []]) {
      const res = await gate(dir, argv);
      expect(res.code).toBe(2);
      expect(res.stdout).toBe('');
      expect(res.stderr).toContain('uso: gate <comando>');
    }
  });

  it('bad arguments exit 2 with a message saying what is wrong', async () => {
    const cases: [string[], string][] = [
      [['import', '--tenant', 'parque'], 'falta o ARQUIVO'],
      [['import', '--tenant', 'parque', 'a.json', 'b.json'], 'argumento inesperado: b.json'],
      [['import', '--tenat', 'parque', 'a.json'], 'opção desconhecida: --tenat'],
      [['import', 'a.json', '--tenant'], 'a opção --tenant precisa de um valor'],
      [['import', '--tenant', 'Parque Central', 'a.json'], 'tenant inválido'],
      [['import', 'a.json'], 'informe --tenant SLUG'],
      [['keys'], 'falta o subcomando'],
      [['keys', 'delete', 'x'], 'subcomando desconhecido: keys delete'],
      [['keys', 'revoke'], 'falta KEY_ID'],
      [['tenants'], 'falta o subcomando: list ou create'],
      [['tenants', 'create'], 'falta o SLUG do tenant'],
      [['demo', '--remover'], 'opção desconhecida: --remover'],
      [['migrate', 'agora'], 'argumento inesperado: agora'],
    ];
    for (const [argv, message] of cases) {
      const res = await gate(dir, argv);
      expect({ argv, code: res.code }).toEqual({ argv, code: 2 });
      expect(res.stderr).toContain(message);
    }
  });

  it('an invalid environment is a usage error that names the variable', async () => {
    const res = await gate(dir, ['migrate'], { env: { GATE_TIMEZONE: 'America/Atlantida' } });
    expect(res.code).toBe(2);
    expect(res.stderr).toContain('GATE_TIMEZONE: fuso horário IANA desconhecido');
  });
});

describe('gate migrate', () => {
  it('creates the database in GATE_DATA_DIR and says what it applied, then that it is up to date', async () => {
    const first = await gate(dir, ['migrate']);
    expect(first.code).toBe(0);
    // Every migration of the release, in order (migrations/index.ts lists them).
    expect(first.stdout).toBe(
      Object.keys(migrations)
        .map((name) => `aplicada: ${name}\n`)
        .join(''),
    );
    expect(first.stdout).toMatch(/^aplicada: 0001_core\naplicada: 0002_sync\n/);
    expect(fs.existsSync(`${dir}/gate.db`)).toBe(true);

    const second = await gate(dir, ['migrate']);
    expect(second.stdout).toContain('já está atualizado');
  });
});

describe('gate --version', () => {
  it('prints the version of package.json', async () => {
    const version = JSON.parse(fs.readFileSync('package.json', 'utf8')).version as string;
    for (const arg of ['--version', 'version'])
      expect(await gate(dir, [arg])).toEqual({ code: 0, stdout: `gate ${version}\n`, stderr: '' });
  });
});

describe('gate demo', () => {
  it('seeds the demo park and prints working keys and a ready-to-paste check-in', async () => {
    const res = await gate(dir, ['demo']);
    expect(res.code).toBe(0);
    const keys = [...res.stdout.matchAll(/gk_[0-9a-f]{12}_[A-Za-z0-9_-]{43}/g)].map((m) => m[0]);
    const checkinKey = keys[0]!;
    const curl = res.stdout.split('\n').find((l) => l.includes('curl -s -X POST'))!;
    expect(curl).toContain(`-H 'X-API-Key: ${checkinKey}'`);
    const body = JSON.parse(/-d '([^']+)'/.exec(curl)![1]!) as { qr_code: string; terminal: string };

    // The curl, as the box would answer it on the day the demo was seeded.
    const db = openData(dir);
    try {
      const today = (db.sqlite.prepare('select min(data_uso) as d from lots').get() as { d: string }).d;
      const { app, close: closeBox } = await bootBox({
        db,
        clock: createFixedClock(TZ, `${today}T15:00:00.000Z`),
        logger: false,
      });
      const checkin = await app.inject({
        method: 'POST',
        url: '/api/v1/api-qrcode-checkin',
        headers: { 'x-api-key': checkinKey, 'content-type': 'application/json' },
        payload: body,
      });
      expect(checkin.statusCode).toBe(200);
      const combos = await app.inject({
        method: 'GET',
        url: '/api/integration/combos',
        headers: { 'x-integration-key': keys.find((k) => k !== checkinKey)! },
      });
      expect(combos.statusCode).toBe(200);
      await closeBox();
    } finally {
      db.close();
    }
  });

  it('seeding twice refreshes the same park: same orders, new keys that work, old ones too', async () => {
    const first = await gate(dir, ['demo']);
    const second = await gate(dir, ['demo']);
    expect(second.code).toBe(0);
    const keyOf = (out: string) => /gk_[0-9a-f]{12}_[A-Za-z0-9_-]{43}/.exec(out)![0];
    expect(keyOf(second.stdout)).not.toBe(keyOf(first.stdout));

    const db = openData(dir);
    try {
      expect([
        count(db, 'tenants'),
        count(db, 'orders'),
        count(db, 'combos'),
        count(db, 'clients'),
        count(db, 'api_keys'),
      ]).toEqual([1, 5, 1, 3, 4]);
      const statuses = db.sqlite
        .prepare('select status, count(*) as n from orders group by status order by status')
        .all();
      expect(statuses).toEqual([
        { status: 'cancelado', n: 1 },
        { status: 'pago', n: 4 },
      ]);
      for (const out of [first.stdout, second.stdout])
        expect(createKeyVerifier(db)(keyOf(out), new Date().toISOString())?.tenantSlug).toBe('demo');
    } finally {
      db.close();
    }
  });
});

describe('first start', () => {
  const sink = () => {
    let text = '';
    const out = new Writable({ write: (c, _e, done) => ((text += c.toString()), done()) });
    return { out, text: () => text };
  };
  const start = (env: NodeJS.ProcessEnv, out: Writable) =>
    main(
      loadConfig({ GATE_DATA_DIR: dir, GATE_PORT: '0', GATE_HOST: '127.0.0.1', GATE_LOG_LEVEL: 'silent', ...env }),
      out,
    );

  it('seeds the demo park on an empty box and prints the banner, once, with the console and a supervisor PIN that signs in', async () => {
    const printed = sink();
    const box = await start({}, printed.out);
    try {
      expect(printed.text()).toContain(`Console da portaria: ${box.url}/console`);
      const pin = /operador "Supervisor", PIN (\d{6})/.exec(printed.text())![1]!;
      const signIn = await fetch(`${box.url}/api/console/entrar`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ nome: 'Supervisor', segredo: pin }),
      });
      expect(signIn.status).toBe(200);
      expect(((await signIn.json()) as { data: { operador: { papel: string } } }).data.operador.papel).toBe(
        'supervisor',
      );
      expect((await fetch(`${box.url}/console`)).headers.get('content-type')).toMatch(/^text\/html/);
    } finally {
      await box.close();
    }
    expect(printed.text()).toContain('Modo demonstração');
    expect(printed.text()).toContain(`curl -s -X POST ${box.url}/api/v1/api-qrcode-checkin`);

    const again = sink();
    await (await start({}, again.out)).close();
    expect(again.text()).toBe('');
  });

  it('still shows the demo keys when the first start fails to listen, so they are not lost', async () => {
    const taken = net.createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const port = String((taken.address() as net.AddressInfo).port);
    const printed = sink();
    try {
      await expect(start({ GATE_PORT: port }, printed.out)).rejects.toThrow();
    } finally {
      taken.close();
    }
    const key = /gk_[0-9a-f]{12}_[A-Za-z0-9_-]{43}/.exec(printed.text())?.[0];
    expect(printed.text()).toContain('não iniciou');
    const db = openData(dir);
    try {
      expect(createKeyVerifier(db)(key!, new Date().toISOString())?.tenantSlug).toBe('demo');
    } finally {
      db.close();
    }
  });

  it('does not seed the demo when a tenant is configured', async () => {
    expect((await gate(dir, ['tenants', 'create', 'parque'])).code).toBe(0);
    const printed = sink();
    await (await start({ GATE_TENANT: 'parque' }, printed.out)).close();
    expect(printed.text()).toBe('');
    const db = openData(dir);
    expect(db.sqlite.prepare('select slug from tenants').pluck().all()).toEqual(['parque']);
    db.close();
  });
});
