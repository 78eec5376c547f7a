import { afterAll, beforeAll, expect, it } from 'vitest';
import { createFixedClock } from '../../src/clock.js';
import type { SiteConfig } from '../../src/site-config.js';
import { siteAnswerSchema } from '../../src/site/site.answers.js';
import { bootBox, createTestBox, TZ, UNREACHABLE_CLOUD, type TestBox } from '../support/box.js';
import { startFakeCloud, type FakeCloud } from '../support/fake-cloud.js';
import { siteLinkOf, startHub, type TestHub } from '../support/site-hub.js';
import { eventually } from '../support/sync-gate.js';

// What the IT lead sees of a real site (issue 23, "Visible"): two real boxes on a real hub (Debian's nats-server),
// read through GET /api/local/site, /metrics and /health/ready. Both boxes pull with one cloud key here, each
// reaching the cloud by another address (its IP, its name with a trailing slash): the alarm makes both not ready,
// naming the other.

const BOXES = ['norte', 'sul'];
let hub: TestHub;
let cloud: FakeCloud;
const seeds: TestBox[] = [];
const boxes: Record<string, Awaited<ReturnType<typeof bootBox>>> = {};
const keys: Record<string, string> = {};

const siteOf = (box: string): SiteConfig => siteLinkOf(hub, box, BOXES);

beforeAll(async () => {
  hub = await startHub({ boxes: BOXES });
  cloud = await startFakeCloud({ clock: createFixedClock(TZ, '2026-11-21T13:00:00.000Z') });
  const { port } = new URL(cloud.url);
  // One cloud, two addresses: what the cloud knows the boxes by is the key.
  const urls: Record<string, string> = { norte: `http://127.0.0.1:${port}`, sul: `http://localhost:${port}/` };
  for (const name of BOXES) {
    const seed = await createTestBox();
    await seed.app.close();
    seeds.push(seed);
    keys[name] = seed.keys.all;
    // The same cloud key on both boxes (their sync never runs here: only the key's fingerprint matters).
    boxes[name] = await bootBox({
      db: seed.db,
      clock: seed.clock,
      logger: false,
      tenant: 'parque',
      cloud: { ...UNREACHABLE_CLOUD, url: urls[name]!, apiKey: cloud.keys.box, integrationKey: cloud.keys.integration },
      syncSchedules: false,
      siteLink: siteOf(name),
    });
  }
}, 60_000);
afterAll(async () => {
  for (const b of Object.values(boxes)) await b.close();
  for (const s of seeds) await s.close();
  await cloud?.close();
  await hub?.close();
});

const site = async (name: string) =>
  (
    await boxes[name]!.app.inject({ method: 'GET', url: '/api/local/site', headers: { 'x-api-key': keys[name]! } })
  ).json();

it('each box sees the site, the other box and the cloud-key alarm; both are not ready, naming the other', async () => {
  await eventually('norte sees sul on the hub', async () => {
    const d = (await site('norte')).data;
    return (
      d.modo === 'site' &&
      d.caixas.some((c: { caixa: string; visto_em: string | null }) => c.caixa === 'sul' && c.visto_em)
    );
  });
  const answer = await site('norte');
  expect(siteAnswerSchema.safeParse(answer).success).toBe(true);
  expect(answer.data).toMatchObject({ modo: 'site', caixa: 'norte', hub: { urls: [hub.url], conectado: true } });
  expect(answer.data.caixas.map((c: { caixa: string; esta_caixa: boolean }) => [c.caixa, c.esta_caixa])).toEqual([
    ['norte', true],
    ['sul', false],
  ]);

  await eventually('the alarm on both boxes', async () =>
    (await Promise.all(BOXES.map(site))).every((a) => a.data.chave_nuvem_repetida.length > 0),
  );
  for (const [name, other] of [
    ['norte', 'sul'],
    ['sul', 'norte'],
  ] as const) {
    const ready = await boxes[name]!.app.inject({ method: 'GET', url: '/health/ready' });
    expect(ready.statusCode).toBe(503);
    expect(ready.json().error.details.partes.site.chave_nuvem_repetida).toEqual([other]);
    expect(ready.json().error.message).toContain(`a caixa ${other} anuncia`);
  }
  const metrics = (await boxes.norte!.app.inject({ method: 'GET', url: '/metrics', remoteAddress: '127.0.0.1' })).body;
  expect(metrics).toMatch(/^gate_site_mode\{modo="site"\} 1$/m);
  expect(metrics).toMatch(/^gate_site_cloud_key_shared 1$/m);
});

it('with the hub gone the box decides alone: local mode in the answer, the metrics and the readiness avisos', async () => {
  await hub.stop();
  await eventually('norte in local mode', async () => (await site('norte')).data.modo === 'local');
  const d = (await site('norte')).data;
  expect(d.motivo).not.toBeNull();
  expect(d.hub.conectado).toBe(false);
  const metrics = (await boxes.norte!.app.inject({ method: 'GET', url: '/metrics', remoteAddress: '127.0.0.1' })).body;
  expect(metrics).toMatch(/^gate_site_mode\{modo="local"\} 1$/m);
});
