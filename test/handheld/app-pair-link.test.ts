import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startConsoleBox, type ConsoleBox } from '../support/console-browser.js';
import { makeOrder } from '../support/fixtures.js';
import { HANDHELDS, pairingToken, signInSupervisor, type Supervisor } from '../support/handheld.js';
import { appPage, pairInApp, profileDir, startDeviceBrowser, wedge } from '../support/handheld-browser.js';

// A revoked device paired again from the tab that shows it revoked (docs/handheld.md, "Pairing and following
// devices"): the IT lead reads the console's new QR with the handheld, which opens the new #parear= address in the
// same tab. The app takes that code up as a fresh page would.

const BOX_NOW = new Date('2026-11-21T13:00:00.000Z');

let cb: ConsoleBox;
let supervisor: Supervisor;
let device: { browser: Browser; kill(): Promise<void> };

beforeAll(async () => {
  cb = await startConsoleBox({ handheld: HANDHELDS });
  cb.box.importOrders([makeOrder({ numero: '20261121-0001', prefix: 'P', dataUso: '2026-11-21', people: 2 })]);
  supervisor = await signInSupervisor(cb.box);
  device = await startDeviceBrowser(profileDir());
});
afterAll(async () => {
  await device?.browser.close().catch(() => undefined);
  await device?.kill();
  await cb?.close();
});

describe('a new pairing link opened in the tab of a revoked device', () => {
  it('is taken up: the device pairs again under the new code and scans', async () => {
    const context = device.browser.contexts()[0]!;
    const page = await appPage(context, cb.origin, BOX_NOW, `#parear=${await pairingToken(supervisor)}`);
    await pairInApp(page, 'coletor-01');
    const first = cb.box.db.sqlite.prepare('SELECT id FROM handheld_devices').get() as { id: number };
    expect((await supervisor.post(`/api/console/handhelds/${first.id}/revogar`)).statusCode).toBe(200);
    await page.getByText('Aparelho revogado: pareie de novo.').waitFor({ timeout: 30_000 });

    await page.goto(`${cb.origin}/m/#parear=${await pairingToken(supervisor)}`);
    // The code came with the address: the screen asks only for the device's name.
    await page.getByRole('heading', { name: 'Parear aparelho' }).waitFor();
    await expect.poll(() => page.getByLabel('Código de pareamento').count()).toBe(0);
    await page.getByLabel('Nome do aparelho').fill('coletor-02');
    await page.getByRole('button', { name: 'Parear' }).click();
    await page.getByText('Conectado ao box').waitFor();
    expect(new URL(page.url()).hash).toBe('');

    expect(await wedge(page, 'P-1')).toEqual({ resultado: 'ok', noAparelho: false });
    expect((await page.getByTestId('resultado').locator('.big').textContent())?.trim()).toBe('Liberado: 1 pessoa');
    const checkin = cb.box.db.sqlite
      .prepare("SELECT terminal FROM events WHERE qr_code = 'P-1' AND action = 'checkin' AND result = 'ok'")
      .all();
    expect(checkin).toEqual([{ terminal: 'coletor-02' }]);
  });
});
