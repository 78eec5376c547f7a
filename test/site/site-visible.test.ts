import { spawn } from 'node:child_process';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildApp, type App } from '../../src/app.js';
import { createApiKey } from '../../src/auth/api-keys.js';
import { createAuth } from '../../src/auth/auth.js';
import { createStorageHealth } from '../../src/db/storage.js';
import { siteAnswerSchema, SITE_REJECT_REASONS } from '../../src/site/site.answers.js';
import { siteRoutes } from '../../src/site/site.start.js';
import { createBoxStatus } from '../../src/status/box-status.js';
import { healthRoutes } from '../../src/status/health.routes.js';
import { createMetrics, metricsRoutes, type Metrics } from '../../src/status/metrics.js';
import { createTestBox, type TestBox } from '../support/box.js';
import { fakeSite, type FakeSite } from '../support/site-info.js';

// What the IT lead sees of the site (issue 23, "Visible"): GET /api/local/site, the gate_site_* metrics and
// readiness, read from the site link's SiteInfo. The link is the lead's; here a SiteInfo made in the test feeds
// the real status, metrics and routes on the real box's database.

let box: TestBox;
let site: FakeSite;
let app: App;
let metrics: Metrics;
let key: { local: string; checkin: string; otherLocal: string };

beforeEach(async () => {
  box = await createTestBox();
  site = fakeSite(box.tenantId);
  const { db, clock } = box;
  const auth = createAuth({ db, clock });
  const status = createBoxStatus({ db, storage: createStorageHealth({ sqlite: db.sqlite }), site });
  metrics = createMetrics({ db, clock, status, site });
  app = await buildApp({
    logger: false,
    local: [siteRoutes({ auth, site }), healthRoutes({ db, clock, status }), metricsRoutes({ metrics, auth })],
  });
  const make = (permissions: string[], name: string, tenantId = box.tenantId) =>
    createApiKey(db, { tenantId, name, permissions, nowIso: clock.nowIso() }).key;
  key = {
    local: make(['local:read'], 'central'),
    checkin: make(['vouchers:checkin'], 'catraca-9'),
    otherLocal: make(['local:read'], 'central-outro', box.otherTenantId),
  };
});
afterEach(async () => {
  metrics?.stop();
  await app?.close();
  await box?.close();
});

const getSite = async (apiKey?: string) => {
  const res = await app.inject({
    method: 'GET',
    url: '/api/local/site',
    headers: apiKey ? { 'x-api-key': apiKey } : {},
  });
  return { status: res.statusCode, body: res.json() };
};
const ready = async () => {
  const res = await app.inject({ method: 'GET', url: '/health/ready' });
  return { status: res.statusCode, body: res.json() };
};
const scrape = async () => (await app.inject({ method: 'GET', url: '/metrics', remoteAddress: '127.0.0.1' })).body;
const value = (text: string, series: string) =>
  Number(new RegExp(`^${series.replace(/[{}"()|.+]/g, '\\$&')} (\\S+)$`, 'm').exec(text)?.[1]);

describe('GET /api/local/site', () => {
  it("answers the link's view to a local:read key, hub addresses without the box's password", async () => {
    site.set({ rejeitadas: { esquema: 2 } as never, decisoes_sem_site_hoje: 4, conflitos: 1 });
    const res = await getSite(key.local);
    expect(res.status).toBe(200);
    expect(siteAnswerSchema.safeParse(res.body).success).toBe(true);
    const d = res.body.data;
    expect([d.modo, d.caixa, d.atraso, d.decisoes_sem_site_hoje, d.conflitos]).toEqual(['site', 'norte', 3, 4, 1]);
    expect(d.hub.urls).toEqual(['nats://10.0.0.5:4222']);
    expect(JSON.stringify(res.body)).not.toContain('s3nha');
    // However the address was written: with a scheme or without, TLS, a token only, no credentials.
    site.set({
      hub: {
        urls: [
          'tls://gate-norte:s3nha@hub.lan:4222',
          'gate-norte:s3nha@10.0.0.6:4222',
          's3nha@hub2.lan',
          'hub3.lan:4222',
        ],
        conectado: true,
        replicas: 3,
      },
    });
    const urls = (await getSite(key.local)).body.data.hub.urls;
    expect(urls).toEqual(['tls://hub.lan:4222', '10.0.0.6:4222', 'hub2.lan', 'hub3.lan:4222']);
    // Every reason, 0 included, whatever the link left out.
    expect(Object.keys(d.rejeitadas).sort()).toEqual([...SITE_REJECT_REASONS].sort());
    expect(d.rejeitadas.esquema).toBe(2);
    expect(d.caixas.map((c: { caixa: string; esta_caixa: boolean }) => [c.caixa, c.esta_caixa])).toEqual([
      ['norte', true],
      ['sul', false],
      ['leste', false],
    ]);
  });

  it('refuses without a key or without local:read, as /api/local/sync', async () => {
    expect(await getSite()).toMatchObject({
      status: 401,
      body: { success: false, error: { code: 'MISSING_API_KEY' } },
    });
    expect(await getSite('nao-existe')).toMatchObject({ status: 401, body: { error: { code: 'INVALID_API_KEY' } } });
    expect(await getSite(key.checkin)).toMatchObject({ status: 403, body: { error: { code: 'PERMISSION_DENIED' } } });
  });

  it('a key of a tenant the site does not share sees no site: desligado, zeros', async () => {
    const res = await getSite(key.otherLocal);
    expect(res.status).toBe(200);
    expect(siteAnswerSchema.safeParse(res.body).success).toBe(true);
    expect(res.body.data).toMatchObject({ modo: 'desligado', caixa: null, caixas: [], pendentes: 0 });
  });

  it('on a single box (the real box, no GATE_SITE_NATS_URLS): 200, desligado, empty lists and zeros', async () => {
    const res = await box.app.inject({ method: 'GET', url: '/api/local/site', headers: { 'x-api-key': key.local } });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(siteAnswerSchema.safeParse(body).success).toBe(true);
    expect(body.data).toMatchObject({
      modo: 'desligado',
      motivo: null,
      desde: null,
      caixa: null,
      hub: { urls: [], conectado: false, replicas: 0 },
      sequencia_aplicada: 0,
      atraso: 0,
      pendentes: 0,
      estacionadas: 0,
      decisoes_sem_site_hoje: 0,
      conflitos: 0,
      chave_nuvem_repetida: [],
      caixas: [],
    });
    expect(Object.values(body.data.rejeitadas)).toEqual(SITE_REJECT_REASONS.map(() => 0));
    expect((await box.app.inject({ method: 'GET', url: '/api/local/site' })).statusCode).toBe(401);
  });
});

