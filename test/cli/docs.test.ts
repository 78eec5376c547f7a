import fs from 'node:fs';
import { afterEach, expect, it } from 'vitest';
import { PERMISSIONS } from '../../src/auth/api-keys.js';
import { loadConfig } from '../../src/config.js';
import { createTestBox, type TestBox } from '../support/box.js';

// What the IT lead reads against what the code does (issue 22, 6.12): the permissions docs/cli.md
// lists, the field operations.md says to watch on /api/local/sync, and the nightly timers' order
// against the cloud's full refresh in a system whose time zone INSTALL.md sets to the park's.

const read = (file: string) => fs.readFileSync(file, 'utf8');

let box: TestBox | undefined;
afterEach(async () => box?.close());

it('docs/cli.md has a row for every permission the code knows, and no other', () => {
  const table = /^\| Permission \| What it lets the key call \|.*\n([\s\S]*?)\n\n/m.exec(read('docs/cli.md'))![1]!;
  const rows = [...table.matchAll(/^\| `([a-z:]+)` \|/gm)].map((m) => m[1]);
  expect(rows.sort()).toEqual([...PERMISSIONS].sort());
  expect(read('docs/cli.md')).toMatch(/A \*\*monitoring key\*\*: `local:read`/);
});

it('the field operations.md watches on /api/local/sync is in the real answer', async () => {
  const ops = read('docs/operations.md');
  const named = [...ops.matchAll(/`GET \/api\/local\/sync`[\s\S]{0,60}?`data\.([a-z_.]+)`/g)].map((m) => m[1]!);
  expect(named).toEqual(['fila.pendentes']);
  expect(ops).not.toContain('eventos_pendentes');
  box = await createTestBox();
  const res = await box.app.inject({ method: 'GET', url: '/api/local/sync', headers: { 'x-api-key': box.keys.all } });
  expect(res.statusCode).toBe(200);
  for (const field of named) {
    const value = field.split('.').reduce<unknown>((o, k) => (o as Record<string, unknown>)[k], res.json().data);
    expect(typeof value, field).toBe('number');
  }
});

it('the backup runs after the full refresh and the archive after the backup, in the park time zone INSTALL.md sets', () => {
  const minutes = (hh: string, mm: string) => Number(hh) * 60 + Number(mm);
  const timer = (name: string) => {
    const text = read(`systemd/${name}.timer`);
    const [, hh, mm] = /^OnCalendar=\*-\*-\* (\d\d):(\d\d):00$/m.exec(text)!;
    return { at: minutes(hh!, mm!), delay: Number(/^RandomizedDelaySec=(\d+)m$/m.exec(text)![1]) };
  };
  const config = loadConfig({
    GATE_CLOUD_URL: 'https://nuvem',
    GATE_CLOUD_API_KEY: 'a',
    GATE_CLOUD_INTEGRATION_KEY: 'b',
    GATE_TENANT: 'p',
  });
  const [mm, hh] = config.cloud!.fullRefreshCron.split(' ');
  const backup = timer('gate-backup');
  const archive = timer('gate-archive');
  // The refresh gets at least half an hour; the archive starts after the latest the backup may start, plus 10 min.
  expect(backup.at).toBeGreaterThanOrEqual(minutes(hh!, mm!) + 30);
  expect(archive.at).toBeGreaterThanOrEqual(backup.at + backup.delay + 10);
  // Timers run in the system's zone: INSTALL.md sets it to the park's (gate.env's GATE_TIMEZONE).
  const zone = /^GATE_TIMEZONE=(.+)$/m.exec(read('systemd/gate.env.example'))![1]!;
  expect(read('systemd/INSTALL.md')).toContain(`sudo timedatectl set-timezone ${zone}\n`);
});
