import { afterEach, describe, expect, it } from 'vitest';
import { createFixedClock } from '../../src/clock.js';
import type { PushResult } from '../../src/db/schema.js';
import { createSettledNotices } from '../../src/site/site-backlog.js';
import {
  decodeMessage,
  encodeMessage,
  MAX_MESSAGE_BYTES,
  newRun,
  newSiteId,
  settledSubject,
  signingKey,
  subjectOf,
  type Origin,
} from '../../src/site/site-messages.js';
import { SITE_REJECT_REASONS } from '../../src/site/site.answers.js';
import type { SyncSpec } from '../../src/sync/sync.start.js';
import { createTestBox, TZ, type TestBox } from '../support/box.js';
import { startFakeCloud, type FakeCloud } from '../support/fake-cloud.js';
import { makeOrder } from '../support/fixtures.js';
import { checkin } from '../support/http.js';
import { siteLinkOf, startHub, type TestHub } from '../support/site-hub.js';
import { eventually } from '../support/sync-gate.js';

// What a box publishes, every other box accepts (docs/site.md, "Messages"): a day's settlement notices and movements
// with the longest names and the oddest text, each within MAX_MESSAGE_BYTES and of the shape the others decode.

const RESULTS: PushResult[] = ['aceito', 'ja_utilizado_na_nuvem', 'fora_do_prazo', 'cancelado_na_nuvem', 'outro'];
/** The longest names the schema takes: a box of 32 characters, a tenant of 64. */
const LONG_BOX = 'caixa-da-entrada-norte-principal';
const LONG_TENANT = `parque-${'aquatico-'.repeat(6)}x`.padEnd(64, 'x');

const originOf = (box: string, boxes: string[], tenant = LONG_TENANT): Origin => ({
  tenant,
  box,
  boxes,
  run: newRun(),
  earlierRuns: new Set(),
  secret: signingKey(`senha-${box}`),
});
const BOXES = [LONG_BOX, 'sul'];
const other = originOf('sul', BOXES);

const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const o of open.splice(0).reverse()) await o.close();
});

describe('the settlement notices of a day', () => {
  it('20,000 movements settled at once: every notice within 8 KB, accepted by another box, each movement told once', async () => {
    const box = await createTestBox();
    open.push(box);
    const origin = originOf(LONG_BOX, BOXES);
    const N = 20_000;
    const ids = Array.from({ length: N }, () => newSiteId(origin));
    expect(Math.max(...ids.map((id) => id.length))).toBeGreaterThanOrEqual(68);
    const { sqlite } = box.db;
    sqlite.transaction(() => {
      const event = sqlite.prepare(
        `INSERT INTO events (tenant_id, occurred_at, action, mode, code, qr_code, result, source)
         VALUES (?, '2026-11-21T13:00:00.000Z', 'checkin', 'qr', ?, ?, 'ok', 'lane')`,
      );
      const move = sqlite.prepare(
        `INSERT INTO site_moves (event_id, tenant_id, site_id, seq, sem_site, occurred_at) VALUES (?, ?, ?, ?, 0, ?)`,
      );
      const push = sqlite.prepare(
        `INSERT INTO sync_push (event_id, tenant_id, chave, action, status, attempts, resultado)
         VALUES (?, ?, ?, 'checkin', 'concluido', 1, ?)`,
      );
      ids.forEach((id, i) => {
        const qr = `Q-${i}`;
        const eventId = Number(event.run(box.tenantId, qr, qr).lastInsertRowid);
        move.run(eventId, box.tenantId, id, i + 1, '2026-11-21T13:00:00.000Z');
        push.run(eventId, box.tenantId, qr, RESULTS[i % RESULTS.length]);
      });
    })();

    const published: { subject: string; id: string; body: Uint8Array }[] = [];
    const announce = createSettledNotices({
      db: box.db,
      tenantId: box.tenantId,
      origin,
      publish: async (subject, id, body) => published.push({ subject, id, body }),
    });
    await announce();

    const told = new Map<string, string>();
    let sum = 0;
    for (const [i, p] of published.entries()) {
      expect(p.body.byteLength).toBeLessThanOrEqual(MAX_MESSAGE_BYTES);
      const decoded = decodeMessage(other, p.subject, p.body);
      if (!decoded.ok || decoded.kind !== 'settled') throw new Error(`aviso ${i} recusado: ${JSON.stringify(decoded)}`);
      expect(decoded).toMatchObject({ box: LONG_BOX, mine: false });
      for (const [id, resultado] of decoded.settled) {
        expect(told.has(id)).toBe(false);
        told.set(id, resultado);
      }
      // Filled greedily: only the last notice of each page of 500 rows may be short of a whole one.
      sum += decoded.settled.length;
      if (sum % 500 !== 0 && sum !== N) expect(p.body.byteLength).toBeGreaterThan(MAX_MESSAGE_BYTES - 100);
    }
    expect(new Set(published.map((p) => p.id)).size).toBe(published.length);
    expect(told.size).toBe(N);
    expect(ids.every((id, i) => told.get(id) === RESULTS[i % RESULTS.length])).toBe(true);
    expect(sqlite.prepare('SELECT count(*) AS n FROM site_moves WHERE nuvem_anunciada = 0').get()).toEqual({ n: 0 });
  });
});

