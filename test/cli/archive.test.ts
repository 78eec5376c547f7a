import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, expect, it } from 'vitest';
import { createTestBox, tempDir, TZ, type TestBox } from '../support/box.js';
import { makeOrder } from '../support/fixtures.js';
import { checkin } from '../support/http.js';
import { gate } from './run.js';

// `gate archive` from the shell, beside a running box (docs/operations.md, "Retention"). The command
// reads the real clock, so the box's "today" is the real today and its old days are real old days.

let box: TestBox;
afterEach(async () => box?.close());

const DAY_MS = 86_400_000;
const localDate = (at: Date) => new Intl.DateTimeFormat('en-CA', { timeZone: TZ }).format(at);

it('moves old events while check-ins go on: none of them fails, and every event is once in the live table or the archive', async () => {
  const now = new Date();
  box = await createTestBox({ now: now.toISOString() });
  const today = localDate(now);
  box.importOrders(
    Array.from({ length: 600 }, (_, i) =>
      makeOrder({ numero: `20990101-${String(i).padStart(4, '0')}`, prefix: `AR${i}`, dataUso: today, people: 1 }),
    ),
  );
  // 4000 events and 1000 lane events of a season 200 days ago (refusals and exits: nothing waits on them).
  const old = (i: number) => new Date(now.getTime() - 200 * DAY_MS + i * 1000).toISOString();
  box.db.sqlite.transaction(() => {
    const event = box.db.sqlite.prepare(
      "INSERT INTO events (tenant_id, occurred_at, action, mode, code, result, source, terminal) VALUES (?, ?, ?, 'qr', ?, ?, 'lane', 'entrada-1')",
    );
    for (let i = 0; i < 4000; i++)
      event.run(box.tenantId, old(i), i % 2 ? 'saida' : 'checkin', `V${i}`, i % 2 ? 'ok' : 'TICKET_NOT_FOUND');
    const lane = box.db.sqlite.prepare(
      "INSERT INTO lane_events (tenant_id, occurred_at, lane, kind) VALUES (?, ?, 'entrada-1', 'passagem')",
    );
    for (let i = 0; i < 1000; i++) lane.run(box.tenantId, old(i));
  })();
  const oldIds = box.db.sqlite.prepare('SELECT id FROM events').pluck().all() as number[];

  // Today's first check-in: the tenant's newest event, which stays whatever its age (the clock check reads it).
  const statuses: number[] = [(await checkin(box, { qr_code: 'AR0-1', terminal: 'catraca-1' })).status];
  let next = 1;
  let running = true;
  const client = async () => {
    while (running && next < 600) {
      statuses.push((await checkin(box, { qr_code: `AR${next++}-1`, terminal: 'catraca-1' })).status);
      await new Promise((r) => setTimeout(r, 10)); // a steady stream through the whole run, not a burst before it
    }
  };
  const clients = [client(), client(), client()];
  await new Promise((r) => setTimeout(r, 20));
  const atStart = statuses.length;
  const res = await gate(box.dir, ['archive']);
  const during = statuses.length - atStart;
  running = false;
  await Promise.all(clients);

  expect(res.code, res.stderr).toBe(0);
  const file = path.join(box.dir, 'archive', `events-${today}.sqlite`);
  expect(res.stdout).toContain(`arquivado: ${file}`);
  expect(res.stdout).toMatch(/movidos: 4000 eventos e 999 eventos das pistas anteriores a \d{4}-\d{2}-\d{2}/);
  expect(during).toBeGreaterThan(0);
  expect(next).toBeLessThan(600); // still checking in when the archive ended
  expect(statuses.every((s) => s === 200)).toBe(true);

  const a = new Database(file, { readonly: true });
  const archivedIds = a.prepare('SELECT id FROM events ORDER BY id').pluck().all() as number[];
  // The tenant's newest lane event stays, old as it is.
  expect(a.prepare('SELECT count(*) FROM lane_events').pluck().get()).toBe(999);
  a.close();
  expect(archivedIds).toEqual(oldIds);
  const live = box.db.sqlite
    .prepare("SELECT code FROM events WHERE result = 'ok' AND action = 'checkin'")
    .pluck()
    .all() as string[];
  expect(live).toHaveLength(statuses.length);
  expect(
    box.db.sqlite
      .prepare('SELECT count(*) FROM events WHERE id IN (SELECT value FROM json_each(?))')
      .pluck()
      .get(JSON.stringify(oldIds)),
  ).toBe(0);

  const again = await gate(box.dir, ['archive']);
  expect(again.stdout).toContain('nada a arquivar');
});

