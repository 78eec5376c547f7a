import type { Child, LoadResult } from './load.js';
import { PARTS, type Part, type ProfileSplit } from './cpu-split.js';
import { int, out, table, type Measured } from './report.js';

// `npm run bench`, section 5: where each check-in's CPU goes. The whole process's CPU per check-in comes from the
// measured rounds (no profiler running): its main thread (the event loop) and its other threads (the WAL fsync on
// libuv's pool, the checkpoint worker, V8's helpers). The main thread's share is split by a CPU profile taken in a
// round of its own; the other threads are the durable write's.

/** The issue's four parts and what stays apart, from the profile's finer ones. */
const GROUPS: [string, Part[]][] = [
  ['door', ['door (HTTP, routing, auth, validation, reply)']],
  ['core', ['core (rules, reads, state and event rows)']],
  ['durable write', ['durable write (transaction, savepoints, commit, fsync callback)']],
  ['answer', ['answer (the order for this key, JSON)']],
  ['log line', ['log line']],
  ['metrics and console feed', ['metrics and console feed']],
  ['garbage collection', ['garbage collection']],
  ['other', ['other (timers, promises, V8, Node)']],
];

export interface CpuParts {
  perCheckin: number;
  rows: [string, number][];
  /** The profiled round: its check-ins are acknowledged too (the bench's bookkeeping counts them). */
  phases: LoadResult[];
}

/** Profiles one round of `load` on `box` and splits the rounds' CPU per check-in by it. */
export async function cpuParts(
  box: Child,
  rounds: LoadResult & Measured,
  load: () => Promise<LoadResult>,
  label: string,
): Promise<CpuParts> {
  const stop = await box.profile();
  const profiled = await load();
  const split: ProfileSplit = await stop();
  const n = rounds.completed;
  const main = (rounds.cpu.serverMain * 1e6) / n;
  const others = ((rounds.cpu.server - rounds.cpu.serverMain) * 1e6) / n;
  const share = (parts: Part[]) => parts.reduce((a, p) => a + split.parts[p], 0) / split.busy;
  const rows: [string, number][] = GROUPS.map(([name, parts]) => [name, main * share(parts)]);
  rows.find(([name]) => name === 'durable write')![1] += others;
  table([
    ['part', 'µs per check-in', 'of which'],
    ...rows.map(([name, us]) => [
      name,
      us.toFixed(1),
      name === 'durable write'
        ? `${(us - others).toFixed(1)} on the event loop + ${others.toFixed(1)} on other threads (WAL fsync, checkpoints)`
        : '',
    ]),
    ['whole process', (main + others).toFixed(1), `event loop ${main.toFixed(1)}, other threads ${others.toFixed(1)}`],
  ]);
  out(
    `${label}: CPU per check-in from the measured rounds (${int(n)} check-ins, no profiler); the event loop's share split by a CPU profile of one more round (${int(profiled.completed)} check-ins, ${Math.round((split.busy / (split.busy + split.idle)) * 100)}% busy)`,
  );
  out(
    `finer parts of the profile: ${PARTS.map((p) => `${p} ${((split.parts[p] / split.busy) * 100).toFixed(1)}%`).join('; ')}`,
  );
  return { perCheckin: main + others, rows, phases: [profiled] };
}
