import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { Writable } from 'node:stream';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { createBoxFromConfig } from '../src/box-config.js';
import { createClock } from '../src/clock.js';
import { loadConfig, type Config } from '../src/config.js';
import { migrateToLatest, openDatabase } from '../src/db/open.js';
import { createClosers } from '../src/lib/closers.js';
import { ensureTenant } from '../src/tenants/tenants.repo.js';
import { tempDir, TZ } from './support/box.js';

// One box object owns what its start opened: a failed start at any step and the stop close the
// same things, newest first, each once. Observed through the process itself: /proc/self/fd lists
// every file and socket it holds.

const clock = createClock(TZ);

const fds = () =>
  fs.readdirSync('/proc/self/fd').flatMap((fd) => {
    try {
      return [fs.readlinkSync(`/proc/self/fd/${fd}`)];
    } catch {
      return []; // the directory's own handle, gone by now
    }
  });
/** The box's database files (gate.db, -wal, -shm) this process still holds. */
const dbHandles = (dir: string) => fds().filter((link) => link.startsWith(path.join(dir, 'gate.db')));
const sockets = () => fds().filter((link) => link.startsWith('socket:')).length;
/** None of them: the WAL's descriptor for fsync is closed on libuv's pool (src/db/wal.ts), so give it a moment. */
async function expectNoDbHandles(dir: string) {
  for (const until = Date.now() + 2000; dbHandles(dir).length > 0 && Date.now() < until;)
    await new Promise((r) => setTimeout(r, 10));
  expect(dbHandles(dir)).toEqual([]);
}

async function dataDir(tenants: string[]) {
  const dir = tempDir('gate-lifecycle-');
  const db = openDatabase(path.join(dir, 'gate.db'));
  await migrateToLatest(db);
  for (const slug of tenants) ensureTenant(db, slug, clock.nowIso());
  db.close();
  return dir;
}

const configOf = (dir: string, env: Record<string, string> = {}) =>
  loadConfig({ GATE_DATA_DIR: dir, GATE_HOST: '127.0.0.1', GATE_PORT: '0', GATE_LOG_LEVEL: 'silent', ...env });

/** A box whose log lines (at debug) and stdout are kept for the test. */
function boxOf(config: Config) {
  let log = '';
  let out = '';
  const logger = pino({ level: 'debug' }, new Writable({ write: (c, _e, done) => ((log += c.toString()), done()) }));
  const box = createBoxFromConfig(config, {
    logger,
    out: new Writable({ write: (c, _e, done) => ((out += c.toString()), done()) }),
    env: {},
  });
  const lines = () =>
    log
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { msg: string; recurso?: string; motivo?: string });
  return {
    box,
    lines,
    out: () => out,
    closed: () =>
      lines()
        .filter((l) => l.msg === 'closed')
        .map((l) => l.recurso),
  };
}

const laneFile = (dir: string) => {
  const file = path.join(dir, 'lanes.yaml');
  fs.writeFileSync(
    file,
    'lanes:\n  - name: a\n    direction: entrada\n    operador: o\n    scanners: [{ path: /tmp/gate-none-a }]\n    relay: { driver: lcus, path: /tmp/gate-none-b }\n',
  );
  return file;
};

const blockers: net.Server[] = [];
afterEach(async () => {
  for (const s of blockers.splice(0)) await new Promise((resolve) => s.close(resolve));
});

describe('createClosers', () => {
  it('closes newest first, each once, the next even when one throws, and a second close answers the first', async () => {
    const ran: string[] = [];
    const failed: string[] = [];
    const closers = createClosers({ onError: (name) => failed.push(name) });
    closers.push('banco', () => ran.push('banco'));
    closers.push('http', () => {
      ran.push('http');
      throw new Error('porta presa');
    });
    closers.push('pistas', async () => void ran.push('pistas'));
    await expect(closers.close()).rejects.toThrow('porta presa');
    await expect(closers.close()).rejects.toThrow('porta presa');
    expect(ran).toEqual(['pistas', 'http', 'banco']);
    expect(failed).toEqual(['http']);

    // Opened after the close began: closed at once.
    closers.push('tarde', () => ran.push('tarde'));
    await expect(closers.close()).rejects.toThrow('porta presa');
    expect(ran).toEqual(['pistas', 'http', 'banco', 'tarde']);
  });

  it('several failures reject together; none resolves', async () => {
    const closers = createClosers();
    closers.push('a', () => Promise.reject(new Error('um')));
    closers.push('b', () => {
      throw new Error('dois');
    });
    const error = await closers.close().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AggregateError);
    expect((error as AggregateError).errors.map((e: Error) => e.message)).toEqual(['dois', 'um']);
    await expect(createClosers().close()).resolves.toBeUndefined();
  });
});