it('--dry-run, --days and GATE_ARCHIVE_DAYS; a bad number is a usage error', async () => {
  const dir = tempDir('gate-archive-');
  expect((await gate(dir, ['migrate'])).code).toBe(0);
  const db = new Database(path.join(dir, 'gate.db'));
  db.prepare(
    "INSERT INTO tenants (slug, nome, created_at) VALUES ('parque', 'Parque', '2026-01-01T00:00:00.000Z')",
  ).run();
  const insert = db.prepare(
    "INSERT INTO events (tenant_id, occurred_at, action, mode, code, result, source) VALUES (1, ?, 'saida', 'qr', 'X', 'ok', 'lane')",
  );
  for (const days of [40, 20, 0]) insert.run(new Date(Date.now() - days * DAY_MS).toISOString());
  db.close();

  const dry = await gate(dir, ['archive', '--dry-run', '--days', '10']);
  expect(dry.code, dry.stderr).toBe(0);
  expect(dry.stdout).toContain('seriam movidos: 2 eventos e 0 eventos das pistas');
  expect(fs.existsSync(path.join(dir, 'archive'))).toBe(false);

  expect((await gate(dir, ['archive'])).stdout).toContain('nada a arquivar'); // 90 days by default
  const byEnv = await gate(dir, ['archive', '--to', path.join(dir, 'velhos')], { env: { GATE_ARCHIVE_DAYS: '30' } });
  expect(byEnv.stdout).toContain('movidos: 1 evento e 0 eventos das pistas');
  expect(fs.readdirSync(path.join(dir, 'velhos'))).toHaveLength(1);
  expect((await gate(dir, ['archive', '--days', '10'])).stdout).toContain('movidos: 1 evento e 0 eventos das pistas');

  for (const bad of [
    ['--days', '0'],
    ['--days', 'dez'],
    ['--days', '1.5'],
  ]) {
    const res = await gate(dir, ['archive', ...bad]);
    expect(res.code).toBe(2);
    expect(res.stderr).toContain('--days inválido');
  }
  expect((await gate(dir, ['archive'], { env: { GATE_ARCHIVE_DAYS: '-3' } })).stderr).toContain(
    'GATE_ARCHIVE_DAYS inválido',
  );
  expect((await gate(dir, ['archive', '--help'])).stdout).toBe('uso: gate archive [--days N] [--to DIR] [--dry-run]\n');
});

it('the nightly systemd unit runs a gate archive command that works, after the backup', async () => {
  const unit = fs.readFileSync('systemd/gate-archive.service', 'utf8');
  const exec = /^ExecStart=\/usr\/bin\/node \/opt\/gate\/current\/bin\/gate\.js (.+)$/m.exec(unit)![1]!.split(' ');
  expect(fs.readFileSync('systemd/gate-archive.timer', 'utf8')).toMatch(/^OnCalendar=\*-\*-\* 04:30:00$/m);
  expect(fs.readFileSync('systemd/INSTALL.md', 'utf8')).toContain('systemctl enable --now gate-archive.timer');
  const dir = tempDir('gate-unit-');
  const res = await gate(dir, exec);
  expect(res.code, res.stderr).toBe(0);
  expect(res.stdout).toContain('nada a arquivar');
});
