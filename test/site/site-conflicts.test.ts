import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/auth/api-keys.js';
import { createFixedClock } from '../../src/clock.js';
import type { SyncSpec } from '../../src/sync/sync.start.js';
import { createTestBox, TZ, type TestBox } from '../support/box.js';
import { startFakeCloud, type FakeCloud } from '../support/fake-cloud.js';
import { makeOrder } from '../support/fixtures.js';
import { checkin, reverse } from '../support/http.js';
import { startHub, type TestHub, siteLinkOf } from '../support/site-hub.js';
import { eventually } from '../support/sync-gate.js';

// Two real boxes of a site (in this process) on a real hub, each pulling and pushing with its own key on one fake
// cloud: a double entry made while the hub was away is a duplo_no_site on both, listed with the cloud's conflicts;
// and every check-in and reversal reaches the cloud once, from the box that made it.

const BOXES = ['norte', 'sul'];
const ORDER = makeOrder({ numero: '20261121-0001', prefix: 'S', people: 3 });
const CLOUD_COLUMNS = [
  'evento_id',
  'ocorrido_em',
  'data_local',
  'acao',
  'modo',
  'codigo',
  'qr_code',
  'numero_pedido',
  'terminal',
  'operador',
  'chave_api',
  'tipo',
  'codigo_nuvem',
  'mensagem_nuvem',
  'em_nuvem',
  'enviado_em',
  'resolvido_em',
  'tentativas',
];
const SITE_COLUMNS = [
  'caixa',
  'outro_evento_id',
  'outro_ocorrido_em',
  'outro_caixa',
  'outro_terminal',
  'outro_operador',
];

let hub: TestHub;
let cloud: FakeCloud;
const boxes: TestBox[] = [];
beforeEach(async () => {
  hub = await startHub({ boxes: BOXES });
  cloud = await startFakeCloud({ clock: createFixedClock(TZ, '2026-11-21T13:00:00.000Z') });
  cloud.addOrders([ORDER]);
});
afterEach(async () => {
  await Promise.all(boxes.splice(0).map((b) => b.close()));
  await hub.close();
  await cloud.close();
});

/** A box's own key on the cloud (sync marks are per key): norte has the cloud's `gate-box`, sul one of its own. */
function cloudOf(name: string, url = cloud.url): SyncSpec {
  const apiKey =
    name === 'norte'
      ? cloud.keys.box
      : createApiKey(cloud.db, {
          tenantId: cloud.tenantId,
          name: `gate-${name}`,
          permissions: ['vouchers:read', 'vouchers:checkin', 'clientes:read'],
          nowIso: '2026-11-21T12:00:00.000Z',
        }).key;
  return {
    url,
    apiKey,
    integrationKey: cloud.keys.integration,
    tenant: 'parque',
    timeoutMs: 5000,
    pullSeconds: 60,
    pushSeconds: 60,
    refreshCron: '0 0 1 1 *',
    fullRefreshCron: '0 0 1 1 *',
    daysAhead: 1,
    tuning: { backoff: { baseMs: 20, maxMs: 200 } },
  };
}

async function siteBox(name: string, cloudSpec = cloudOf(name)) {
  const box = await createTestBox({
    siteLink: siteLinkOf(hub, name, BOXES),
    cloud: cloudSpec,
  });
  boxes.push(box);
  box.importOrders([ORDER]);
  await eventually('site mode', () => box.status.site()?.modo === 'site');
  return box;
}

async function local(box: TestBox, url: string) {
  const res = await box.app.inject({ method: 'GET', url, headers: { 'x-api-key': box.keys.all } });
  return { status: res.statusCode, headers: res.headers, text: res.body, json: () => res.json() };
}

const eventOf = (box: TestBox, terminal: string, action = 'checkin') =>
  box.db.sqlite
    .prepare('select id, occurred_at from events where terminal = ? and action = ? and result = ? order by id')
    .get(terminal, action, 'ok') as { id: number; occurred_at: string };

const person = (box: TestBox, qr: string) =>
  box.db.sqlite.prepare('select checkin_em from people where qr_code = ?').get(qr) as { checkin_em: string | null };