describe('a movement message', () => {
  const origin = originOf(LONG_BOX, BOXES);
  const movement = {
    id: newSiteId(origin),
    action: 'checkin',
    kind: 'person',
    qr: 'QR-0001',
    code: 'QR-0001',
    mode: 'qr',
    at: '2026-11-21T13:00:00.000Z',
    area: 'parque',
    terminal: 'norte-1',
    operator: 'ana',
    source: 'lane',
    local: false,
  } as const;

  it('is its movement as JSON, byte for byte, when it fits', () => {
    const body = encodeMessage(origin, movement);
    const decoded = decodeMessage(other, subjectOf(LONG_TENANT, 'person', movement.qr), body);
    expect(decoded).toMatchObject({ ok: true, kind: 'movement', message: movement });
  });

  it('with the longest and oddest text the box takes stays within 8 KB, the ticket whole, as another box accepts it', () => {
    // Control characters are escaped as \u0000: six bytes each. The QR is the ticket's (200 characters at most).
    const odd = (n: number) => Array.from({ length: n }, (_, i) => String.fromCharCode(i % 32)).join('');
    const qr = `"\\${'ç'.repeat(98)}${odd(100)}`;
    const worst = {
      ...movement,
      id: `${LONG_BOX}.u${'A'.repeat(30)}`,
      qr,
      code: odd(1000),
      area: odd(64),
      terminal: `x${'😀'.repeat(150)}${odd(100)}`,
      operator: odd(200),
      source: 'handheld',
      undoes: newSiteId(origin),
    };
    const body = encodeMessage(origin, worst);
    expect(body.byteLength).toBeLessThanOrEqual(MAX_MESSAGE_BYTES);
    const decoded = decodeMessage(other, subjectOf(LONG_TENANT, 'person', qr), body);
    if (!decoded.ok || decoded.kind !== 'movement') throw new Error(`recusada: ${JSON.stringify(decoded)}`);
    const m = decoded.message;
    expect([m.qr, m.area, m.undoes, m.id]).toEqual([qr, worst.area, worst.undoes, worst.id]);
    // What was told only is cut, from its start, never in the middle of an emoji.
    for (const field of ['code', 'terminal', 'operator'] as const)
      expect(worst[field].startsWith(m[field]!)).toBe(true);
    expect(m.terminal!.length).toBeLessThanOrEqual(200);
    for (const field of ['code', 'terminal', 'operator'] as const) expect(m[field]).not.toMatch(/[\uD800-\uDBFF]$/);
  });
});

describe('on a real hub', () => {
  it('a box settles 2,000 movements with the cloud: the other box records every one as settled and refuses none', async () => {
    const hub: TestHub = await startHub({ boxes: ['norte', 'sul'] });
    open.push({ close: () => hub.close() });
    const cloud: FakeCloud = await startFakeCloud({ clock: createFixedClock(TZ, '2026-11-21T13:00:00.000Z') });
    open.push(cloud);
    const orders = Array.from({ length: 20 }, (_, i) =>
      makeOrder({ numero: `20261121-${String(i + 1).padStart(4, '0')}`, prefix: `N${i}`, people: 100 }),
    );
    cloud.addOrders(orders);
    const spec: SyncSpec = {
      url: cloud.url,
      apiKey: cloud.keys.box,
      integrationKey: cloud.keys.integration,
      tenant: 'parque',
      timeoutMs: 10_000,
      pullSeconds: 60,
      pushSeconds: 60,
      refreshCron: '0 0 1 1 *',
      fullRefreshCron: '0 0 1 1 *',
      daysAhead: 1,
    };
    const boxes: TestBox[] = [];
    for (const name of ['norte', 'sul']) {
      const b = await createTestBox({
        siteLink: siteLinkOf(hub, name, ['norte', 'sul']),
        ...(name === 'norte' ? { cloud: spec } : {}),
      });
      open.push(b);
      boxes.push(b);
      b.importOrders(orders);
      await eventually(`${name} on the site`, () => b.status.site()?.modo === 'site');
    }
    const [norte, sul] = boxes as [TestBox, TestBox];
    const codes = orders.flatMap((_, o) => Array.from({ length: 100 }, (_, p) => `N${o}-${p + 1}`));
    for (let i = 0; i < codes.length; i += 200)
      expect((await checkin(norte, { qr_code: codes.slice(i, i + 200).join(','), terminal: 'norte-1' })).status).toBe(
        200,
      );
    expect(await norte.sync!.pushNow()).toMatchObject({ settled: 2000, pending: 0 });

    const count = (b: TestBox, sql: string) => (b.db.sqlite.prepare(sql).get() as { n: number }).n;
    await eventually(
      'norte told the site of every settlement',
      () => count(norte, 'SELECT count(*) AS n FROM site_moves WHERE nuvem_anunciada = 0') === 0,
      30_000,
    );
    const notices = (await hub.read('GATE_SITE')).filter((m) => m.subject === settledSubject('parque', 'norte'));
    const last = Math.max(...notices.map((m) => m.seq));
    await eventually('sul read them all', () => sul.status.site()!.sequencia_aplicada >= last, 30_000);

    expect(sul.status.site()!.rejeitadas).toEqual(Object.fromEntries(SITE_REJECT_REASONS.map((r) => [r, 0])));
    expect(count(sul, 'SELECT count(*) AS n FROM site_settled')).toBe(2000);
    expect(notices.length).toBeGreaterThan(1);
    expect(Math.max(...notices.map((m) => Buffer.byteLength(m.data)))).toBeLessThanOrEqual(MAX_MESSAGE_BYTES);
  });
});
