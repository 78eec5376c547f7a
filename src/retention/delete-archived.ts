import { setTimeout as sleep } from 'node:timers/promises';
import type { Sqlite } from '../db/open.js';
import { FAMILIES, quote, type Family } from './archive-file.js';
import { STILL_MOVABLE_EVENT } from './policy.js';

// Steps 4 and 5 of a run of `gate archive` (retention.ts): the deletes from the live tables, in short
// transactions that leave the box's check-ins the write lock, and taking out of the archive what stayed live.

const primaryKey = (sqlite: Sqlite, table: string) =>
  sqlite
    .prepare(`SELECT name FROM pragma_table_info(?, 'main') WHERE pk > 0 ORDER BY pk`)
    .pluck()
    .all(table) as string[];

// A delete transaction holds the box's write lock: aim to keep each under this.
const TARGET_MS = 5;
const MIN_BATCH = 25;

/** Deletes from the live tables the rows of a family the archive holds; returns how many roots left. */
export async function deleteArchived(
  sqlite: Sqlite,
  family: Family,
  cloudIds: number[],
  batch: number,
  pauseMs: number,
  longest: { ms: number },
): Promise<number> {
  const { root } = family;
  const candidates = sqlite
    .prepare(
      `SELECT a.id FROM arc.${root} a WHERE a.id > ? AND EXISTS (SELECT 1 FROM main.${root} m WHERE m.id = a.id) ORDER BY a.id LIMIT ?`,
    )
    .pluck();
  // A dependent row added since the copy (a mark, an acknowledgement) is not in the archive: its row stays.
  const depsArchived = family.dependents.map(({ table, fk }) => {
    const same = primaryKey(sqlite, table)
      .map((c) => `ad.${quote(c)} = d.${quote(c)}`)
      .join(' AND ');
    return `NOT EXISTS (SELECT 1 FROM main.${table} d WHERE d.${quote(fk)} = e.id AND NOT EXISTS (SELECT 1 FROM arc.${table} ad WHERE ${same}))`;
  });
  const mark = sqlite.prepare(
    `INSERT INTO main.retention_moving (tbl, id)
       SELECT '${root}', e.id FROM main.${root} e
        WHERE e.id IN (SELECT value FROM json_each(:ids)) AND EXISTS (SELECT 1 FROM arc.${root} a WHERE a.id = e.id)
          AND ${[...(root === 'events' ? [STILL_MOVABLE_EVENT] : []), ...depsArchived].join(' AND ')}`,
  );
  const moving = `(SELECT id FROM main.retention_moving WHERE tbl = '${root}')`;
  const deletes = [
    ...family.dependents.map((d) => sqlite.prepare(`DELETE FROM main.${d.table} WHERE ${quote(d.fk)} IN ${moving}`)),
    sqlite.prepare(`DELETE FROM main.${root} WHERE id IN ${moving}`),
  ];
  const clear = sqlite.prepare('DELETE FROM main.retention_moving');
  const params = (ids: number[]) =>
    root === 'events' ? { ids: JSON.stringify(ids), cloud: JSON.stringify(cloudIds) } : { ids: JSON.stringify(ids) };
  const moveBatch = sqlite.transaction((ids: number[]) => {
    mark.run(params(ids));
    let n = 0;
    for (const d of deletes) n = d.run().changes;
    clear.run();
    return n;
  });
  let moved = 0;
  let after = 0;
  let size = batch;
  for (;;) {
    const ids = candidates.all(after, size) as number[];
    if (ids.length === 0) return moved;
    const started = performance.now();
    moved += moveBatch.immediate(ids);
    const took = performance.now() - started;
    longest.ms = Math.max(longest.ms, took);
    // Slow storage (an SD card) or a busy CPU: fewer rows per transaction, so the lock is held briefly.
    if (took > TARGET_MS) size = Math.max(MIN_BATCH, size >> 1);
    else if (took < TARGET_MS / 2) size = Math.min(batch, size * 2);
    after = ids[ids.length - 1]!;
    await sleep(pauseMs);
  }
}

/** Takes out of the archive the rows still live (kept by the re-check); returns how many. */
export function reconcile(sqlite: Sqlite): number {
  return sqlite.transaction(() => {
    let n = 0;
    for (const { root, dependents } of FAMILIES) {
      const live = `(SELECT a.id FROM arc.${root} a WHERE EXISTS (SELECT 1 FROM main.${root} m WHERE m.id = a.id))`;
      for (const d of dependents) sqlite.prepare(`DELETE FROM arc.${d.table} WHERE ${quote(d.fk)} IN ${live}`).run();
      n += sqlite.prepare(`DELETE FROM arc.${root} WHERE id IN ${live}`).run().changes;
    }
    return n;
  })();
}
