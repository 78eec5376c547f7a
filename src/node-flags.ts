// The node flags the box runs with: package.json's `npm start`, systemd/gate.service's NODE_OPTIONS and the benches'
// box child (bench/load.ts) all give these (test/cli/node-flags.test.ts checks the first two).
//
// V8 lets the old generation grow between full collections by a factor of what survived the last one, at most 4
// when the heap limit is 2 GB or more (node's default limit is a quarter of the machine's memory, 4 GB at most), 1.4
// at 512 MB. A day of scans keeps promoting short-lived objects, so with the default limit on an 8 GB-or-more
// machine the box's heap swung between 75 and 152 MB and its peak resident memory passed 290 MB in
// `npm run bench:memory`; with 512 MB the heap stays under 80 MB (docs/performance.md, issue 25). 512 MB is more
// than ten times the box's live heap: reaching it means a leak, which ends the process, and systemd restarts it.

export const BOX_HEAP_LIMIT_MB = 512;
export const BOX_NODE_FLAGS: readonly string[] = [`--max-old-space-size=${BOX_HEAP_LIMIT_MB}`];

/** Whether node was started without a heap limit of its own (neither on its command line nor in NODE_OPTIONS). */
export function heapLimitMissing(execArgv: readonly string[], nodeOptions: string | undefined): boolean {
  const given = (flag: string) => /^--max[-_]old[-_]space[-_]size=\d+$/.test(flag);
  return !execArgv.some(given) && !(nodeOptions ?? '').split(/\s+/).some(given);
}
