import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startConsoleBox, type ConsoleBox } from '../support/console-browser.js';
import { makeOrder } from '../support/fixtures.js';
import { HANDHELDS, pairingToken, signInSupervisor } from '../support/handheld.js';
import { appPage, pairInApp, profileDir, startDeviceBrowser } from '../support/handheld-browser.js';

// Two tabs of the app in one browser profile are one device (docs/handheld.md, "One decision per device"): one
// pairing, one IndexedDB, one queue. The same code scanned in both at once is decided once: one "Liberado", the other
// the refusal in the box's words, one movement, online (the box decides) and offline (the device does).

const BOX_NOW = new Date('2026-11-21T13:00:00.000Z');

let cb: ConsoleBox;
let device: { browser: Browser; kill(): Promise<void> };
let tabs: Page[];

beforeAll(async () => {
  cb = await startConsoleBox({ handheld: HANDHELDS });
  cb.box.importOrders([makeOrder({ numero: '20261121-0001', prefix: 'D', dataUso: '2026-11-21', people: 6 })]);
  device = await startDeviceBrowser(profileDir());
  const context = device.browser.contexts()[0]!;
  const first = await appPage(
    context,
    cb.origin,
    BOX_NOW,
    `#parear=${await pairingToken(await signInSupervisor(cb.box))}`,
  );
  await pairInApp(first, 'coletor-01');
  const second = await context.newPage();
  await second.clock.setFixedTime(BOX_NOW);
  await second.goto(`${cb.origin}/m/`);
  await second.getByText('Conectado ao box').waitFor();
  await second.waitForFunction(() => ((globalThis as any).document.documentElement.dataset.dados ?? '') !== '');
  tabs = [first, second];
});
afterAll(async () => {
  await device?.browser.close().catch(() => undefined);
  await device?.kill();
  await cb?.close();
});

/** The code typed by an imager into each tab in the same instant; what each tab then paints. */
async function scanInBoth(code: string) {
  await Promise.all(
    tabs.map((tab) =>
      tab.evaluate((code) => {
        const d = (globalThis as any).document;
        for (const key of [...code, 'Enter'])
          d.dispatchEvent(new (globalThis as any).KeyboardEvent('keydown', { key, bubbles: true }));
      }, code),
    ),
  );
  return Promise.all(
    tabs.map(async (tab) => {
      const screen = tab.getByTestId('resultado');
      await expect.poll(() => screen.locator('.code').textContent(), { timeout: 10_000 }).toBe(code);
      return {
        headline: (await screen.locator('.big').textContent())?.trim(),
        noAparelho: (await screen.getByText('decidido no aparelho').count()) > 0,
      };
    }),
  );
}

const checkins = (code: string) =>
  cb.box.db.sqlite
    .prepare("SELECT terminal, result FROM events WHERE qr_code = ? AND action = 'checkin' AND result = 'ok'")
    .all(code);

const headlines = (shown: { headline: string | undefined }[]) => shown.map((s) => s.headline).sort();

describe('two tabs of one device', () => {
  it('online: one scan is let in, the other gets the box refusal; one check-in', async () => {
    for (const code of ['D-1', 'D-2']) {
      const shown = await scanInBoth(code);
      expect(headlines(shown)).toEqual(['Ingresso já utilizado.', 'Liberado: 1 pessoa']);
      expect(shown.every((s) => !s.noAparelho)).toBe(true);
      expect(checkins(code)).toEqual([{ terminal: 'coletor-01', result: 'ok' }]);
    }
  });

  it('offline: the device decides once across its tabs; uploaded, one check-in and no double entry', async () => {
    await cb.goAway();
    for (const tab of tabs) await tab.getByText('OFFLINE').first().waitFor({ timeout: 30_000 });
    for (const code of ['D-3', 'D-4', 'D-5']) {
      const shown = await scanInBoth(code);
      expect(headlines(shown)).toEqual(['Ingresso já utilizado.', 'Liberado: 1 pessoa']);
      expect(shown.every((s) => s.noAparelho)).toBe(true);
    }
    await cb.comeBack();
    for (const tab of tabs) await tab.getByRole('button', { name: 'Fila (0)' }).waitFor({ timeout: 30_000 });
    for (const code of ['D-3', 'D-4', 'D-5'])
      expect(checkins(code)).toEqual([{ terminal: 'coletor-01', result: 'ok' }]);
    const feed = await cb.box.app.inject({
      method: 'GET',
      url: '/api/local/conflicts',
      headers: { 'x-api-key': cb.box.keys.all },
    });
    expect(feed.json().data.conflitos).toEqual([]);
  });
});
