import type { Log } from '../lib/log.js';
import { mergeWaiting } from './fts5-structure.js';
import type { Db } from './open.js';
import { RESUMABLE_PIECE } from './write-queue.js';

// The search index's upkeep (docs/console.md, "Search"). Triggers on orders and people add each stored or changed
// document to search_pending (migration 0008); the search reads pending documents through the views of 0008, so a
// document is found from its commit on. Moving them into the FTS5 tables and merging FTS5's segments is done here, in
// bounded pieces of their own. Until migration 0017 the 128th pending document's trigger moved them inside the write
// that stored it, and FTS5 merged segments there: whole levels of search_keys at once (crisismerge), up to 25 ms of CPU
// in one statement with 400,000 people, 65–69 ms of a sync piece in bench:heavy (docs/performance.md, 25 (2b)).

/**
 * A piece moves pending documents MOVE_CHUNK at a time (7–10 µs each) until it has moved MOVE_DOCS or taken MOVE_MS,
 * lowest document ids first. Bounded in time as a sync piece is (src/sync/pull.ts), so that the moves keep up with an
 * ingest on any core: the two take turns in the write queue, and what waits is read by every search.
 */
export const MOVE_DOCS = 256;
export const MOVE_CHUNK = 64;
export const MOVE_MS = 1.5;
/** Leaf pages an FTS5 'merge' writes per piece (FTS5's own unit of merge work). */
export const MERGE_PAGES = 16;

export interface SearchIndexUpkeep {
  /** Moves one piece's pending documents (MOVE_DOCS, MOVE_MS), in the caller's transaction; returns how many. */
  move(): number;
  /** One step of FTS5 merging, MERGE_PAGES pages at most in each table; whether there was any to do. */
  merge(): boolean;
  /** Whether any document waits. */
  pending(): boolean;
  /** Whether merge() would find work: read from FTS5's structure records, no write. */
  mergeable(): boolean;
}

/** The statements of the upkeep on `db`'s connection; each call is one unit of work for a caller's transaction. */
export function searchIndexUpkeep(db: Db): SearchIndexUpkeep {
  const { sqlite } = db;
  // A document id is below 2^53 (migration 0008), so a plain number.
  const upTo = sqlite.prepare('SELECT max(doc) FROM (SELECT doc FROM search_pending ORDER BY doc LIMIT ?)').pluck();
  const names = sqlite.prepare(
    'INSERT OR REPLACE INTO search_names (rowid, nome) SELECT doc, nome FROM search_pending_names WHERE doc <= ?',
  );
  const keys = sqlite.prepare(
    `INSERT OR REPLACE INTO search_keys (rowid, chave)
       SELECT doc, group_concat(key, ' ') FROM search_pending_keys WHERE doc <= ? GROUP BY doc`,
  );
  const done = sqlite.prepare('DELETE FROM search_pending WHERE doc <= ?');
  const any = sqlite.prepare('SELECT EXISTS (SELECT 1 FROM search_pending)').pluck();
  const changes = sqlite.prepare('SELECT total_changes()').pluck();
  const tables = ['search_names', 'search_keys'].map((t) => ({
    merge: sqlite.prepare(`INSERT INTO ${t} (${t}, rank) VALUES ('merge', ${MERGE_PAGES})`),
    structure: sqlite.prepare(`SELECT block FROM ${t}_data WHERE id = 10`).pluck(),
  }));
  const waiting = (t: (typeof tables)[number]) => mergeWaiting(t.structure.get() as Buffer);
  return {
    move() {
      const started = performance.now();
      let moved = 0;
      while (moved < MOVE_DOCS && (moved === 0 || performance.now() - started < MOVE_MS)) {
        const last = upTo.get(Math.min(MOVE_CHUNK, MOVE_DOCS - moved)) as number | null;
        if (last === null) break;
        names.run(last);
        keys.run(last);
        moved += done.run(last).changes;
      }
      return moved;
    },
    merge() {
      let worked = false;
      for (const t of tables.filter(waiting)) {
        const before = changes.get() as number;
        t.merge.run();
        // SQLite's documented test: a 'merge' that merged something changed two rows or more.
        if ((changes.get() as number) - before >= 2) worked = true;
      }
      return worked;
    },
    mergeable: () => tables.some(waiting),
    pending: () => any.get() === 1,
  };
}

const upkeeps = new WeakMap<Db, SearchIndexUpkeep>();

