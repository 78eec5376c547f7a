import type { Browser } from 'playwright-core';
import { afterEach, describe, expect, it } from 'vitest';
import { startConsoleBox, type ConsoleBox } from '../support/console-browser.js';
import { startFaultProxy, type FaultProxy } from '../support/fault-proxy.js';
import { makeOrder } from '../support/fixtures.js';
import { HANDHELDS, pairingToken, signInSupervisor } from '../support/handheld.js';
import { appPage, pairInApp, profileDir, startDeviceBrowser, wedge } from '../support/handheld-browser.js';

// A movement the box recorded whose answer the Wi-Fi lost, still in the device's queue when a supervisor revoked the
// device (docs/handheld.md, "Paired again"): paired again under a new key, the device uploads it, and the box
// knows it by its id. Chromium reaches the box through a proxy that stands for the Wi-Fi.

const BOX_NOW = new Date('2026-11-21T13:00:00.000Z');
let cb: ConsoleBox | undefined;
let wifi: FaultProxy | undefined;
let device: { browser: Browser; kill(): Promise<void> } | undefined;
afterEach(async () => {
  await device?.browser.close().catch(() => undefined);
  await device?.kill();
  await wifi?.close();
  await cb?.close();
});

describe('a device paired again with a movement the box already recorded', () => {
  it('uploads it under the new key and the box answers it as received: one check-in, no conflict', async () => {
    cb = await startConsoleBox({ handheld: HANDHELDS });
    cb.box.importOrders([makeOrder({ numero: '20261121-0001', prefix: 'A', dataUso: '2026-11-21', people: 4 })]);
    const supervisor = await signInSupervisor(cb.box);
    wifi = await startFaultProxy(cb.origin);
    device = await startDeviceBrowser(profileDir());
    const page = await appPage(
      device.browser.contexts()[0]!,
      wifi.url,
      BOX_NOW,
      `#parear=${await pairingToken(supervisor)}`,
    );
    await pairInApp(page, 'coletor-01');
    const { sqlite } = cb.box.db;
    const online = () => sqlite.prepare("SELECT count(*) AS n FROM handheld_moves WHERE how = 'online'").get();

    // The scan reaches the box only after the device gave up on it: the box records it, the device decides it too.
    wifi.inject({ match: { method: 'POST', path: /^\/api\/handheld\/checkin$/ }, fault: { kind: 'slow', ms: 1500 } });
    // And no upload gets through before the supervisor revokes the device.
    wifi.inject({ match: { method: 'POST', path: /^\/api\/handheld\/movimentos$/ }, fault: { kind: 'hang' } });
    expect(await wedge(page, 'A-1')).toEqual({ resultado: 'ok', noAparelho: true });
    await expect.poll(online, { timeout: 10_000 }).toEqual({ n: 1 });
    const first = sqlite.prepare('SELECT id FROM handheld_devices').get() as { id: number };
    expect((await supervisor.post(`/api/console/handhelds/${first.id}/revogar`)).statusCode).toBe(200);
    wifi.clear();
    await page.getByText('A fila deste aparelho foi mantida').waitFor({ timeout: 30_000 });
    await page.getByText('APARELHO REVOGADO: pareie de novo · 1 na fila').waitFor();

    await page.getByLabel('Código de pareamento').fill(`${wifi.url}/m/#parear=${await pairingToken(supervisor)}`);
    await page.getByLabel('Nome do aparelho').fill('coletor-02');
    await page.getByRole('button', { name: 'Parear' }).click();
    await page.getByRole('button', { name: 'Fila (0)' }).waitFor({ timeout: 30_000 });
    await page.getByRole('button', { name: 'Fila (0)' }).click();
    expect(await page.getByText('Com erro').count()).toBe(0);

    const events = sqlite
      .prepare("SELECT terminal, result FROM events WHERE qr_code = 'A-1' AND action = 'checkin' ORDER BY id")
      .all();
    expect(events).toEqual([{ terminal: 'coletor-01', result: 'ok' }]);
    const feed = await cb.box.app.inject({
      method: 'GET',
      url: '/api/local/conflicts',
      headers: { 'x-api-key': cb.box.keys.all },
    });
    expect(feed.json().data.conflitos).toEqual([]);
    const uploaded = wifi.requests.filter((r) => r.path === '/api/handheld/movimentos' && r.fault === null);
    expect(uploaded).toHaveLength(1);
  });
});
