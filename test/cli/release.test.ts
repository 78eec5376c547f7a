import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createClock } from '../../src/clock.js';
import { tempDir, TZ } from '../support/box.js';
import { makeOrder } from '../support/fixtures.js';
import { ensureBuilt, ROOT } from '../support/gate-process.js';
import { gate, writeImportFile } from './run.js';

// The IT lead's procedures run as written (issue 22, 6.8 and 6.10): the commands are taken from the
// code blocks of systemd/INSTALL.md and docs/operations.md, with their paths moved into a temporary
// prefix, and run by bash. The `gate` command is INSTALL.md's own wrapper; systemctl, systemd-run and
// sudo are stand-ins on PATH (test/support/stubs: no systemd here, and a test cannot change owners);
// the stand-in systemctl runs gate.service's own lines. `npm ci`/`npm prune` are the only lines not
// run: the release folders are built copies of this checkout.

const STUBS = path.join(ROOT, 'test/support/stubs');
const install = fs.readFileSync(path.join(ROOT, 'systemd/INSTALL.md'), 'utf8');
const operations = fs.readFileSync(path.join(ROOT, 'docs/operations.md'), 'utf8');

/** The ```sh block of a document that holds `marker`, unindented (list items indent theirs). */
function block(doc: string, marker: string): string {
  const found = [...doc.matchAll(/^( *)```sh\n([\s\S]*?)^\1```$/gm)].find((m) => m[2]!.includes(marker));
  if (!found) throw new Error(`no sh block with ${marker}`);
  const indent = found[1]!.length;
  return found[2]!
    .split('\n')
    .map((l) => l.slice(indent))
    .filter((l) => !/^npm (ci|prune)\b/.test(l))
    .join('\n');
}

/** INSTALL.md's `gate` function, as an IT lead puts it in ~/.bashrc. */
const wrapper = /^gate\(\) \{\n[\s\S]*?^\}$/m.exec(block(install, 'gate() {'))![0];

let root: string;
let srcA: string;
let srcB: string;
const started: string[] = [];

interface Site {
  opt: string;
  etc: string;
  state: string;
  stub: string;
  paths: [string, string][];
}

function makeSite(name: string, extra: [string, string][] = []): Site {
  const base = path.join(root, name);
  const site = {
    opt: path.join(base, 'opt/gate'),
    etc: path.join(base, 'etc/gate'),
    state: path.join(base, 'var/lib/gate'),
    stub: path.join(base, 'stub'),
  };
  for (const dir of Object.values(site)) fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(
    path.join(site.etc, 'gate.env'),
    `# test\nGATE_TENANT=parque\nGATE_TIMEZONE=${TZ}\nGATE_HOST=127.0.0.1\nGATE_PORT=0\nGATE_LOG_LEVEL=info\n`,
  );
  started.push(site.stub);
  return {
    ...site,
    paths: [
      ...extra,
      ['~/gate-0.1.0', srcA],
      ['~/gate-0.2.0', srcB],
      ['/opt/gate', site.opt],
      ['/etc/gate', site.etc],
      ['/var/lib/gate', site.state],
      ['/usr/bin/node', process.execPath],
    ],
  };
}

/** Runs document lines in bash, as the IT lead would, in the site's paths. */
function sh(site: Site, script: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  let text = `set -euo pipefail\n${wrapper}\n${script}`;
  for (const [from, to] of site.paths) text = text.split(from).join(to);
  const child = spawn('bash', ['-c', text], {
    cwd: root,
    env: {
      PATH: `${STUBS}:${path.dirname(process.execPath)}:/usr/local/bin:/usr/bin:/bin`,
      HOME: root,
      GATE_PREFIX: site.opt,
      GATE_ETC: site.etc,
      GATE_STATE: site.state,
      GATE_NODE: process.execPath,
      STUB_DIR: site.stub,
      STUB_UNIT: path.join(ROOT, 'systemd/gate.service'),
      STUB_PATHS: JSON.stringify(Object.fromEntries(site.paths)),
    },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c) => (stdout += c));
  child.stderr.on('data', (c) => (stderr += c));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}

