import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { createTestBox, tempDir, type TestBox } from '../support/box.js';
import { makeOrder } from '../support/fixtures.js';
import { BIN, ensureBuilt } from '../support/gate-process.js';

// A backup reaches the disk in small pieces while it is written, not all at once at its end (VACUUM
// INTO's own flush), where a check-in's WAL fsync in the running box would queue behind hundreds of
// megabytes; its name is on the disk before the older copy is deleted, and that one is cut in pieces
// first. The real `gate backup` runs under strace, which shows the order the kernel was asked to do
// things in.

let box: TestBox;
afterEach(async () => box?.close());

interface Call {
  name: string;
  args: string;
}

/** The syscalls of a strace -f -y log, in the order they began. */
function callsOf(log: string): Call[] {
  return log
    .split('\n')
    .map((line) => /^(?:\[pid\s+\d+\]\s+|\d+\s+)?(\w+)\((.*)$/.exec(line))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => ({ name: m[1]!, args: m[2]! }));
}

function tracedBackup(dataDir: string, to: string, traceFile: string) {
  const run = spawnSync(
    'strace',
    [
      '-f',
      '-y',
      '-o',
      traceFile,
      '-e',
      'trace=pwrite64,fdatasync,fsync,ftruncate,rename,renameat,renameat2,unlink,unlinkat',
    ].concat([process.execPath, BIN, 'backup', '--to', to, '--keep', '1']),
    { env: { ...process.env, GATE_DATA_DIR: dataDir }, encoding: 'utf8' },
  );
  expect(run.status, run.stderr).toBe(0);
  return { file: run.stdout.trim(), calls: callsOf(fs.readFileSync(traceFile, 'utf8')) };
}

it('a backup beside a live box is flushed as it is written, on disk before its rename, the folder synced before the older one is cut and goes', async () => {
  ensureBuilt();
  box = await createTestBox();
  for (let batch = 0; batch < 12; batch++)
    box.importOrders(
      Array.from({ length: 1000 }, (_, i) =>
        makeOrder({
          numero: `202611${String(batch + 10)}-${String(i).padStart(4, '0')}`,
          prefix: `D${batch}-${i}`,
          dataUso: '2026-11-21',
          people: 4,
        }),
      ),
    );
  const to = path.join(tempDir('gate-copias-'), 'copias');
  const trace = path.join(box.dir, 'strace.log');

  const first = tracedBackup(box.dir, to, trace);
  expect(fs.statSync(first.file).size).toBeGreaterThan(16 * 1024 * 1024);
  await new Promise((r) => setTimeout(r, 1100)); // names have a one-second resolution
  const { file, calls } = tracedBackup(box.dir, to, trace);
  expect(fs.readdirSync(to)).toEqual([path.basename(file)]);

  const partial = `${file}.parcial>`;
  const index = (test: (c: Call) => boolean) => calls.findIndex(test);
  const lastIndex = (test: (c: Call) => boolean) => calls.findLastIndex(test);
  const isFlush = (c: Call) => (c.name === 'fdatasync' || c.name === 'fsync') && c.args.includes(partial);
  const flushes = calls.filter(isFlush);
  const lastWrite = lastIndex((c) => c.name === 'pwrite64' && c.args.includes(partial));
  const lastFlush = lastIndex(isFlush);
  const renamed = index((c) => c.name.startsWith('rename') && c.args.includes(`${file}.parcial"`));
  const folderSynced = calls.findIndex((c, i) => i > renamed && c.name === 'fsync' && c.args.includes(`<${to}>`));
  const olderGone = index((c) => c.name.startsWith('unlink') && c.args.includes(path.basename(first.file)));

  // Flushed while written: one flush for each few megabytes, not one at the end.
  expect(flushes.length).toBeGreaterThanOrEqual(3);
  expect(index(isFlush)).toBeLessThan(lastWrite);
  // All of it on disk before the name; the name on disk before the older copy is deleted.
  expect(lastWrite).toBeGreaterThanOrEqual(0);
  expect(lastFlush).toBeGreaterThan(lastWrite);
  expect(renamed).toBeGreaterThan(lastFlush);
  expect(folderSynced).toBeGreaterThan(renamed);
  expect(olderGone).toBeGreaterThan(folderSynced);
  // The older copy is cut a piece at a time before it goes: one deletion of it all would hold the disk's journal.
  const cuts = calls.filter((c) => c.name === 'ftruncate' && c.args.includes(`${path.basename(first.file)}>`));
  expect(cuts.length).toBeGreaterThanOrEqual(2);
  expect(calls.findIndex((c) => c === cuts.at(-1))).toBeLessThan(olderGone);
});
