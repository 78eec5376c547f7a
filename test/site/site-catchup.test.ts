import fs from 'node:fs';
import path from 'node:path';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBox } from '../../src/box.js';
import { createFixedClock } from '../../src/clock.js';
import { migrateToLatest, openDatabase } from '../../src/db/open.js';
import { upsertOrder } from '../../src/orders/orders.repo.js';
import { pedidoSchema } from '../../src/orders/order.schemas.js';
import { encodeMessage, signingKey, STREAM, STREAM_SUBJECTS, subjectOf } from '../../src/site/site-messages.js';
import { ensureTenant } from '../../src/tenants/tenants.repo.js';
import { TZ } from '../support/box.js';
import { makeOrder } from '../support/fixtures.js';
import { startHub, type TestHub, siteLinkOf } from '../support/site-hub.js';
import { eventually } from '../support/sync-gate.js';
import { tempDir } from '../support/temp.js';

// A box away while another entrance lets 20,000 people in: back, it catches up from the hub while it keeps
// scanning, and a ticket it has not applied yet is still refused (its claim loses, it reads the winner's message).

const BOXES = ['norte', 'sul'];
const NOW = '2026-11-21T13:00:00.000Z';
const ORDERS = 5_000;
const PEOPLE = 4;
let hub: TestHub;
let dir: string;
let box: { close(): Promise<void> } & Awaited<ReturnType<ReturnType<typeof createBox>['start']>>;

beforeAll(async () => {
  hub = await startHub({ boxes: BOXES });
  dir = tempDir('gate-catchup-');
  const db = openDatabase(path.join(dir, 'gate.db'));
  await migrateToLatest(db);
  const tenantId = ensureTenant(db, 'parque', NOW, 'Parque');
  db.sqlite.transaction(() => {
    for (let i = 0; i < ORDERS + 10; i++)
      upsertOrder(db, tenantId, pedidoSchema.parse(makeOrder({ prefix: `C${i}`, people: PEOPLE })), NOW);
  })();
  db.close();
  // sul's 20,000 check-ins, as sul publishes them (its own signature), while norte is away.
  const password = fs.readFileSync(hub.passwordFile('sul'), 'utf8').trim();
  const origin = {
    tenant: 'parque',
    box: 'sul',
    boxes: BOXES,
    run: 'r1',
    earlierRuns: new Set<string>(),
    secret: signingKey(password),
  };
  const nc = await connect({ servers: hub.url, user: 'gate-sul', pass: password });
  // The stream as the first box that reached the hub made it.
  await (await jetstreamManager(nc)).streams.add({ name: STREAM, subjects: [STREAM_SUBJECTS] });
  const js = jetstream(nc);
  for (let from = 0; from < ORDERS; from += 500) {
    const sent = [];
    for (let i = from; i < from + 500; i++)
      for (let n = 1; n <= PEOPLE; n++) {
        const qr = `C${i}-${n}`;
        const id = `sul.m${String(i * PEOPLE + n).padStart(10, '0')}`;
        const movement = { id, action: 'checkin', kind: 'person' as const, qr, code: qr, mode: 'qr' as const, at: NOW };
        const rest = { area: 'parque', terminal: 'sul-1', operator: null, source: 'lane', local: false };
        sent.push(js.publish(subjectOf('parque', 'person', qr), encodeMessage(origin, { ...movement, ...rest })));
      }
    await Promise.all(sent);
  }
  await nc.close();
}, 120_000);
afterAll(async () => {
  await box?.close();
  await hub.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('a box back after the others made 20,000 movements', () => {
  it('applies them all while scanning, and never lets in a ticket used elsewhere', async () => {
    const b = createBox({
      database: path.join(dir, 'gate.db'),
      clock: createFixedClock(TZ, NOW),
      logger: false,
      tenant: 'parque',
      siteLink: siteLinkOf(hub, 'norte', BOXES),
    });
    box = { ...(await b.start()), close: () => b.close() };
    const scan = (code: string) =>
      box.checkin.checkIn(
        { code, terminal: 'norte-1' },
        { tenantId: box.tenantId!, apiKeyId: null, keyName: null, source: 'api' },
      );
    const ok = async (code: string) => {
      const reply = await scan(code);
      return reply.batch === false && reply.result.ok;
    };
    // The catch-up's pieces wait for no fsync: they record the stream's position with them and become durable with
    // the next fsync (the write queue's flush ahead, or a scan's own), never one each that the next piece waits for.
    const fsyncs = { scans: 0, catchUp: 0 };
    box.db.writes.observe({
      committed: () => undefined,
      synced: (priority) => void fsyncs[priority === 'foreground' ? 'scans' : 'catchUp']++,
      failed: () => undefined,
    });
    await eventually('norte on the site', () => box.status.site()?.modo === 'site');
    // While it catches up: tickets used at sul (some from the end of the stream, not applied yet) are refused...
    for (let i = ORDERS - 1; i >= ORDERS - 50; i--) expect(await ok(`C${i}-1`)).toBe(false);
    // ...and its own new tickets go through.
    for (let i = ORDERS; i < ORDERS + 10; i++) expect(await ok(`C${i}-1`)).toBe(true);
    await eventually(
      'all applied',
      () => box.status.site()!.sequencia_aplicada >= ORDERS * PEOPLE && box.status.site()!.atraso === 0,
      60_000,
    );
    const used = box.db.sqlite.prepare("select count(*) from people where checkin_dispositivo = 'sul-1'").pluck().get();
    expect(used).toBe(ORDERS * PEOPLE);
    expect(box.status.site()).toMatchObject({ decisoes_sem_site_hoje: 0, estacionadas: 0, atraso: 0 });
    expect(fsyncs.scans).toBeGreaterThan(0);
    expect(fsyncs.catchUp).toBe(0);
  }, 120_000);
});