describe('duplo_no_site in the conflicts feed', () => {
  it('a double entry while the hub was away is one duplo_no_site on each box, naming both entries, beside the cloud’s', async () => {
    const [norte, sul] = [await siteBox('norte'), await siteBox('sul')];
    await hub.stop();
    await eventually('local mode', () => norte.status.site()?.modo === 'local' && sul.status.site()?.modo === 'local');
    expect((await checkin(norte, { qr_code: 'S-2', terminal: 'norte-1', operador: 'ana' })).status).toBe(200);
    expect((await checkin(sul, { qr_code: 'S-2', terminal: 'sul-1', operador: 'bia' })).status).toBe(200);
    await hub.restart();
    await eventually(
      'merged',
      () => norte.status.site()?.conflitos === 1 && sul.status.site()?.conflitos === 1,
      30_000,
    );
    // Each box pushes its own entry: norte's first is accepted; sul's is then the cloud's double entry.
    await norte.sync!.pushNow();
    await sul.sync!.pushNow();
    expect(cloud.appliedCounts()).toEqual(new Map([['checkin:S-2', 1]]));

    for (const [box, here, there] of [
      [norte, 'norte', 'sul'],
      [sul, 'sul', 'norte'],
    ] as const) {
      const own = eventOf(box, `${here}-1`);
      const applied = eventOf(box, `${there}-1`);
      const site = await local(box, '/api/local/conflicts?tipo=duplo_no_site');
      expect(site.status).toBe(200);
      expect(site.json().data.total).toBe(1);
      const [c] = site.json().data.conflitos;
      // The row is the entry this box learned of last (the other box's); the other entry is named beside it.
      expect(c).toEqual({
        evento_id: applied.id,
        ocorrido_em: applied.occurred_at,
        data_local: '2026-11-21',
        acao: 'checkin',
        modo: 'qr',
        codigo: 'S-2',
        qr_code: 'S-2',
        numero_pedido: '20261121-0001',
        terminal: `${there}-1`,
        operador: there === 'norte' ? 'ana' : 'bia',
        // The key is the other box's: not known here.
        chave_api: null,
        tipo: 'duplo_no_site',
        codigo_nuvem: null,
        mensagem_nuvem: null,
        em_nuvem: null,
        enviado_em: null,
        resolvido_em: null,
        tentativas: 0,
        caixa: there,
        outro_evento_id: own.id,
        outro_ocorrido_em: own.occurred_at,
        outro_caixa: here,
        outro_terminal: `${here}-1`,
        outro_operador: here === 'norte' ? 'ana' : 'bia',
      });

      const csv = await local(box, '/api/local/conflicts?tipo=duplo_no_site&format=csv');
      expect(csv.headers['content-type']).toMatch(/^text\/csv; charset=utf-8/);
      expect(csv.headers['x-total-count']).toBe('1');
      const lines = csv.text.trimEnd().split('\r\n');
      expect(lines).toHaveLength(2);
      expect(lines[0]).toBe([...CLOUD_COLUMNS, ...SITE_COLUMNS].join(','));
      expect(lines[1]).toMatch(new RegExp(`,duplo_no_site,,,,,,0,${there},${own.id},[^,]+,${here},${here}-1,\\w+$`));
    }

    // norte: its entry was accepted by the cloud; the site's conflict only.
    const atNorte = (await local(norte, '/api/local/conflicts')).json().data;
    expect(atNorte.conflitos.map((c: { tipo: string }) => c.tipo)).toEqual(['duplo_no_site']);
    expect(norte.status.sync()).toMatchObject({ conflictsTotal: 1, conflicts: { duplo_no_site: 1 } });

    // sul: the cloud's conflict (its own entry, as before the site: the same fields, nothing more) and the site's,
    // in event order, one pagination.
    const atSul = (await local(sul, '/api/local/conflicts')).json().data;
    expect(atSul.total).toBe(2);
    expect(atSul.conflitos.map((c: { tipo: string }) => c.tipo)).toEqual(['ja_utilizado_na_nuvem', 'duplo_no_site']);
    const cloudConflict = atSul.conflitos[0];
    expect(Object.keys(cloudConflict)).toEqual(CLOUD_COLUMNS);
    expect(cloudConflict).toMatchObject({ evento_id: eventOf(sul, 'sul-1').id, codigo_nuvem: 'TICKET_ALREADY_USED' });
    const second = (await local(sul, '/api/local/conflicts?limit=1&offset=1')).json().data;
    expect(second).toMatchObject({ total: 2, conflitos: [{ tipo: 'duplo_no_site' }] });
    const onlyCloud = (await local(sul, '/api/local/conflicts?tipo=ja_utilizado_na_nuvem')).json().data;
    expect(onlyCloud.conflitos).toEqual([cloudConflict]);
    const csv = (await local(sul, '/api/local/conflicts?format=csv')).text.trimEnd().split('\r\n');
    expect(csv).toHaveLength(3);
    expect(csv[1]).toMatch(/,ja_utilizado_na_nuvem,TICKET_ALREADY_USED,.*,1,,,,,,$/);
    expect(sul.status.sync()).toMatchObject({
      conflictsTotal: 2,
      conflicts: { duplo_no_site: 1, ja_utilizado_na_nuvem: 1 },
    });
    const metrics = await local(sul, '/metrics');
    expect(metrics.text).toContain('gate_sync_conflicts{tipo="duplo_no_site"} 1');
  });
});

