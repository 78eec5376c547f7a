import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, expect, it } from 'vitest';
import { createTestBox, tempDir, type TestBox } from '../support/box.js';
import { makeOrder } from '../support/fixtures.js';
import { checkin } from '../support/http.js';
import { BACKUP_NICE } from '../../src/cli/backup.js';
import { gate } from './run.js';

// gate backup while check-ins go on, then gate restore: every check-in acknowledged before the
// backup began is in the copy (issue 13, "Keep the data").

let box: TestBox;
afterEach(async () => box?.close());

it('backs up under load with verified copies and retention; a restore brings back every check-in acknowledged before the backup', async () => {
  box = await createTestBox();
  box.importOrders(
    Array.from({ length: 300 }, (_, i) =>
      makeOrder({
        numero: `20261121-${String(i).padStart(4, '0')}`,
        prefix: `BK${i}`,
        dataUso: '2026-11-21',
        people: 1,
      }),
    ),
  );
  const acked: string[] = [];
  let next = 0;
  let running = true;
  const client = async () => {
    while (running && next < 300) {
      const code = `BK${next++}-1`;
      if ((await checkin(box, { qr_code: code, terminal: 'catraca-1' })).status === 200) acked.push(code);
    }
  };
  const clients = [client(), client(), client()];
  const backups: { file: string; ackedBefore: string[] }[] = [];
  const dir = path.join(box.dir, 'copias');
  for (let round = 0; round < 3; round++) {
    await new Promise((r) => setTimeout(r, 30));
    const ackedBefore = [...acked];
    const res = await gate(box.dir, ['backup', '--to', dir, '--keep', '2']);
    expect(res.code, res.stderr).toBe(0);
    expect(res.stderr).toContain('integrity_check ok');
    backups.push({ file: res.stdout.trim(), ackedBefore });
    await new Promise((r) => setTimeout(r, 1100)); // names have a one-second resolution
  }
  running = false;
  await Promise.all(clients);
  expect(acked.length).toBeGreaterThan(0);
  // The newest two are kept.
  expect(fs.readdirSync(dir).sort()).toEqual(
    backups
      .slice(1)
      .map((b) => path.basename(b.file))
      .sort(),
  );

  const last = backups[2]!;
  expect(last.ackedBefore.length).toBeGreaterThan(0);
  const target = tempDir('gate-restore-');
  expect((await gate(target, ['restore', backups[1]!.file])).stderr).not.toContain('antes-de-restaurar');
  // Restoring over a database keeps that one beside it.
  const restored = await gate(target, ['restore', last.file]);
  expect(restored.code, restored.stderr).toBe(0);
  expect(fs.readdirSync(target).filter((f) => f.startsWith('gate.db.antes-de-restaurar-'))).toHaveLength(1);
  const copy = new Database(path.join(target, 'gate.db'), { readonly: true });
  const inCopy = new Set(
    copy.prepare('SELECT qr_code FROM people WHERE checkin_em IS NOT NULL').pluck().all() as string[],
  );
  const events = copy
    .prepare("SELECT count(*) FROM events WHERE action = 'checkin' AND result = 'ok'")
    .pluck()
    .get() as number;
  copy.close();
  expect(last.ackedBefore.filter((c) => !inCopy.has(c))).toEqual([]);
  expect(events).toBeGreaterThanOrEqual(last.ackedBefore.length);

  expect((await gate(target, ['restore', path.join(target, 'nope.db')])).code).toBe(1);
});

it('the nightly systemd unit runs a gate backup command that works', async () => {
  const unit = fs.readFileSync('systemd/gate-backup.service', 'utf8');
  const exec = /^ExecStart=\/usr\/bin\/node \/opt\/gate\/current\/bin\/gate\.js (.+)$/m.exec(unit)![1]!.split(' ');
  expect(fs.readFileSync('systemd/gate-backup.timer', 'utf8')).toMatch(/^OnCalendar=\*-\*-\* 04:00:00$/m);
  const dir = tempDir('gate-unit-');
  const res = await gate(dir, exec);
  expect(res.code, res.stderr).toBe(0);
  expect(res.stdout.trim().startsWith(path.join(dir, 'backups', 'gate-'))).toBe(true);
});

it("a dead box's disk: its folder copied whole (with the WAL) becomes one restorable file, with the rows only the WAL held", async () => {
  const dead = tempDir('gate-dead-');
  expect((await gate(dead, ['migrate'])).code).toBe(0);
  // The dead box's last writes, still only in its WAL when the power went (no checkpoint).
  const live = new Database(path.join(dead, 'gate.db'));
  live.pragma('wal_autocheckpoint = 0');
  live
    .prepare(
      "INSERT INTO tenants (slug, nome, created_at) VALUES ('so-no-wal', 'Só no WAL', '2026-11-24T00:00:00.000Z')",
    )
    .run();
  const rescued = tempDir('gate-copia-');
  for (const f of ['gate.db', 'gate.db-wal']) fs.copyFileSync(path.join(dead, f), path.join(rescued, f));
  live.close();

  const backup = await gate(rescued, ['backup', '--to', path.join(rescued, 'resgate')]);
  expect(backup.code, backup.stderr).toBe(0);
  const target = tempDir('gate-nova-');
  expect((await gate(target, ['restore', backup.stdout.trim()])).code).toBe(0);
  const restored = new Database(path.join(target, 'gate.db'), { readonly: true });
  expect(restored.prepare("SELECT nome FROM tenants WHERE slug = 'so-no-wal'").pluck().get()).toBe('Só no WAL');
  restored.close();
});

it('typed at a shell, gives the box the CPU as the nightly unit does (Nice=10)', async () => {
  expect(fs.readFileSync('systemd/gate-backup.service', 'utf8')).toMatch(new RegExp(`^Nice=${BACKUP_NICE}$`, 'm'));
  // This file runs in a process of its own (vitest's forks), which `gate backup` runs in: its priority is lowered.
  const dir = tempDir('gate-nice-');
  const res = await gate(dir, ['backup']);
  expect(res.code, res.stderr).toBe(0);
  expect(os.getPriority()).toBe(BACKUP_NICE);
});
