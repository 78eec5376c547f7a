import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Log } from '../../src/lib/log.js';
import { createApplier, type RawMessage } from '../../src/site/site-apply.js';
import { encodeMessage, newSiteId, subjectOf, type Origin, type SiteMessage } from '../../src/site/site-messages.js';
import { siteCounts } from '../../src/site/site-store.js';
import { createTestBox, type TestBox } from '../support/box.js';
import { makeOrder } from '../support/fixtures.js';

// leste applies the other boxes' movements in whatever order the hub and its own lost claims bring them: a ticket let
// in at two boxes is a duplo_no_site here whatever the order, both entries named; a ticket let in once never is,
// even when the cloud's pull told this box of that entry first; and the count is what the list shows.

const BOXES = ['norte', 'sul', 'leste'];
const ORDER = makeOrder({ numero: '20261121-0001', prefix: 'S', people: 3 });
const originOf = (box: string): Origin => ({
  tenant: 'parque',
  box,
  boxes: BOXES,
  run: `${box}run1`,
  earlierRuns: new Set(),
  secret: Buffer.alloc(32, box),
});
const quiet = { warn: () => undefined, error: () => undefined, info: () => undefined } as unknown as Log;

let box: TestBox;
let applier: ReturnType<typeof createApplier>;
beforeEach(async () => {
  box = await createTestBox();
  box.importOrders([ORDER]);
  applier = createApplier({
    checkin: box.checkin,
    db: box.db,
    tenantId: box.tenantId,
    origin: originOf('leste'),
    clock: box.clock,
    log: quiet,
    undo: { orphan: () => undefined, holds: () => false, finished: () => false },
    inFlight: new Set(),
  });
});
afterEach(() => box.close());

/** Applies them all: a write applies what fits in a couple of ms of the event loop, the rest goes in the next. */
async function applyAll(messages: RawMessage[], from: 'stream' | 'ticket') {
  for (let done = 0; done < messages.length;) done += await applier.apply(messages.slice(done), from);
}

let seq = 0;
/** A movement of `from` on the hub, at `second` past 13:00 of the order's day. */
function message(from: string, action: SiteMessage['action'], qr: string, second: number, undoes?: string): RawMessage {
  const o = originOf(from);
  const id = newSiteId(o);
  const body = {
    id,
    action,
    kind: 'person' as const,
    qr,
    code: qr,
    mode: 'qr' as const,
    at: new Date(Date.UTC(2026, 10, 21, 13, 0, 0, second * 1000)).toISOString(),
    area: 'parque',
    terminal: `${from}-1`,
    operator: null,
    source: 'api',
    local: true,
    ...(undoes ? { undoes } : {}),
  };
  return { seq: ++seq, subject: subjectOf('parque', 'person', qr), data: encodeMessage(o, body), msgId: id };
}

async function conflictsListed() {
  const res = await box.app.inject({
    method: 'GET',
    url: '/api/local/conflicts?tipo=duplo_no_site',
    headers: { 'x-api-key': box.keys.all },
  });
  expect(res.statusCode).toBe(200);
  return res.json().data.conflitos as {
    evento_id: number;
    caixa: string;
    outro_evento_id: number;
    outro_caixa: string;
  }[];
}
const counted = () => siteCounts(box.db, box.tenantId, '2026-11-21T03:00:00.000Z').conflicts;

describe('duplo_no_site, whatever order the entries arrive in', () => {
  it('the newer entry met first (a lost claim read the ticket’s newest message), the older after it on the stream', async () => {
    const norte = message('norte', 'checkin', 'S-1', 10);
    const sul = message('sul', 'checkin', 'S-1', 12);
    await applyAll([sul], 'ticket');
    await applyAll([norte, sul], 'stream');
    const listed = await conflictsListed();
    expect(listed).toHaveLength(1);
    expect(listed[0]).toMatchObject({ caixa: 'norte', outro_caixa: 'sul' });
    expect(counted()).toBe(1);
  });

  it('the entries in time order, or the later one first on the stream, are the same one double', async () => {
    await applyAll([message('sul', 'checkin', 'S-2', 12), message('norte', 'checkin', 'S-2', 10)], 'stream');
    expect(await conflictsListed()).toMatchObject([{ caixa: 'norte', outro_caixa: 'sul' }]);
    expect(counted()).toBe(1);
  });

  it('a reversal between the two entries, published late, takes the double back', async () => {
    await applyAll([message('norte', 'checkin', 'S-1', 10), message('sul', 'checkin', 'S-1', 12)], 'stream');
    expect(counted()).toBe(1);
    await applyAll([message('norte', 'estorno', 'S-1', 11)], 'stream');
    expect(await conflictsListed()).toEqual([]);
    expect(counted()).toBe(0);
  });

  it('a reversal of an earlier entry, arriving after a later entry made alone, leaves the later one standing', async () => {
    // norte let S-1 in alone at :45; sul's entry at :44 and its reversal at :44.5 reach leste after it.
    await applyAll([message('norte', 'checkin', 'S-1', 45)], 'stream');
    await applyAll([message('sul', 'checkin', 'S-1', 44), message('sul', 'estorno', 'S-1', 44.5)], 'stream');
    const person = box.db.sqlite.prepare('SELECT checkin_em FROM people WHERE qr_code = ?').get('S-1');
    expect(person).toEqual({ checkin_em: '2026-11-21T13:00:45.000Z' });
    expect(await conflictsListed()).toEqual([]);
  });

  it('a claim undone by its compensation let nobody in: the next entry elsewhere is no double', async () => {
    const orphan = message('norte', 'checkin', 'S-3', 10);
    const compensation = message('norte', 'estorno', 'S-3', 10, JSON.parse(new TextDecoder().decode(orphan.data)).id);
    await applyAll([message('sul', 'checkin', 'S-3', 11)], 'ticket');
    await applyAll([orphan, compensation], 'stream');
    expect(await conflictsListed()).toEqual([]);
    expect(counted()).toBe(0);
  });

  it('an entry the cloud’s pull told of first is no conflict when the site’s message for it arrives', async () => {
    // As a pull leaves a person the cloud says is checked in: used, with no event of it here.
    box.db.sqlite.prepare('UPDATE people SET checkin_em = ? WHERE qr_code = ?').run('2026-11-21T13:00:10.000Z', 'S-1');
    await applyAll([message('norte', 'checkin', 'S-1', 10)], 'stream');
    expect(await conflictsListed()).toEqual([]);
    expect(counted()).toBe(0);
  });
});
