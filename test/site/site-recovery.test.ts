import fs from 'node:fs';
import path from 'node:path';
import { connect } from '@nats-io/transport-node';
import { DiscardPolicy, jetstreamManager } from '@nats-io/jetstream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createBox } from '../../src/box.js';
import { createFixedClock } from '../../src/clock.js';
import { migrateToLatest, openDatabase } from '../../src/db/open.js';
import { upsertOrder } from '../../src/orders/orders.repo.js';
import { pedidoSchema } from '../../src/orders/order.schemas.js';
import { ensureTenant } from '../../src/tenants/tenants.repo.js';
import { TZ } from '../support/box.js';
import { makeOrder } from '../support/fixtures.js';
import { publishUnrecordedClaim, siteLinkOf, startHub, type TestHub } from '../support/site-hub.js';
import { eventually } from '../support/sync-gate.js';
import { tempDir } from '../support/temp.js';

// What the site link does when something went wrong elsewhere: the hub lost its store, the box died between a
// claim and its commit, a movement arrives for a ticket the box does not know yet, and garbage on the hub.

const BOXES = ['norte', 'sul', 'leste'];
const NOW = '2026-11-21T13:00:00.000Z';
let hub: TestHub;
const dirs: string[] = [];
const running: { close(): Promise<void> }[] = [];

