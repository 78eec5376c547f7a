import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterEach, describe, expect, it } from 'vitest';
import { startConsoleBox, type ConsoleBox } from '../support/console-browser.js';
import { makeOrder } from '../support/fixtures.js';
import { HANDHELDS, pairingToken, signInSupervisor } from '../support/handheld.js';
import { appImage, appPage, pairInApp, profileDir, startDeviceBrowser, wedge } from '../support/handheld-browser.js';
import { screenProblems } from '../support/console-browser.js';

// The handheld app offline, in Chromium against a real box (docs/handheld.md): it never decides on another day's
// data; an order cancelled while it was away is admitted on the device and classified when it uploads; and a device
// killed again and again in the middle of offline bursts loses none of the movements it showed.

const BOX_NOW = new Date('2026-11-21T13:00:00.000Z');
let cb: ConsoleBox | undefined;
let device: { browser: Browser; kill(): Promise<void> } | undefined;
afterEach(async () => {
  await device?.browser.close().catch(() => undefined);
  await device?.kill();
  device = undefined;
  await cb?.close();
  cb = undefined;
});

async function pairedApp(people = 6, beforePairing?: (page: Page) => Promise<void>) {
  cb = await startConsoleBox({ handheld: HANDHELDS });
  cb.box.importOrders([
    makeOrder({ numero: '20261121-0001', prefix: 'A', dataUso: '2026-11-21', people }),
    makeOrder({ numero: '20261121-0002', prefix: 'C', dataUso: '2026-11-21', people: 1 }),
  ]);
  const token = await pairingToken(await signInSupervisor(cb.box));
  const profile = profileDir();
  device = await startDeviceBrowser(profile);
  const context: BrowserContext = device.browser.contexts()[0]!;
  const page = await appPage(context, cb.origin, BOX_NOW, `#parear=${token}`);
  await beforePairing?.(page);
  await pairInApp(page, 'coletor-01');
  return { page, context, profile };
}

const conflicts = async (box: ConsoleBox['box']) =>
  (await box.app.inject({ method: 'GET', url: '/api/local/conflicts', headers: { 'x-api-key': box.keys.all } })).json()
    .data.conflitos as { tipo: string; qr_code: string; terminal: string }[];

describe('offline on the device', () => {
  it("refuses to decide on yesterday's data and says so", async () => {
    const { page } = await pairedApp();
    await cb!.goAway();
    // The next morning, the box still away: the device holds yesterday's day.
    const tomorrow = new Date(BOX_NOW.getTime() + 24 * 3600_000);
    await page.clock.setFixedTime(tomorrow);
    const r = await wedge(page, 'A-1');
    expect(r.resultado).not.toBe('ok');
    await page.getByText('sem dados de hoje: conecte ao box').waitFor();
    await page.getByRole('button', { name: 'Fila (0)' }).waitFor();
  });

  it('admits an order cancelled while it was away, and the box classifies it on upload', async () => {
    const { page } = await pairedApp();
    await cb!.goAway();
    cb!.box.importOrders([
      makeOrder({ numero: '20261121-0002', prefix: 'C', dataUso: '2026-11-21', people: 1, status: 'cancelado' }),
    ]);
    expect(await wedge(page, 'C-1')).toEqual({ resultado: 'ok', noAparelho: true });
    await cb!.comeBack();
    await page.getByRole('button', { name: 'Fila (0)' }).waitFor({ timeout: 30_000 });
    const found = await conflicts(cb!.box);
    expect(found).toEqual([
      expect.objectContaining({ tipo: 'cancelado_no_handheld', qr_code: 'C-1', terminal: 'coletor-01' }),
    ]);
  });
});

describe('the screens', () => {
  it('online, offline and refused results, and the queue, pass the accessibility and touch-target checks', async () => {
    const { page } = await pairedApp(6, async (pairing) => {
      await pairing.setViewportSize({ width: 360, height: 640 });
      await pairing.getByLabel('Nome do aparelho').waitFor();
      expect(await screenProblems(pairing)).toEqual([]);
      await appImage(pairing, 'parear');
    });
    expect(await wedge(page, 'A-1')).toEqual({ resultado: 'ok', noAparelho: false });
    expect(await screenProblems(page)).toEqual([]);
    await appImage(page, 'liberado');
    await cb!.goAway();
    expect(await wedge(page, 'A-2')).toEqual({ resultado: 'ok', noAparelho: true });
    await page.getByText('OFFLINE').waitFor();
    expect(await screenProblems(page)).toEqual([]);
    await appImage(page, 'offline');
    expect((await wedge(page, 'A-1')).resultado).toBe('TICKET_ALREADY_USED');
    expect(await screenProblems(page)).toEqual([]);
    await appImage(page, 'recusado');
    await page.getByRole('button', { name: /^Fila/ }).click();
    expect(await screenProblems(page)).toEqual([]);
    await appImage(page, 'fila');
  });
});

describe('a device killed during offline bursts', () => {
  it('loses no movement it showed, across 20 kills; after the upload the box holds each once', async () => {
    const { page: first, profile } = await pairedApp(120);
    await cb!.goAway();
    await wedge(first, 'A-1');
    const shown = new Set<string>(['A-1']);
    let next = 2;
    for (let round = 0; round < 20; round++) {
      if (round > 0) {
        device = await startDeviceBrowser(profile);
        const page = await appPage(device.browser.contexts()[0]!, cb!.origin, BOX_NOW);
        await page.getByText('OFFLINE').or(page.getByText('Conectado ao box')).first().waitFor();
        for (let i = 0; i < 4; i++) {
          const code = `A-${next++}`;
          const r = await wedge(page, code);
          if (r.resultado === 'ok') shown.add(code);
        }
        // The kill lands while the next reads are being decided and written.
        for (let i = 0; i < 2; i++) {
          await page.keyboard.type(`A-${next++}`);
          void page.keyboard.press('Enter').catch(() => undefined);
        }
      }
      await device!.kill();
    }
    await cb!.comeBack();
    device = await startDeviceBrowser(profile);
    const page = await appPage(device.browser.contexts()[0]!, cb!.origin, BOX_NOW);
    await page.getByRole('button', { name: 'Fila (0)' }).waitFor({ timeout: 60_000 });
    const atBox = cb!.box.db.sqlite
      .prepare("SELECT qr_code, count(*) AS n FROM events WHERE source = 'handheld' AND result = 'ok' GROUP BY qr_code")
      .all() as { qr_code: string; n: number }[];
    const codes = new Set(atBox.map((r) => r.qr_code));
    expect(atBox.filter((r) => r.n > 1)).toEqual([]);
    for (const code of shown) expect(codes.has(code), code).toBe(true);
    // What reached the box is what was shown, plus at most the reads cut by each kill.
    expect(codes.size).toBeGreaterThanOrEqual(shown.size);
    expect(codes.size).toBeLessThanOrEqual(shown.size + 2 * 19);
  });
});
