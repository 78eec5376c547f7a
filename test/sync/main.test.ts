import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/auth/api-keys.js';
import { createClock } from '../../src/clock.js';
import { loadConfig } from '../../src/config.js';
import { migrateToLatest, openDatabase } from '../../src/db/open.js';
import { main, type RunningBox } from '../../src/main.js';
import { ensureTenant } from '../../src/tenants/tenants.repo.js';
import { tempDir, TZ } from '../support/box.js';
import { startFakeCloud, type FakeCloud } from '../support/fake-cloud.js';
import { makeOrder } from '../support/fixtures.js';
import { eventually } from '../support/sync-gate.js';

// The composition root starts the sync worker only when the cloud is configured.
const clock = createClock(TZ);
let cloud: FakeCloud;
beforeAll(async () => {
  cloud = await startFakeCloud({ clock, recordRequests: false });
  cloud.addOrders([makeOrder({ numero: '20261121-0001', prefix: 'MAIN', dataUso: clock.today() })]);
});
afterAll(() => cloud.close());

/** A data dir with tenant `parque` and a local:read key, as `gate keys create` would leave it. */
async function prepare() {
  const dir = tempDir('gate-main-');
  const db = openDatabase(`${dir}/gate.db`);
  await migrateToLatest(db);
  const tenantId = ensureTenant(db, 'parque', clock.nowIso());
  const { key } = createApiKey(db, {
    tenantId,
    name: 'escritorio',
    permissions: ['local:read'],
    nowIso: clock.nowIso(),
  });
  db.close();
  return { dir, key };
}

async function syncState(box: RunningBox, key: string) {
  const res = await fetch(`${box.url}/api/local/sync`, { headers: { 'x-api-key': key } });
  return (
    (await res.json()) as {
      data: { nuvem_configurada: boolean; online: boolean | null; ultimo_pull_ok_em: string | null };
    }
  ).data;
}

describe('main', () => {
  it('with GATE_CLOUD_URL: pulls from the cloud and shows the link; closes cleanly', async () => {
    const { dir, key } = await prepare();
    const env = {
      GATE_DATA_DIR: dir,
      GATE_HOST: '127.0.0.1',
      GATE_PORT: '0',
      GATE_TENANT: 'parque',
      GATE_LOG_LEVEL: 'silent',
      GATE_CLOUD_URL: cloud.url,
      GATE_CLOUD_API_KEY: cloud.keys.box,
      GATE_CLOUD_INTEGRATION_KEY: cloud.keys.integration,
      GATE_SYNC_PULL_SECONDS: '0.2',
    };
    const box = await main(loadConfig(env));
    try {
      await eventually('first pull', async () => (await syncState(box, key)).ultimo_pull_ok_em !== null);
      expect(await syncState(box, key)).toMatchObject({ nuvem_configurada: true, online: true });
      const db = openDatabase(`${dir}/gate.db`);
      expect(db.sqlite.prepare(`select count(*) as n from people where qr_code like 'MAIN-%'`).get()).toEqual({ n: 2 });
      db.close();
    } finally {
      await box.close();
    }
  });

  it('without it: stand-alone, no sync worker', async () => {
    const { dir, key } = await prepare();
    const box = await main(
      loadConfig({
        GATE_DATA_DIR: dir,
        GATE_HOST: '127.0.0.1',
        GATE_PORT: '0',
        GATE_TENANT: 'parque',
        GATE_LOG_LEVEL: 'silent',
      }),
    );
    try {
      expect(await syncState(box, key)).toMatchObject({
        nuvem_configurada: false,
        online: null,
        ultimo_pull_ok_em: null,
      });
    } finally {
      await box.close();
    }
  });
});