beforeEach(async () => {
  hub = await startHub({ boxes: BOXES });
});
afterEach(async () => {
  await Promise.all(running.splice(0).map((b) => b.close()));
  await hub.close();
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

/** A box's folder with the park and its tickets (or none), as `gate import` leaves it. */
async function prepare(withTickets = true) {
  const dir = tempDir('gate-site-');
  dirs.push(dir);
  const db = openDatabase(path.join(dir, 'gate.db'));
  await migrateToLatest(db);
  const tenantId = ensureTenant(db, 'parque', NOW, 'Parque');
  if (withTickets) importTickets(db, tenantId);
  db.close();
  return dir;
}
const importTickets = (db: ReturnType<typeof openDatabase>, tenantId: number) =>
  upsertOrder(db, tenantId, pedidoSchema.parse(makeOrder({ numero: '20261121-0001', prefix: 'S', people: 3 })), NOW);

async function boot(dir: string, name: string) {
  const box = createBox({
    database: path.join(dir, 'gate.db'),
    clock: createFixedClock(TZ, NOW),
    logger: false,
    tenant: 'parque',
    siteLink: siteLinkOf(hub, name, BOXES),
  });
  const started = await box.start();
  const handle = { ...started, close: () => box.close() };
  running.push(handle);
  await eventually(`${name} on the site`, () => started.status.site()?.modo === 'site');
  return handle;
}
type Booted = Awaited<ReturnType<typeof boot>>;

const scan = (b: Booted, code: string, terminal = 't') =>
  b.checkin.checkIn({ code, terminal }, { tenantId: b.tenantId!, apiKeyId: null, keyName: null, source: 'api' });
const usedAt = (b: Booted, qr: string) =>
  (b.db.sqlite.prepare('select checkin_em from people where qr_code = ?').get(qr) as { checkin_em: string | null })
    .checkin_em;

const appliedSeq = (b: Booted) =>
  (b.db.sqlite.prepare('select applied_seq from site_state').get() as { applied_seq: number }).applied_seq;

const natsAs = (box: string) =>
  connect({ servers: hub.url, user: `gate-${box}`, pass: fs.readFileSync(hub.passwordFile(box), 'utf8').trim() });

/**
 * What norte's claim on the hub looks like when norte died before committing it: norte booted once on `dir` (so the
 * run is one of its database's), then a claim of S-1 signed by norte under that run. Its stream sequence.
 */
async function publishOrphan(dir: string): Promise<number> {
  const first = await boot(dir, 'norte');
  const runs = JSON.parse(
    (first.db.sqlite.prepare('select runs from site_state').get() as { runs: string }).runs,
  ) as string[];
  await first.close();
  running.splice(running.indexOf(first), 1);
  return publishUnrecordedClaim(hub, {
    box: 'norte',
    run: runs.at(-1)!,
    id: 'norte.orfa000000001',
    action: 'checkin',
    qr: 'S-1',
    at: NOW,
  });
}

/** Makes the site's stream refuse every new message (full, discarding new ones), or take them again. */
async function limitStream(full: boolean) {
  const nc = await natsAs('sul');
  const jsm = await jetstreamManager(nc);
  const { config, state } = await jsm.streams.info('GATE_SITE');
  await jsm.streams.update('GATE_SITE', {
    ...config,
    max_msgs: full ? state.messages : -1,
    discard: full ? DiscardPolicy.New : DiscardPolicy.Old,
  });
  await nc.close();
}

describe('the site link recovers', () => {
  it('from a hub that lost its store: each box publishes its own movements again, and a new box sees them', async () => {
    const [a, b] = [await boot(await prepare(), 'norte'), await boot(await prepare(), 'sul')];
    expect((await scan(a, 'S-1')).batch === false).toBe(true);
    await scan(b, 'S-2');
    await eventually('applied', () => usedAt(a, 'S-2') !== null && usedAt(b, 'S-1') !== null);
    await hub.stop();
    hub.wipeStore();
    await hub.restart();
    await eventually('republished', () => a.status.site()?.modo === 'site' && b.status.site()?.modo === 'site', 20_000);
    const c = await boot(await prepare(), 'leste');
    await eventually('the new box knows both', () => usedAt(c, 'S-1') !== null && usedAt(c, 'S-2') !== null);
    // Claims work on the new store: a third ticket at A is refused at B from B's own database.
    await scan(a, 'S-3');
    await eventually('S-3 at B', () => usedAt(b, 'S-3') !== null);
    const again = await scan(b, 'S-3');
    expect(again.batch === false && again.result.ok).toBe(false);
  });

  it('from a crash between a claim and its commit: the box undoes the claim once it is back', async () => {
    const dirA = await prepare();
    const b = await boot(await prepare(), 'sul');
    await publishOrphan(dirA);
    await eventually('the claim applied at sul', () => usedAt(b, 'S-1') !== null);
    // norte comes back on the same database: nobody went through, so the ticket is free again everywhere.
    const a = await boot(dirA, 'norte');
    await eventually('undone at sul', () => usedAt(b, 'S-1') === null);
    expect(usedAt(a, 'S-1')).toBeNull();
    const scanned = await scan(b, 'S-1');
    expect(scanned.batch === false && scanned.result.ok).toBe(true);
  });

  it('from that crash twice: a box that dies again before its undo reaches the hub undoes it at the next start', async () => {
    const dirA = await prepare();
    const b = await boot(await prepare(), 'sul');
    const orphanSeq = await publishOrphan(dirA);
    await eventually('the claim applied at sul', () => usedAt(b, 'S-1') !== null);
    // The hub takes no new message for a while (a full stream refuses them), but still delivers the stored ones.
    await limitStream(true);
    const again = await boot(dirA, 'norte');
    // Time for norte to read the orphan and fail to publish its undo (the probe retries every second).
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(appliedSeq(again)).toBeLessThan(orphanSeq);
    await again.close();
    running.splice(running.indexOf(again), 1);
    await limitStream(false);
    await boot(dirA, 'norte');
    await eventually('undone at sul', () => usedAt(b, 'S-1') === null);
  });

  it('parks a movement for a ticket it does not know yet, and applies it once the ticket arrives', async () => {
    const a = await boot(await prepare(), 'norte');
    const b = await boot(await prepare(false), 'sul');
    await scan(a, 'S-1');
    await eventually('parked at sul', () => b.status.site()?.estacionadas === 1);
    b.db.sqlite.transaction(() => importTickets(b.db, b.tenantId!))();
    await eventually('applied at sul', () => usedAt(b, 'S-1') !== null, 15_000);
    expect(b.status.site()).toMatchObject({ estacionadas: 0 });
  });
});