/** A built release folder of this checkout with the given version (dist and node_modules shared). */
function release(version: string): string {
  const dir = path.join(root, `gate-${version}`);
  fs.mkdirSync(dir);
  const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string };
  fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ ...pkg, version }, null, 2));
  for (const f of ['package-lock.json', 'README.md']) fs.copyFileSync(path.join(ROOT, f), path.join(dir, f));
  for (const d of ['bin', 'systemd']) fs.cpSync(path.join(ROOT, d), path.join(dir, d), { recursive: true });
  for (const d of ['dist', 'node_modules', 'docs']) fs.symlinkSync(path.join(ROOT, d), path.join(dir, d));
  return dir;
}

const url = (site: Site) => fs.readFileSync(path.join(site.stub, 'url'), 'utf8');
const health = async (site: Site) => ((await (await fetch(`${url(site)}/health`)).json()) as any).data;
const checkin = async (site: Site, key: string, code: string) =>
  (
    await fetch(`${url(site)}/api/v1/api-qrcode-checkin`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body: JSON.stringify({ qr_code: code, terminal: 'catraca-1' }),
    })
  ).status;

beforeAll(() => {
  ensureBuilt();
  if (!fs.existsSync(path.join(ROOT, 'dist/console')))
    spawnSync(process.execPath, ['src/console/web/build.mjs'], { cwd: ROOT, stdio: 'ignore' });
  if (!fs.existsSync(path.join(ROOT, 'dist/handheld')))
    spawnSync(process.execPath, ['src/handheld/web/build.mjs'], { cwd: ROOT, stdio: 'ignore' });
  root = tempDir('gate-release-');
  srcA = release('0.1.0');
  srcB = release('0.2.0');
});

afterAll(() => {
  for (const stub of started) {
    const pid = path.join(stub, 'gate.pid');
    if (fs.existsSync(pid)) spawnSync('kill', ['-9', fs.readFileSync(pid, 'utf8')]);
  }
  fs.rmSync(root, { recursive: true, force: true });
});

it('installs, upgrades with a backup and rolls back, as INSTALL.md and operations.md say: check-ins before the upgrade stay, the rollback brings back the old release and the backup', async () => {
  const site = makeSite('upgrade');
  const installed = await sh(site, block(install, 'gate-release install'));
  expect(installed.code, installed.stderr).toBe(0);
  expect(fs.readlinkSync(path.join(site.opt, 'current'))).toBe('releases/0.1.0');

  const today = createClock(TZ).today();
  const orders = { pedidos: [makeOrder({ numero: '20261125-0009', prefix: 'REL', people: 5, dataUso: today })] };
  expect((await gate(site.state, ['tenants', 'create', 'parque'])).code).toBe(0);
  expect(
    (await gate(site.state, ['import', '--tenant', 'parque', writeImportFile(root, orders, 'rel.json')])).code,
  ).toBe(0);
  const key = (
    await gate(site.state, ['keys', 'create', '--tenant', 'parque', '--permissions', 'vouchers:checkin'])
  ).stdout.trim();
  expect((await sh(site, 'sudo systemctl start gate')).code).toBe(0);
  expect((await health(site)).versao).toBe('0.1.0');
  expect(await checkin(site, key, 'REL-1')).toBe(200);

  const upgraded = await sh(site, block(operations, 'gate-release upgrade'));
  expect(upgraded.code, upgraded.stderr).toBe(0);
  expect(fs.readlinkSync(path.join(site.opt, 'current'))).toBe('releases/0.2.0');
  expect(fs.readdirSync(path.join(site.opt, 'releases')).sort()).toEqual(['0.1.0', '0.2.0']);
  expect(fs.readFileSync(path.join(site.stub, 'systemctl.log'), 'utf8').split('\n')).toEqual([
    'start gate',
    'stop gate',
    'start gate',
    '',
  ]);
  expect((await health(site)).versao).toBe('0.2.0');
  // The check-in made before the upgrade is there (already used); one made after it goes through.
  expect(await checkin(site, key, 'REL-1')).toBe(409);
  expect(await checkin(site, key, 'REL-2')).toBe(200);
  const backup = /^backup=(.+)$/m.exec(fs.readFileSync(path.join(site.opt, 'rollback.env'), 'utf8'))![1]!;
  expect(upgraded.stderr).toContain(`cópia antes da atualização: ${backup}`);
  expect(path.dirname(backup)).toBe(path.join(site.state, 'backups/atualizacoes'));

  const rolledBack = await sh(site, block(operations, 'gate-release rollback'));
  expect(rolledBack.code, rolledBack.stderr).toBe(0);
  expect(fs.readlinkSync(path.join(site.opt, 'current'))).toBe('releases/0.1.0');
  expect((await health(site)).versao).toBe('0.1.0');
  // The backup is back: REL-1 (before the upgrade) used, REL-2 (after it) not; that one is in the kept file.
  expect(await checkin(site, key, 'REL-1')).toBe(409);
  const kept = fs.readdirSync(site.state).filter((f) => f.startsWith('gate.db.antes-de-restaurar-'));
  expect(kept).toHaveLength(1);
  const keptDb = new Database(path.join(site.state, kept[0]!), { readonly: true });
  expect(keptDb.prepare("SELECT checkin_em IS NOT NULL FROM people WHERE qr_code = 'REL-2'").pluck().get()).toBe(1);
  keptDb.close();
  expect(await checkin(site, key, 'REL-2')).toBe(200);
  expect((await sh(site, 'sudo systemctl stop gate')).code).toBe(0);
}, 180_000);

