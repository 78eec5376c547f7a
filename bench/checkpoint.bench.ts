import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { fsyncProbe, heading, int, machine, ms, out, table } from './report.js';

// `npm run bench:checkpoint`: what one commit costs its thread when it crosses SQLite's
// wal_autocheckpoint and so copies the WAL into the database itself, against an ordinary commit of
// the same row in the same run. The box's writer is the event loop, so this is how long every scan
// would wait: why the writer never checkpoints while the checkpoint worker runs (src/db/wal.ts).
// A measurement, not a test.

const WAL_FRAMES = [1_000, 4_096, 10_000, 16_384];
const ROUNDS = 3;
const ROWS = 400_000; // about 60 MB of table, so the WAL's pages are spread over the file
const dir = path.resolve('.bench-checkpoint');
const file = path.join(dir, 'c.db');

function round(frames: number): { crossing: number; ordinary: number; walFrames: number } {
  for (const f of [file, `${file}-wal`, `${file}-shm`]) fs.rmSync(f, { force: true });
  const db = new Database(file);
  try {
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = FULL'); // as the box's writes outside the group commit
    db.pragma('wal_autocheckpoint = 0');
    db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT)');
    const insert = db.prepare('INSERT INTO t (v) VALUES (?)');
    db.transaction(() => {
      for (let i = 0; i < ROWS; i++) insert.run('x'.repeat(100));
    })();
    db.pragma('wal_checkpoint(TRUNCATE)');
    // Check-in-like commits: a few rows updated at random places, until the WAL holds `frames` frames.
    const update = db.prepare('UPDATE t SET v = ? WHERE id = ?');
    const walFrames = () => (fs.existsSync(`${file}-wal`) ? Math.floor(fs.statSync(`${file}-wal`).size / 4120) : 0);
    while (walFrames() < frames)
      db.transaction(() => {
        for (let i = 0; i < 50; i++) update.run('y'.repeat(100), 1 + Math.floor(Math.random() * ROWS));
      })();
    const one = db.prepare('INSERT INTO t (v) VALUES (?)');
    let t = performance.now();
    one.run('ordinary'); // below any threshold: what every commit costs
    const ordinary = performance.now() - t;
    db.pragma(`wal_autocheckpoint = ${Math.max(1, frames - 100)}`);
    t = performance.now();
    one.run('crossing'); // this commit crosses the threshold and checkpoints
    const crossing = performance.now() - t;
    return { crossing, ordinary, walFrames: frames };
  } finally {
    db.close();
  }
}

fs.rmSync(dir, { recursive: true, force: true });
fs.mkdirSync(dir, { recursive: true });
try {
  out('Checkpoint on the writer’s thread: one commit crossing wal_autocheckpoint');
  machine().forEach((l) => out(l));
  const disk = fsyncProbe(dir);
  out(`disk fsync (4 KiB write + fsync): p50 ${ms(disk.p50)}, p99 ${ms(disk.p99)}`);
  heading(`${ROUNDS} rounds per WAL size, medians; the ordinary commit is the same row, same run`);
  const median = (xs: number[]) => xs.slice().sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const rows: string[][] = [['WAL frames', 'commit crossing the threshold', 'ordinary commit', 'ratio', 'by round']];
  for (const frames of WAL_FRAMES) {
    const rs = Array.from({ length: ROUNDS }, () => round(frames));
    const c = median(rs.map((r) => r.crossing));
    const o = median(rs.map((r) => r.ordinary));
    rows.push([int(frames), ms(c), ms(o), `${(c / o).toFixed(0)}×`, rs.map((r) => r.crossing.toFixed(1)).join(', ')]);
  }
  table(rows);
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}
