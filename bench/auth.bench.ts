import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { createApiKey, createKeyVerifier } from '../src/auth/api-keys.js';
import { migrateToLatest, openDatabase } from '../src/db/open.js';
import { ensureTenant } from '../src/tenants/tenants.repo.js';

// `npm run bench:auth`: what a presented key costs the box, by kind: an unknown 12-hex key id, a
// known id with a wrong secret, a good key. A key must not be told apart by timing: the first two
// should cost the same. A good key is remembered once verified (issue 25), so it costs less: that
// tells nothing to anyone who does not already hold the whole key. Rounds alternate the kinds so
// other load hits them alike. A measurement, not a test.

const ROUNDS = 15;
const PER_ROUND = 20_000;
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gate-bench-auth-'));
const db = openDatabase(path.join(dir, 'gate.db'));
await migrateToLatest(db);
const nowIso = new Date().toISOString();
const tenantId = ensureTenant(db, 'parque', nowIso);
const { key } = createApiKey(db, { tenantId, name: 'bench', permissions: ['checkin'], nowIso });
const secret = key.slice(-43);
const verifyApiKey = createKeyVerifier(db);
const kinds = {
  'unknown key id': (i: number) => `gk_${(0xa00000000000 + i).toString(16)}_${secret}`,
  'known id, wrong secret': () => `${key.slice(0, -1)}${key.endsWith('A') ? 'B' : 'A'}`,
  'good key': () => key,
} as const;

const samples: Record<string, number[]> = Object.fromEntries(Object.keys(kinds).map((k) => [k, []]));
for (let round = 0; round < ROUNDS; round++) {
  for (const [name, make] of Object.entries(kinds)) {
    // Every presented unknown id is seen before the timing starts, as an attacker's retries would be.
    const keys = Array.from({ length: PER_ROUND }, (_, i) => make(i % 500));
    for (const k of keys.slice(0, 500)) verifyApiKey(k, nowIso);
    const started = performance.now();
    for (const k of keys) verifyApiKey(k, nowIso);
    samples[name]!.push(((performance.now() - started) * 1e6) / PER_ROUND);
  }
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
console.log(
  `Key verification, ns per key (median of ${ROUNDS} rounds of ${PER_ROUND}; node ${process.version}, ${os.cpus().length} cpus, load ${os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' / ')})`,
);
for (const [name, xs] of Object.entries(samples))
  console.log(
    `  ${name.padEnd(24)} ${median(xs).toFixed(0).padStart(6)} ns   (rounds ${Math.min(...xs).toFixed(0)}–${Math.max(...xs).toFixed(0)})`,
  );
console.log(
  `ratio unknown id / wrong secret: ${(median(samples['unknown key id']!) / median(samples['known id, wrong secret']!)).toFixed(3)}`,
);
db.close();
fs.rmSync(dir, { recursive: true, force: true });
