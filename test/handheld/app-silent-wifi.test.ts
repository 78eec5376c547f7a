import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startConsoleBox, type ConsoleBox } from '../support/console-browser.js';
import { makeOrder } from '../support/fixtures.js';
import { HANDHELDS, pairingToken, signInSupervisor } from '../support/handheld.js';
import { appPage, pairInApp, profileDir, startDeviceBrowser } from '../support/handheld-browser.js';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy.js';

// GATE_HANDHELD_TIMEOUT_MS is a promise to the attendant (docs/handheld.md, "Deciding"): a scan's result is on screen
// within it, the device's own decision included when the box does not answer. Here the Wi-Fi goes silent (no RST:
// bytes just stop) on a handheld-like CPU (Chromium throttled 4×), and every scan is timed inside the page, from
// the imager's Enter to its result painted. This is the product's documented bound, not a speed test: the app aims
// well under it by design.

const BOX_NOW = new Date('2026-11-21T13:00:00.000Z');
const TIMEOUT_MS = HANDHELDS.timeoutMs;
const ORDERS = 100;
const PEOPLE = 5;
/** Scans that waited for the silent box (two per silence: the link goes offline after the second). */
const WAITED = 12;

let cb: ConsoleBox;
let wifi: TcpProxy;
let device: { browser: Browser; kill(): Promise<void> };
let page: Page;

beforeAll(async () => {
  cb = await startConsoleBox({ handheld: HANDHELDS });
  cb.box.importOrders(
    Array.from({ length: ORDERS }, (_, i) =>
      makeOrder({
        numero: `20261121-${String(i).padStart(4, '0')}`,
        prefix: `W${i}`,
        dataUso: '2026-11-21',
        people: PEOPLE,
      }),
    ),
  );
  wifi = await startTcpProxy({ host: '127.0.0.1', port: cb.port });
  device = await startDeviceBrowser(profileDir());
  const context = device.browser.contexts()[0]!;
  const token = await pairingToken(await signInSupervisor(cb.box));
  page = await appPage(context, `http://127.0.0.1:${wifi.port}`, BOX_NOW, `#parear=${token}`);
  await pairInApp(page, 'coletor-01');
  const cdp = await context.newCDPSession(page);
  await cdp.send('Emulation.setCPUThrottlingRate', { rate: 4 });
});
afterAll(async () => {
  await device?.browser.close().catch(() => undefined);
  await device?.kill();
  await wifi?.close();
  await cb?.close();
});

/** The few browser globals the page-side code uses (this file is compiled for Node; types only). */
interface PageGlobals {
  document: {
    body: unknown;
    documentElement: { dataset: Record<string, string | undefined> };
    querySelector(
      s: string,
    ): { textContent: string | null; getAttribute(n: string): string | null; querySelector(s: string): any } | null;
    dispatchEvent(e: unknown): void;
  };
  performance: { now(): number };
  requestAnimationFrame(cb: () => void): void;
  setTimeout(cb: () => void, ms: number): void;
  MutationObserver: new (cb: () => void) => { observe(t: unknown, o: object): void; disconnect(): void };
  KeyboardEvent: new (type: string, init: object) => unknown;
}

/**
 * An imager's read (the code's keys, then Enter, on the document) and the time from that Enter to the frame that
 * paints its result: the result's DOM change, then the next animation frame and the task after it.
 */
const timedScan = (code: string) =>
  page.evaluate((code) => {
    const g = globalThis as unknown as PageGlobals;
    const d = g.document;
    const key = (k: string) => d.dispatchEvent(new g.KeyboardEvent('keydown', { key: k, bubbles: true }));
    for (const k of code) key(k);
    return new Promise<{ ms: number; resultado: string; modo: string; big: string; noAparelho: boolean }>((resolve) => {
      let started = 0;
      const observer = new g.MutationObserver(() => {
        const root = d.querySelector('[data-testid=resultado]');
        if (root?.querySelector('.code')?.textContent !== code) return;
        observer.disconnect();
        g.requestAnimationFrame(() =>
          g.setTimeout(
            () =>
              resolve({
                ms: g.performance.now() - started,
                resultado: root.getAttribute('data-resultado') ?? '',
                modo: d.documentElement.dataset.modo ?? '',
                big: String(root.querySelector('.big')?.textContent ?? ''),
                noAparelho: String(root.textContent).includes('decidido no aparelho'),
              }),
            0,
          ),
        );
      });
      observer.observe(d.body, { subtree: true, childList: true, characterData: true, attributes: true });
      started = g.performance.now();
      key('Enter');
    });
  }, code);

const mode = () =>
  page.evaluate(() => (globalThis as unknown as PageGlobals).document.documentElement.dataset.modo ?? '');

describe('the Wi-Fi silent on a slow handheld', () => {
  it(`paints every scan's result within GATE_HANDHELD_TIMEOUT_MS (${TIMEOUT_MS} ms), the device's decision included`, async () => {
    const waited: number[] = [];
    const local: number[] = [];
    let order = 0;
    while (waited.length < WAITED) {
      wifi.mode('blackhole');
      // While the link is still online, a scan waits for the box; once offline, the device decides at once.
      while ((await mode()) === 'online') {
        const r = await timedScan(`W${order++}-1`);
        expect(r).toMatchObject({ resultado: 'ok', big: 'Liberado: 1 pessoa', noAparelho: true });
        waited.push(r.ms);
      }
      const r = await timedScan(`W${order++}-1`);
      expect(r).toMatchObject({ resultado: 'ok', big: 'Liberado: 1 pessoa', noAparelho: true });
      local.push(r.ms);
      wifi.mode('pass');
      await expect.poll(mode, { timeout: 15_000, interval: 200 }).toBe('online');
    }
    console.log(
      `scans at CPU ×4 with the Wi-Fi silent: waited for the box ${waited.map((ms) => ms.toFixed(0)).join(', ')} ms; decided here at once ${local.map((ms) => ms.toFixed(0)).join(', ')} ms`,
    );
    expect(waited.filter((ms) => ms > TIMEOUT_MS)).toEqual([]);
    expect(local.filter((ms) => ms > TIMEOUT_MS)).toEqual([]);
  });
});