describe('readiness', () => {
  it('with the site answering: ready, part site ok', async () => {
    expect(await ready()).toMatchObject({
      status: 200,
      body: { data: { partes: { site: { ok: true, modo: 'site' } } } },
    });
    expect((await ready()).body.data.avisos).toBeUndefined();
  });

  it('local mode keeps the box ready (a box deciding alone still lets people in) and shows as an aviso', async () => {
    site.set({ modo: 'local', motivo: 'hub_inalcancavel', desde: '2026-11-21T12:41:10.000Z', pendentes: 37 });
    const res = await ready();
    expect(res.status).toBe(200);
    expect(res.body.data.partes.site).toMatchObject({ ok: false, modo: 'local' });
    expect(res.body.data.avisos).toEqual([
      'site: Modo local: esta caixa decide sem as outras entradas (o hub não responde) desde 2026-11-21T12:41:10.000Z; 37 movimento(s) a publicar',
    ]);
  });

  it('another box on this box’s cloud key: not ready, naming the other boxes; ready again once it is gone', async () => {
    site.set({ chave_nuvem_repetida: ['sul', 'leste'] });
    const res = await ready();
    expect(res.status).toBe(503);
    expect(res.body.error.code).toBe('SERVICE_UNAVAILABLE');
    expect(res.body.error.details.partes.site).toMatchObject({ ok: false, chave_nuvem_repetida: ['sul', 'leste'] });
    expect(res.body.error.message).toMatch(
      /^Caixa não está pronta: site: a chave da nuvem desta caixa é a mesma que as caixas sul, leste anunciam no site/,
    );
    // Local mode does not hide the alarm.
    site.set({ modo: 'local', motivo: 'conectando' });
    expect((await ready()).status).toBe(503);
    site.set({ chave_nuvem_repetida: [], modo: 'site', motivo: null });
    expect((await ready()).status).toBe(200);
  });

  it('a single box has no part site', async () => {
    const res = await box.app.inject({ method: 'GET', url: '/health/ready' });
    expect(res.statusCode).toBe(200);
    expect(res.json().data.partes.site).toBeUndefined();
  });
});

/** Runs `promtool check metrics` on a scrape: its exit code and what it printed. */
function promtool(text: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('promtool', ['check', 'metrics'], { stdio: ['pipe', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (c) => (output += c));
    child.stderr.on('data', (c) => (output += c));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output }));
    child.stdin.end(text);
  });
}

describe('metrics', () => {
  it('the mode, lag, backlog, parked, conflicts, rejections by reason and claim times; promtool accepts them', async () => {
    site.set({ pendentes: 5, estacionadas: 2, conflitos: 1, rejeitadas: { nao_json: 3 } as never });
    site.claimed(1.5, 3, 180);
    let text = await scrape();
    expect(value(text, 'gate_site_mode{modo="site"}')).toBe(1);
    expect(value(text, 'gate_site_mode{modo="local"}')).toBe(0);
    expect(value(text, 'gate_site_mode{modo="desligado"}')).toBe(0);
    expect(value(text, 'gate_site_apply_lag')).toBe(3);
    expect(value(text, 'gate_site_backlog')).toBe(5);
    expect(value(text, 'gate_site_parked')).toBe(2);
    expect(value(text, 'gate_site_conflicts')).toBe(1);
    expect(value(text, 'gate_site_cloud_key_shared')).toBe(0);
    for (const motivo of SITE_REJECT_REASONS)
      expect(value(text, `gate_site_rejected_total{motivo="${motivo}"}`)).toBe(motivo === 'nao_json' ? 3 : 0);
    expect(value(text, 'gate_site_claim_seconds_count')).toBe(3);
    expect(value(text, 'gate_site_claim_seconds_bucket{le="0.002"}')).toBe(1);
    expect(value(text, 'gate_site_claim_seconds_bucket{le="0.15"}')).toBe(2);
    expect(await promtool(text)).toEqual({ code: 0, output: '' });

    // Read at scrape time: the next scrape says the link's new state; claim times are counted once.
    site.set({ modo: 'local', motivo: 'falhas_seguidas', pendentes: 9 });
    site.claimed(2);
    text = await scrape();
    expect(value(text, 'gate_site_mode{modo="local"}')).toBe(1);
    expect(value(text, 'gate_site_mode{modo="site"}')).toBe(0);
    expect(value(text, 'gate_site_backlog')).toBe(9);
    expect(value(text, 'gate_site_claim_seconds_count')).toBe(4);
    expect(await promtool(text)).toEqual({ code: 0, output: '' });
  });

  it('a single box has no gate_site_* series', async () => {
    const text = (await box.app.inject({ method: 'GET', url: '/metrics', remoteAddress: '127.0.0.1' })).body;
    expect(text).toContain('gate_scans_total');
    expect(text).not.toContain('gate_site_');
  });
});
