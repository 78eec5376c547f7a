// Where the event loop's CPU goes per check-in, from a V8 CPU profile of the box's main thread (node:inspector, taken
// in the child during one closed-loop round). Each sample goes to the first part, in this order, whose code is on its
// stack: the scan's log line, metrics and console feed before the core (they run inside its notice); the answer
// before the core (the view is built inside the check-in's write); the core (rules, repo, event log) before the
// durable write (the write queue runs the core inside its transaction); then authentication and the HTTP door.
// What is left is V8's own (GC, compiled code outside any frame) and the rest of Node.

export const PARTS = [
  'door (HTTP, routing, auth, validation, reply)',
  'core (rules, reads, state and event rows)',
  'durable write (transaction, savepoints, commit, fsync callback)',
  'answer (the order for this key, JSON)',
  'log line',
  'metrics and console feed',
  'garbage collection',
  'other (timers, promises, V8, Node)',
] as const;
export type Part = (typeof PARTS)[number];

const RULES: [Part, RegExp][] = [
  ['log line', /scan-log\.js|node_modules\/pino\/|node_modules\/sonic-boom\//],
  ['metrics and console feed', /node_modules\/prom-client\/|src\/status\/|src\/console\/(feed|live)\.js/],
  [
    'answer (the order for this key, JSON)',
    /checkin\.payload\.js|src\/orders\/(order\.payload|pedido-cache|order\.records)\.js/,
  ],
  ['core (rules, reads, state and event rows)', /src\/checkin\/(?!checkin\.routes)|src\/clock/],
  [
    'durable write (transaction, savepoints, commit, fsync callback)',
    /src\/db\/(write-queue|wal)\.js|better-sqlite3\/lib\/methods\/transaction/,
  ],
  [
    'door (HTTP, routing, auth, validation, reply)',
    /node:_http|node:net|stream_base|node_modules\/(fastify|find-my-way|light-my-request|avvio|zod|fastify-type-provider-zod)\/|src\/(app|auth|http)\/?|writev|parserOn/,
  ],
];

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string };
  children?: number[];
}
export interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** Microseconds of samples per part, and idle time, over the profile. */
export function splitProfile(profile: CpuProfile): { parts: Record<Part, number>; idle: number; busy: number } {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const time = new Map<number, number>();
  profile.samples.forEach((s, i) => time.set(s, (time.get(s) ?? 0) + (profile.timeDeltas[i] ?? 0)));
  const parts = Object.fromEntries(PARTS.map((p) => [p, 0])) as Record<Part, number>;
  let idle = 0;
  for (const [id, us] of time) {
    const leaf = byId.get(id)!.callFrame.functionName;
    if (leaf === '(idle)') {
      idle += us;
      continue;
    }
    if (leaf === '(garbage collector)') {
      parts['garbage collection'] += us;
      continue;
    }
    const stack: string[] = [];
    for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
      const f = byId.get(cur)!.callFrame;
      stack.push(`${f.url} ${f.functionName}`);
    }
    const part = RULES.find(([, re]) => stack.some((frame) => re.test(frame)))?.[0];
    parts[part ?? 'other (timers, promises, V8, Node)'] += us;
  }
  const busy = Object.values(parts).reduce((a, b) => a + b, 0);
  return { parts, idle, busy };
}

export type ProfileSplit = ReturnType<typeof splitProfile>;
