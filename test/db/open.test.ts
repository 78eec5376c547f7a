import fs from 'node:fs';
import path from 'node:path';
import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { migrateToLatest, openDatabase, type Db } from '../../src/db/open.js';
import { defineQuery } from '../../src/db/query.js';
import { checkpointInBackground } from '../../src/db/wal.js';
import { tempDir } from '../support/box.js';

let dir: string;
let db: Db | undefined;
afterEach(() => {
  db?.close();
  db = undefined;
  fs.rmSync(dir, { recursive: true, force: true });
});

async function fresh() {
  dir = tempDir('gate-db-');
  db = openDatabase(path.join(dir, 'gate.db'));
  await migrateToLatest(db);
  db.sqlite.prepare("insert into tenants (slug, nome, created_at) values ('a', 'A', 'x'), ('b', 'B', 'y')").run();
  return db;
}

describe('defineQuery', () => {
  it('binds arguments by name, keeps constants, and maps booleans to integers', async () => {
    const db = await fresh();
    const bySlug = defineQuery((kysely, p: { slug: string; yes: boolean }) =>
      kysely
        .selectFrom('tenants')
        .select(['slug', 'nome'])
        .where('slug', '=', p.slug)
        .where('created_at', '!=', 'never')
        .where(({ lit }) => lit(1), '=', p.yes as never),
    );
    expect(bySlug.get(db, { slug: 'b', yes: true })).toEqual({ slug: 'b', nome: 'B' });
    expect(bySlug.get(db, { slug: 'b', yes: false })).toBeUndefined();
    expect(bySlug.all(db, { slug: 'a', yes: true })).toEqual([{ slug: 'a', nome: 'A' }]);
  });

  it('refuses an argument that would end up as text in the SQL instead of a parameter', async () => {
    await fresh();
    expect(() =>
      defineQuery((kysely, p: { column: string }) =>
        kysely
          .selectFrom('tenants')
          .select('slug')
          .where(sql.raw(`${p.column}`), '=', 1),
      ),
    ).toThrow(/not a bound parameter/);
  });
});

/** The checkpoints the writer's own connection asks for (on the event loop, in the box). */
function checkpointsOnThisThread(sqlite: Db['sqlite']): string[] {
  const pragma = sqlite.pragma.bind(sqlite);
  const asked: string[] = [];
  sqlite.pragma = ((source: string, options?: never) => {
    if (source.includes('wal_checkpoint')) asked.push(source);
    return pragma(source, options);
  }) as typeof sqlite.pragma;
  return asked;
}

/** The WAL header's checkpoint sequence number (bytes 12–15, big-endian): one more each time the WAL starts over. */
function walRestarts(wal: string): number {
  const header = Buffer.alloc(16);
  const fd = fs.openSync(wal, 'r');
  try {
    return fs.readSync(fd, header, 0, 16, 0) === 16 ? header.readUInt32BE(12) : 0;
  } finally {
    fs.closeSync(fd);
  }
}

