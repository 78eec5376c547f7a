import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeCloud } from '../support/fake-cloud.js';
import { auditSite, createLedger, inParallel, settle } from '../support/site-audit.js';
import { siteTickets, until, type Site } from '../support/site-boxes.js';
import { startSiteWithCloud } from '../support/site-cloud.js';

// A box that catches up (issue 37): leste is stopped while norte and sul let people in and reverse some of them at
// the other entrance; it comes back over a slow link, and while it is still behind the stream, the reversed tickets
// are scanned at leste. None may be refused: a box behind the stream must not refuse on its stale copy. The cloud is
// away meanwhile, and the run ends with the audit of site-audit.ts.

const NAMES = ['norte', 'sul', 'leste'];
// A box reads the stream 500 messages per ask (src/site/site-hub.ts). More check-ins than that come first, so the
// reversals arrive in a later ask than the check-ins they undo: between the two asks, leste holds the entries and
// not yet their reversals, for the round trip of an ask over its slow link.
const CHECKINS = 560;
const REVERSED = 100;
const ASK = 500;
// Two people per order, only the first ever scanned: the cloud never reports a whole lot checked in, so a box's pull
// marks nobody used behind the site's back (orders.repo.ts); a refusal at leste can only come from the site's copy.
const dataset = siteTickets({ orders: CHECKINS + 5, people: 2 });
const firsts = dataset.tickets.orders.map((o) => o.qrs[0]!);

let cloud: FakeCloud;
let site: Site;
beforeAll(async () => {
  ({ site, cloud } = await startSiteWithCloud(NAMES, dataset));
}, 120_000);
afterAll(async () => {
  await site?.close();
  await cloud?.close();
});

const appliedSeq = (dataDir: string) => {
  const db = new Database(path.join(dataDir, 'gate.db'), { readonly: true, fileMustExist: true });
  try {
    return db.prepare('select applied_seq from site_state').pluck().get() as number;
  } finally {
    db.close();
  }
};

describe('a box that catches up', () => {
  it('refuses none of the tickets reversed while it was away, though it is still behind the stream', async () => {
    const ledger = createLedger();
    const [norte, sul, leste] = [site.box('norte'), site.box('sul'), site.box('leste')];
    expect(await leste.stop()).toBe(0);
    const from = appliedSeq(leste.dataDir);
    // The park's internet is down meanwhile: once back, each box settles hundreds of movements with the cloud at once
    // and tells the other boxes in notices of that size (a day's volume, not a handful).
    await cloud.proxy.down();

    const entries = firsts.slice(0, CHECKINS);
    await inParallel(entries, 4, async (qr, i) => {
      const answer = await ledger.checkin(i % 2 === 0 ? norte : sul, qr);
      expect(answer.status, `${qr}: ${JSON.stringify(answer.body)}`).toBe(200);
    });
    await until('norte and sul hold each other’s entries', async () => {
      const views = await Promise.all([norte.siteView(), sul.siteView()]);
      return views.every((v) => v.atraso === 0 && v.pendentes === 0);
    });
    // Every third of the first 300, at the other entrance than the one that let it in.
    const reversed = entries.filter((_, i) => i % 3 === 0).slice(0, REVERSED);
    await inParallel(reversed, 4, async (qr) => {
      const at = ledger.granted(qr)[0]!.box === 'norte' ? sul : norte;
      const answer = await ledger.reverse(at, qr);
      expect(answer.status, `reversal of ${qr} at ${at.name}: ${JSON.stringify(answer.body)}`).toBe(200);
    });

    await cloud.proxy.up();

    // Where each reversed ticket's entry and reversal sit in the stream, as leste will read it.
    const seqs = new Map<string, number>();
    for (const m of await site.hub.read('GATE_SITE')) {
      const body = JSON.parse(m.data) as { action?: string; qr?: string };
      if (body.qr && reversed.includes(body.qr)) seqs.set(`${body.action} ${body.qr}`, m.seq);
    }
    const lastEntry = Math.max(...reversed.map((qr) => seqs.get(`checkin ${qr}`)!));
    const firstReversal = Math.min(...reversed.map((qr) => seqs.get(`estorno ${qr}`)!));
    expect(lastEntry, `the entries leste reads in its first ask (from ${from + 1})`).toBeLessThanOrEqual(from + ASK);
    expect(firstReversal, 'the reversals leste reads in a later ask').toBeGreaterThan(from + ASK);

    // Back over a link whose every byte takes 300-400 ms each way: claims time out, the stream comes slowly.
    leste.proxy!.mode('delay', { ms: 300, jitterMs: 100 });
    await leste.start();
    await until(
      'leste holds the entries and not yet their reversals',
      async () => (await leste.siteView()).sequencia_aplicada >= lastEntry,
      30_000,
    );
    const before = await leste.siteView();
    const scans = await Promise.all(reversed.map((qr) => ledger.checkin(leste, qr)));
    const after = await leste.siteView();
    const behind =
      `leste ${before.modo} (${before.motivo}), applied ${before.sequencia_aplicada}, atraso ${before.atraso}, ` +
      `reversals from ${firstReversal}`;
    expect(before.sequencia_aplicada < firstReversal && before.atraso > 0, behind).toBe(true);
    const refused = scans.filter((s) => s.status !== 200).map((s) => `${s.qr}: ${s.status} ${s.body.error?.code}`);
    expect
      .soft(
        refused,
        `reversed tickets refused at leste while behind (${behind}; after: applied ${after.sequencia_aplicada})`,
      )
      .toEqual([]);

    leste.proxy!.mode('pass');
    await settle(site.boxes, 45_000);
    await auditSite(site.boxes, cloud, ledger);
  });
});
