import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSite, until, type Site, type SiteBox } from '../support/site-boxes.js';

// Three boxes as real `gate serve` processes on Debian's nats-server, each through a TCP proxy the test controls:
// races of one QR at three boxes, the hub blackholed while every box scans, and a box killed in a burst.

let site: Site;
beforeAll(async () => {
  site = await startSite({ names: ['norte', 'sul', 'leste'], orders: 60, people: 3 });
  for (const b of site.boxes) await b.untilMode('site');
}, 120_000);
afterAll(() => site?.close());

/** Tickets used in a box's own database (read-only, beside the running box). */
function usedAt(box: SiteBox): Set<string> {
  const db = new Database(path.join(box.dataDir, 'gate.db'), { readonly: true, fileMustExist: true });
  try {
    return new Set(db.prepare('select qr_code from people where checkin_em is not null').pluck().all() as string[]);
  } finally {
    db.close();
  }
}
/** When a ticket was checked in, as a box recorded it (and answered it). */
function checkinAt(box: SiteBox, qr: string): string | null {
  const db = new Database(path.join(box.dataDir, 'gate.db'), { readonly: true, fileMustExist: true });
  try {
    return (db.prepare('select checkin_em from people where qr_code = ?').pluck().get(qr) as string | null) ?? null;
  } finally {
    db.close();
  }
}
const sameSets = (a: Set<string>, b: Set<string>) => a.size === b.size && [...a].every((x) => b.has(x));

describe('a site of three boxes as processes', () => {
  it('one QR at three boxes at once: exactly one 200, twenty times out of twenty, refused with the winner’s time', async () => {
    for (let n = 0; n < 20; n++) {
      const qr = site.tickets.fresh();
      const answers = await site.race(qr);
      expect(answers.map((a) => a.status).sort()).toEqual([200, 409, 409]);
      // The refusing boxes answer the time the winner recorded and answered, to the millisecond.
      const winner = site.boxes[answers.findIndex((a) => a.status === 200)]!;
      const recorded = checkinAt(winner, qr);
      for (const refused of answers.filter((a) => a.status === 409))
        expect(refused.body.error.details.checkin_em).toBe(recorded);
    }
    for (const b of site.boxes) expect(await b.siteView()).toMatchObject({ decisoes_sem_site_hoje: 0 });
  });

  it('with the hub blackholed every box goes on alone, stops asking the hub, and the merge finds the double entry', async () => {
    for (const b of site.boxes) b.proxy!.mode('blackhole');
    const shared = site.tickets.fresh();
    const answered: number[] = [];
    // Every box scans its own tickets meanwhile; each is answered, none refused for the hub.
    for (let round = 0; round < 6; round++)
      for (const b of site.boxes) answered.push((await b.checkin(site.tickets.fresh())).status);
    expect(answered.every((s) => s === 200)).toBe(true);
    for (const b of site.boxes) await b.untilMode('local');
    const claims = await Promise.all(site.boxes.map(claimCount));
    expect(claims.every((n) => n > 0)).toBe(true);
    // In local mode a scan no longer waits for the hub: the claims stop.
    for (const b of site.boxes) expect((await b.checkin(site.tickets.fresh())).status).toBe(200);
    expect(await Promise.all(site.boxes.map(claimCount))).toEqual(claims);
    // The same ticket at two entrances while the hub is away.
    expect((await site.box('norte').checkin(shared)).status).toBe(200);
    expect((await site.box('sul').checkin(shared)).status).toBe(200);
    for (const b of site.boxes) b.proxy!.mode('pass');
    for (const b of site.boxes) await b.untilMode('site');
    await until('every box has every movement', async () => {
      const [a, b, c] = site.boxes.map(usedAt) as [Set<string>, Set<string>, Set<string>];
      return sameSets(a, b) && sameSets(b, c);
    });
    for (const b of site.boxes)
      await until(`${b.name} lists the double entry`, async () => {
        const { body } = await b.get('/api/local/conflicts?tipo=duplo_no_site');
        return body.data.total === 1 && body.data.conflitos[0].qr_code === shared;
      });
  });

  it('a box killed with SIGKILL in a burst, claims timing out part of the time: every acknowledged check-in is on every box, and the boxes agree', async () => {
    const norte = site.box('norte');
    // Some claims miss their 150 ms and are decided alone: the crash meets both paths.
    for (const b of site.boxes) b.proxy!.mode('delay', { ms: 100, jitterMs: 150, fraction: 0.04 });
    const burst = Array.from({ length: 40 }, () => site.tickets.fresh());
    const answers = burst.map((qr) =>
      norte.checkin(qr).then(
        (a) => a.status,
        () => 0,
      ),
    );
    await new Promise((r) => setTimeout(r, 30));
    await norte.kill();
    const statuses = await Promise.all(answers);
    const acknowledged = burst.filter((_, i) => statuses[i] === 200);
    await norte.start();
    await norte.untilMode('site');
    await until('the boxes agree', async () => {
      const [a, b, c] = site.boxes.map(usedAt) as [Set<string>, Set<string>, Set<string>];
      return sameSets(a, b) && sameSets(b, c);
    });
    const used = usedAt(site.box('sul'));
    for (const qr of acknowledged) expect(used.has(qr)).toBe(true);
    // What norte claimed and never committed was undone: nothing is used at sul that norte does not know of.
    for (const qr of burst) expect(used.has(qr)).toBe(usedAt(norte).has(qr));
    for (const b of site.boxes) b.proxy!.mode('pass');
  });
});

/** Claims a box made so far (its metrics' histogram count). */
async function claimCount(box: SiteBox): Promise<number> {
  const { body } = await box.request('GET', '/metrics');
  const line = String(body).match(/^gate_site_claim_seconds_count(?:\{[^}]*\})? (\d+)/m);
  return Number(line?.[1] ?? 0);
}