describe('a failed start leaves nothing open', () => {
  const failsCleanly = async (dir: string, config: Config, error: string | RegExp) => {
    const before = sockets();
    const { box, lines } = boxOf(config);
    await expect(box.start()).rejects.toThrow(error);
    await expectNoDbHandles(dir);
    expect(sockets()).toBe(before);
    // A close after a failed start is harmless, and says no stop line.
    await box.close();
    expect(lines().some((l) => l.msg === 'gate appliance stopping')).toBe(false);
    return lines;
  };

  it('a data file that is not a database', async () => {
    const dir = tempDir('gate-lifecycle-');
    fs.writeFileSync(
      path.join(dir, 'gate.db'),
      'isto não é um banco SQLite, só um texto comprido o bastante para o cabeçalho.\n'.repeat(4),
    );
    await failsCleanly(dir, configOf(dir), 'file is not a database');
  });

  it('a migration that fails', async () => {
    // A SQLite file with a table in the way of the first migration.
    const dir = tempDir('gate-lifecycle-');
    const db = openDatabase(path.join(dir, 'gate.db'));
    db.sqlite.exec('CREATE TABLE tenants (x)');
    db.close();
    await failsCleanly(dir, configOf(dir), /table tenants already exists/);
  });

  it('an unknown GATE_TENANT, with the message the operator sees', async () => {
    const dir = await dataDir(['parque-norte']);
    await failsCleanly(
      dir,
      configOf(dir, { GATE_TENANT: 'parque-nrte' }),
      'GATE_TENANT: tenant "parque-nrte" não existe; conhecidos: parque-norte. Crie com: gate tenants create parque-nrte',
    );
  });

  it('lanes on a box of several tenants without GATE_TENANT', async () => {
    const dir = await dataDir(['parque', 'outro']);
    await failsCleanly(
      dir,
      configOf(dir, { GATE_CONFIG: laneFile(dir) }),
      'GATE_CONFIG: há mais de um tenant neste banco; defina GATE_TENANT com o tenant das pistas.',
    );
  });

  it('a port already in use, with lanes running: the demo keys are shown anyway', async () => {
    const blocker = net.createServer();
    blockers.push(blocker);
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const port = String((blocker.address() as net.AddressInfo).port);
    const dir = tempDir('gate-lifecycle-');
    const before = sockets();
    const { box, closed, out } = boxOf(configOf(dir, { GATE_PORT: port, GATE_CONFIG: laneFile(dir) }));
    await expect(box.start()).rejects.toThrow(/EADDRINUSE/);
    await expectNoDbHandles(dir);
    expect(sockets()).toBe(before);
    expect(closed()).toEqual(['http', 'paginas', 'console', 'pistas', 'banco']);
    expect(out()).toContain('A caixa não iniciou');
  });

  it('the sync worker failing to start after the box listens', async () => {
    const dir = await dataDir(['parque']);
    const config = configOf(dir, {
      GATE_TENANT: 'parque',
      GATE_CLOUD_URL: 'http://127.0.0.1:9',
      GATE_CLOUD_API_KEY: 'k',
      GATE_CLOUD_INTEGRATION_KEY: 'i',
    });
    // Not reachable through the environment (config.ts validates it): a schedule node-cron refuses.
    const lines = await failsCleanly(dir, { ...config, cloud: { ...config.cloud!, refreshCron: 'nunca' } }, /fields/);
    expect(lines().map((l) => l.msg)).toContain('gate appliance listening');
    expect(
      lines()
        .filter((l) => l.msg === 'closed')
        .map((l) => l.recurso),
    ).toEqual(['sincronizador', 'http', 'paginas', 'console', 'nuvem', 'banco']);
  });
});

describe('close', () => {
  it('closes in reverse order of opening (sync schedules, HTTP, voucher pages, console monitor, cloud client, lanes, database), once, with one stop line', async () => {
    const dir = await dataDir(['parque']);
    const before = sockets();
    const { box, lines, closed } = boxOf(
      configOf(dir, {
        GATE_TENANT: 'parque',
        GATE_CONFIG: laneFile(dir),
        GATE_CLOUD_URL: 'http://127.0.0.1:9',
        GATE_CLOUD_API_KEY: 'k',
        GATE_CLOUD_INTEGRATION_KEY: 'i',
      }),
    );
    const { url } = await box.start();
    expect((await fetch(`${url}/health/live`, { headers: { connection: 'close' } })).status).toBe(200);
    expect(dbHandles(dir).length).toBeGreaterThan(0);
    await expect(box.start()).rejects.toThrow('a caixa já foi iniciada');

    await Promise.all([box.close('SIGTERM'), box.close('SIGINT')]);
    await box.close();
    expect(closed()).toEqual(['sincronizador', 'http', 'paginas', 'console', 'nuvem', 'pistas', 'banco']);
    const stops = lines().filter((l) => l.msg === 'gate appliance stopping');
    expect(stops.map((l) => l.motivo)).toEqual(['SIGTERM']);
    await expectNoDbHandles(dir);
    expect(sockets()).toBe(before);
  });
});