/**
 * Moves every pending document, then merges until FTS5 has nothing left to merge, each piece in a short transaction of
 * its own: for writers that run without the box (`gate import`, which may run while the box is stopped, and the
 * benchmarks' fills). Returns how many documents it moved.
 */
export function catchUpSearchIndex(db: Db): number {
  let upkeep = upkeeps.get(db);
  if (!upkeep) upkeeps.set(db, (upkeep = searchIndexUpkeep(db)));
  const move = db.sqlite.transaction(upkeep.move).immediate;
  const merge = db.sqlite.transaction(upkeep.merge).immediate;
  let moved = 0;
  for (let n = move(); n > 0; n = move()) {
    moved += n;
    if (upkeep.mergeable()) merge();
  }
  while (upkeep.mergeable() && merge());
  return moved;
}

/** While documents keep coming, moves between merge steps at most. */
const MOVES_PER_MERGE = 4;

/** How often the box looks for pending documents once none are left. */
export const UPKEEP_IDLE_MS = 50;
/**
 * How soon it looks again after a round that did move documents: a writer is likely still storing (an ingest), and
 * what it stores meanwhile waits, read by every search (about 25,000 documents a second in an ingest on this box).
 */
const UPKEEP_BUSY_MS = 5;

export interface SearchUpkeep {
  /** Resolves once no document waits and no merge is left (tests; the box never waits for it). */
  settled(): Promise<void>;
  /** Stops looking and waits for the piece under way. */
  close(): Promise<void>;
}

/**
 * The box's upkeep of the search index: every UPKEEP_IDLE_MS it looks for pending documents (any writer's: the sync,
 * `gate import` in another process, the console) and, while there are any, moves them a piece at a time through the
 * write queue's background turn, each move followed by one merge step while FTS5 has segments to merge (while more
 * documents keep coming, one every MOVES_PER_MERGE moves). Segments left by writers before the box started are merged
 * too: the first look finds them.
 */
export function startSearchUpkeep({
  db,
  log,
  idleMs = UPKEEP_IDLE_MS,
}: {
  db: Db;
  log?: Log | undefined;
  idleMs?: number | undefined;
}): SearchUpkeep {
  const upkeep = searchIndexUpkeep(db);
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let round: Promise<void> = Promise.resolve();
  let waiters: (() => void)[] = [];

  let movesSinceMerge = 0;
  // A merge step that found nothing to do although the structure said so (never seen): no more until the next move.
  let mergeDry = false;
  const mergeNow = () => !mergeDry && upkeep.mergeable();
  /**
   * Moves and merges until nothing is left; whether it moved anything. Each piece is one transaction (the index is
   * never half moved) and a RESUMABLE_PIECE: a move or a merge lost to a power cut is done again, the documents still
   * pending.
   */
  const work = async () => {
    let any = false;
    for (;;) {
      if (stopped) return any;
      const moved = upkeep.pending() ? await db.writes.run(() => upkeep.move(), RESUMABLE_PIECE) : 0;
      if (moved > 0) [mergeDry, any] = [false, true];
      // Behind an ingest, moves come first (every search reads what waits), but a merge still comes every few moves:
      // left alone, FTS5 would merge a whole level inside a move once it holds crisismerge segments.
      const behind = moved > 0 && upkeep.pending() && movesSinceMerge < MOVES_PER_MERGE;
      if (!stopped && !behind && mergeNow()) {
        mergeDry = !(await db.writes.run(() => upkeep.merge(), RESUMABLE_PIECE));
        movesSinceMerge = 0;
      } else if (moved > 0) movesSinceMerge++;
      if (moved === 0 && !mergeNow()) return any;
    }
  };
  const settledNow = () => {
    if (!mergeNow() && !upkeep.pending()) for (const w of waiters.splice(0)) w();
  };
  const tick = () => {
    timer = undefined;
    round = (async () => {
      let busy = false;
      try {
        busy = await work();
        if (!stopped) settledNow();
      } catch (error) {
        // A full disk, a database closed under a test: tried again on the next tick.
        if (!stopped) log?.warn({ err: error }, 'busca: falha ao atualizar o índice; nova tentativa em seguida');
      }
      if (!stopped) timer = setTimeout(tick, busy ? Math.min(UPKEEP_BUSY_MS, idleMs) : idleMs).unref();
    })();
  };
  timer = setTimeout(tick, idleMs).unref();
  return {
    settled: () => new Promise<void>((resolve) => waiters.push(resolve)),
    async close() {
      stopped = true;
      clearTimeout(timer);
      await round;
      for (const w of waiters.splice(0)) w();
      waiters = [];
    },
  };
}