describe('background checkpoints', () => {
  it('keeps the WAL from growing without bound and leaves nothing running after close', async () => {
    const { sqlite } = await fresh();
    const committed = checkpointInBackground(sqlite);
    const insert = sqlite.prepare("insert into tenants (slug, nome, created_at) values (?, ?, 'z')");
    const wal = path.join(dir, 'gate.db-wal');
    for (let round = 0; round < 20; round++) {
      sqlite.transaction(() => {
        for (let i = 0; i < 150; i++) insert.run(`t-${round}-${i}`, 'x'.repeat(500));
      })();
      committed();
      await new Promise((r) => setTimeout(r, 25));
    }
    await new Promise((r) => setTimeout(r, 400));
    // ~1.6 MB was committed: below the connection's own threshold (1000 pages), only the worker can have copied it
    // from the WAL into the database file.
    expect(fs.statSync(path.join(dir, 'gate.db')).size).toBeGreaterThan(1_000_000);
    db!.close();
    db = undefined;
    fs.rmSync(dir, { recursive: true, force: true });
    await new Promise((r) => setTimeout(r, 300));
    expect(fs.existsSync(wal)).toBe(false); // no late connection recreated the files
    expect(fs.existsSync(dir)).toBe(false);
  });

  it('lets the WAL start over under steady writes with no checkpoint on the writer’s thread (a few ms of the event loop each)', async () => {
    const { sqlite } = await fresh();
    const writerCheckpoints = checkpointsOnThisThread(sqlite);
    const committed = checkpointInBackground(sqlite);
    const insert = sqlite.prepare("insert into tenants (slug, nome, created_at) values (?, ?, 'z')");
    const wal = path.join(dir, 'gate.db-wal');
    const firstRestart = walRestarts(wal);
    let largest = 0;
    let written = 0;
    // About 48 MB, 200 KB every 15 ms for about 4 s. How far the WAL gets before the worker catches up depends on
    // this machine's disk; that it starts over, and that the file is then reused from its start, does not.
    for (let round = 0; round < 240; round++) {
      sqlite.transaction(() => {
        for (let i = 0; i < 50; i++) insert.run(`w-${round}-${i}`, 'x'.repeat(4000));
      })();
      committed();
      written += 50 * 4096;
      largest = Math.max(largest, fs.statSync(wal).size);
      await new Promise((r) => setTimeout(r, 15));
    }
    expect(walRestarts(wal) - firstRestart).toBeGreaterThanOrEqual(2);
    expect(largest).toBeLessThan(written);
    expect(writerCheckpoints).toEqual([]);
    // And the worker copies it all into the database with no more commits.
    const dbFile = path.join(dir, 'gate.db');
    for (let i = 0; i < 100 && fs.statSync(dbFile).size < 45 * 1024 * 1024; i++)
      await new Promise((r) => setTimeout(r, 100));
    expect(fs.statSync(dbFile).size).toBeGreaterThan(45 * 1024 * 1024);
  });

  it('never checkpoints on the writer’s thread, even with the WAL far past 16,384 frames while the worker cannot copy it', async () => {
    const { sqlite } = await fresh();
    const writerCheckpoints = checkpointsOnThisThread(sqlite);
    const committed = checkpointInBackground(sqlite);
    // A commit copying the WAL on the event loop holds it 36 ms at 10,000 frames (npm run bench:checkpoint).
    expect(sqlite.pragma('wal_autocheckpoint', { simple: true })).toBe(0);
    // A reader on an old snapshot (a long listing, a backup): no checkpoint can copy past it.
    const reader = openDatabase(path.join(dir, 'gate.db'));
    reader.sqlite.prepare('BEGIN').run();
    reader.sqlite.prepare('select count(*) from tenants').get();
    const insert = sqlite.prepare("insert into tenants (slug, nome, created_at) values (?, ?, 'z')");
    const wal = path.join(dir, 'gate.db-wal');
    // About 80 MB in commits of 400 KB, 20,000 frames: past every threshold the writer used to checkpoint at.
    for (let round = 0; round < 200; round++) {
      sqlite.transaction(() => {
        for (let i = 0; i < 100; i++) insert.run(`r-${round}-${i}`, 'x'.repeat(4000));
      })();
      committed();
      if (round % 20 === 0) await new Promise((r) => setTimeout(r, 250)); // the worker's passes run meanwhile
    }
    expect(fs.statSync(wal).size).toBeGreaterThan(16_384 * 4096);
    expect(writerCheckpoints).toEqual([]);
    // Once the reader is gone, the worker copies it all without another commit.
    reader.sqlite.prepare('COMMIT').run();
    reader.close();
    const dbFile = path.join(dir, 'gate.db');
    for (let i = 0; i < 100 && fs.statSync(dbFile).size < 70 * 1024 * 1024; i++)
      await new Promise((r) => setTimeout(r, 100));
    expect(fs.statSync(dbFile).size).toBeGreaterThan(70 * 1024 * 1024);
    expect(writerCheckpoints).toEqual([]);
  });
});