describe('the cloud across the site’s boxes', () => {
  it('each check-in and reversal reaches the cloud exactly once, from the box that made it', async () => {
    const [norte, sul] = [await siteBox('norte'), await siteBox('sul')];
    expect((await checkin(norte, { qr_code: 'S-1', terminal: 'norte-1' })).status).toBe(200);
    await eventually('S-1 at sul', () => person(sul, 'S-1').checkin_em !== null);
    expect((await checkin(sul, { qr_code: 'S-2', terminal: 'sul-1' })).status).toBe(200);
    expect((await reverse(sul, { qr_code: 'S-1', terminal: 'sul-1' })).status).toBe(200);
    await eventually(
      'all at norte',
      () => person(norte, 'S-1').checkin_em === null && person(norte, 'S-2').checkin_em !== null,
    );

    await norte.sync!.pushNow();
    // sul's reversal of norte's check-in goes once norte told the site the cloud settled it.
    await eventually('all at the cloud', async () => {
      await sul.sync!.pushNow();
      return cloud.applied().length === 3;
    });
    // Pushing again sends nothing more, from either box.
    await norte.sync!.pushNow();
    await sul.sync!.pushNow();
    expect(cloud.applied().map((r) => [r.action, r.qr_code, r.terminal, r.key_name])).toEqual([
      ['checkin', 'S-1', 'norte-1', 'gate-box'],
      ['checkin', 'S-2', 'sul-1', 'gate-sul'],
      ['estorno', 'S-1', 'sul-1', 'gate-sul'],
    ]);
    expect(cloud.answers().filter((a) => a.result !== 'ok')).toEqual([]);
    for (const box of [norte, sul]) expect(box.status.sync()).toMatchObject({ waiting: 0, conflictsTotal: 0 });
  });

  it('a reversal at sul of norte’s check-in waits while norte is cut from the cloud, and follows its check-in', async () => {
    // norte reaches the cloud through the proxy the test cuts; sul straight.
    const [norte, sul] = [await siteBox('norte'), await siteBox('sul', cloudOf('sul', cloud.origin))];
    expect((await checkin(norte, { qr_code: 'S-1', terminal: 'norte-1' })).status).toBe(200);
    await eventually('S-1 at sul', () => person(sul, 'S-1').checkin_em !== null);
    expect((await reverse(sul, { qr_code: 'S-1', terminal: 'sul-1' })).status).toBe(200);
    expect((await checkin(sul, { qr_code: 'S-3', terminal: 'sul-1' })).status).toBe(200);
    await eventually('reversal at norte', () => person(norte, 'S-1').checkin_em === null);

    await cloud.proxy.down();
    await expect(norte.sync!.pushNow()).rejects.toThrow();
    await sul.sync!.pushNow();
    // sul's own S-3 goes; the reversal of norte's S-1 waits, still counted as waiting.
    expect(cloud.applied().map((r) => [r.action, r.qr_code])).toEqual([['checkin', 'S-3']]);
    expect(cloud.answers().filter((a) => a.result !== 'ok')).toEqual([]);
    expect(sul.status.sync()).toMatchObject({ waiting: 1 });

    await cloud.proxy.up();
    norte.clock.advance(60_000); // past the failed send's backoff
    await norte.sync!.pushNow();
    // norte tells the site its check-in is settled; sul's reversal then goes.
    await eventually('reversal at the cloud', async () => {
      await sul.sync!.pushNow();
      return cloud.applied().length === 3;
    });
    expect(cloud.applied().map((r) => [r.action, r.qr_code, r.key_name])).toEqual([
      ['checkin', 'S-3', 'gate-sul'],
      ['checkin', 'S-1', 'gate-box'],
      ['estorno', 'S-1', 'gate-sul'],
    ]);
    expect(cloud.answers().filter((a) => a.result !== 'ok')).toEqual([]);
    expect(cloud.person('S-1')!.checkin_em).toBeNull();
    expect(sul.status.sync()).toMatchObject({ waiting: 0, conflictsTotal: 0 });
  });

  it('a reversal at sul of norte’s check-in that the cloud refused is closed unsent, as on one box', async () => {
    const [norte, sul] = [await siteBox('norte'), await siteBox('sul')];
    await cloud.checkinAtCloud('S-2'); // a turnstile of the cloud let S-2 in already
    expect((await checkin(norte, { qr_code: 'S-2', terminal: 'norte-1' })).status).toBe(200);
    await eventually('S-2 at sul', () => person(sul, 'S-2').checkin_em !== null);
    expect((await reverse(sul, { qr_code: 'S-2', terminal: 'sul-1' })).status).toBe(200);
    await norte.sync!.pushNow(); // refused: already used at the cloud
    await eventually('sul told, its reversal closed', async () => {
      await sul.sync!.pushNow();
      return sul.status.sync()!.waiting === 0;
    });
    // The cloud's own entry is not undone by sul's reversal of a check-in it never accepted.
    expect(cloud.applied().filter((r) => r.action === 'estorno')).toEqual([]);
    expect(cloud.person('S-2')!.checkin_em).not.toBeNull();
    const row = sul.db.sqlite
      .prepare(
        "select p.resultado, p.cloud_code from sync_push p join events e on e.id = p.event_id where e.action = 'estorno'",
      )
      .get();
    expect(row).toEqual({ resultado: 'outro', cloud_code: 'CHECKIN_NAO_ACEITO' });
  });
});
