import fs from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { Worker } from 'node:worker_threads';
import { sqliteDriverUrl } from './sqlite.js';

// VACUUM INTO writes its copy through the page cache and flushes it once, at its end (its output takes
// the source connection's `synchronous`: sqlite's vacuum.c, "For a VACUUM INTO, the pager-flags are set
// to the same values as they are for the database being vacuumed"). For a park's database that is
// hundreds of megabytes reaching the disk at once, and a check-in's WAL fsync in the running box queues
// behind them: in `npm run bench:heavy` its fsync max was 275–288 ms beside a 511 MB copy. So the copy
// runs on a worker thread while this thread flushes what it wrote every FLUSH_BYTES, and the disk takes
// it in small pieces (here, 500 MB written with an fdatasync every 8 MB kept a 4 KB fsync beside it at
// 4.6 ms at most, against 78 ms with one flush at the end).
const FLUSH_BYTES = 4 * 1024 * 1024;
const TICK_MS = 10;

const COPIER = `
Promise.all([import('node:worker_threads'), import(DRIVER)]).then(([{ parentPort, workerData }, { default: Database }]) => {
  let db;
  try {
    db = new Database(workerData.source, { readonly: workerData.readonly, fileMustExist: true });
    db.pragma('busy_timeout = 5000');
    db.prepare('VACUUM INTO ?').run(workerData.dest);
    parentPort.postMessage({ ok: true });
  } catch (error) {
    parentPort.postMessage({ ok: false, message: error.message });
  } finally {
    try { db?.close(); } catch {}
  }
});`;

/** `VACUUM INTO dest` of the database at `source`, flushed to disk as it is written and at its end. */
export async function vacuumIntoDurably(source: string, dest: string, opts: { readonly: boolean }): Promise<void> {
  const driver = sqliteDriverUrl();
  const worker = new Worker(COPIER.replace('DRIVER', JSON.stringify(driver)), {
    eval: true,
    workerData: { source, dest, readonly: opts.readonly },
  });
  const done = new Promise<void>((resolve, reject) => {
    worker.once('message', (m: { ok: boolean; message?: string }) => (m.ok ? resolve() : reject(new Error(m.message))));
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`a cópia encerrou antes do fim (código ${code})`)));
  });
  let fd: number | null = null;
  let flushed = 0;
  let flushing: Promise<void> | null = null;
  const tick = setInterval(() => {
    if (flushing) return;
    if (fd === null) {
      if (!fs.existsSync(dest)) return;
      fd = fs.openSync(dest, 'r');
    }
    const size = fs.fstatSync(fd).size;
    if (size - flushed < FLUSH_BYTES) return;
    const at = fd;
    flushing = new Promise<void>((resolve) =>
      fs.fdatasync(at, () => {
        flushed = size;
        flushing = null;
        resolve();
      }),
    );
  }, TICK_MS);
  try {
    await done;
    fd ??= fs.openSync(dest, 'r');
    await flushing;
    fs.fdatasyncSync(fd);
  } finally {
    clearInterval(tick);
    await flushing;
    await worker.terminate();
    if (fd !== null) fs.closeSync(fd);
  }
}

/** Flushes a file or a directory entry (a new name, a rename) to the disk. */
export function fsyncPath(target: string): void {
  const fd = fs.openSync(target, 'r');
  try {
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

// Deleting a 461 MB copy frees its blocks in one filesystem transaction, and the box's next WAL fsync
// (which commits the journal while the WAL grows) waited behind it: the slow scans of `npm run
// bench:heavy`'s backup came in its last 0.3 s with `--keep 1`, and not with nothing to delete. Cut from
// the end a piece at a time, each piece is a small transaction of its own.
const REMOVE_STEP_BYTES = 16 * 1024 * 1024;

/** Deletes a large file in pieces, so the disk's journal is never held long by one deletion. */
export async function removeGently(file: string): Promise<void> {
  const fd = fs.openSync(file, 'r+');
  try {
    for (let size = fs.fstatSync(fd).size; size > 0;) {
      size = Math.max(0, size - REMOVE_STEP_BYTES);
      fs.ftruncateSync(fd, size);
      await sleep(1);
    }
  } finally {
    fs.closeSync(fd);
  }
  fs.rmSync(file);
}