it("replaces a dead box as operations.md says: the rescued folder's database, WAL included, is what the new box gets", async () => {
  const dead = tempDir('gate-morto-');
  const today = createClock(TZ).today();
  const orders = { pedidos: [makeOrder({ numero: '20261125-0042', prefix: 'DEAD', people: 3, dataUso: today })] };
  expect((await gate(dead, ['tenants', 'create', 'parque'])).code).toBe(0);
  expect((await gate(dead, ['import', '--tenant', 'parque', writeImportFile(dead, orders, 'o.json')])).code).toBe(0);
  // The dead box's last check-in, only in its WAL when the power went.
  const live = new Database(path.join(dead, 'gate.db'));
  live.pragma('wal_autocheckpoint = 0');
  live.prepare("UPDATE people SET checkin_em = '2026-11-25T13:00:00.000Z' WHERE qr_code = 'DEAD-1'").run();
  const disk = path.join(root, 'disco-velho'); // the old disk's /var/lib/gate
  fs.mkdirSync(disk, { recursive: true });
  for (const f of ['gate.db', 'gate.db-wal']) fs.copyFileSync(path.join(dead, f), path.join(disk, f));
  live.close();
  fs.rmSync(dead, { recursive: true, force: true });

  const site = makeSite('nova', [['/mnt/velho/var/lib/gate', disk]]);
  expect((await sh(site, block(install, 'gate-release install'))).code).toBe(0);
  // The new box as INSTALL.md leaves it: its tenant made, its database otherwise empty.
  expect((await sh(site, 'gate tenants create parque')).code).toBe(0);

  const rescued = await sh(site, block(operations, 'gate restore /var/lib/gate/resgate/gate.db'));
  expect(rescued.code, rescued.stderr).toBe(0);
  expect(rescued.stdout).toMatch(/^cópia\s+1\s+3\s+0\s/m);
  expect(rescued.stdout).toMatch(/^banco atual\s+0\s+0\s+0\s/m);
  const db = new Database(path.join(site.state, 'gate.db'), { readonly: true });
  expect(db.prepare("SELECT checkin_em FROM people WHERE qr_code = 'DEAD-1'").pluck().get()).toBe(
    '2026-11-25T13:00:00.000Z',
  );
  db.close();
}, 120_000);
