import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterEach, describe, expect, it } from 'vitest';
import { startConsoleBox, type ConsoleBox } from '../support/console-browser.js';
import { makeOrder } from '../support/fixtures.js';
import { HANDHELDS, pairingToken, signInSupervisor } from '../support/handheld.js';
import { appPage, pairInApp, profileDir, startDeviceBrowser, wedge } from '../support/handheld-browser.js';

// A big day on the device (docs/handheld.md, "How the device keeps the day"): 5,000 people kept as the box's text in
// a few pieces, not one record per row; after the browser is killed the app starts offline from them and decides as
// before; a whole day's refresh killed in the middle of its write leaves the day before it, whole.

const BOX_NOW = new Date('2026-11-21T13:00:00.000Z');
const ORDERS = 1250;
const PER_ORDER = 4;
const numero = (n: number, day = '20261121') => `${day}-${String(n).padStart(4, '0')}`;

let cb: ConsoleBox | undefined;
let device: { browser: Browser; kill(): Promise<void> } | undefined;
afterEach(async () => {
  await device?.browser.close().catch(() => undefined);
  await device?.kill();
  device = undefined;
  await cb?.close();
  cb = undefined;
});

/** What the device holds in IndexedDB: the day's manifest, its pieces, and the rows kept one record each. */
const stored = (page: Page) =>
  page.evaluate(async () => {
    const g = globalThis as any;
    const req = (r: any) =>
      new Promise<any>((resolve, reject) => {
        r.onsuccess = () => resolve(r.result);
        r.onerror = () => reject(r.error);
      });
    const db = await req(g.indexedDB.open('gate-handheld'));
    const tx = db.transaction(['cfg', 'blocos', 'pessoas', 'pedidos'], 'readonly');
    const count = (s: string) => req(tx.objectStore(s).count());
    const [dia, blocos, pessoas, pedidos] = await Promise.all([
      req(tx.objectStore('cfg').get('dia')),
      count('blocos'),
      count('pessoas'),
      count('pedidos'),
    ]);
    db.close();
    return { dia, blocos, linhas: pessoas + pedidos } as {
      dia: { cursor: string; blocos: number };
      blocos: number;
      linhas: number;
    };
  });

/** A box with ORDERS orders of PER_ORDER people for today (`G<n>-<i>`) and the device paired on it. */
async function pairedOnBigDay() {
  cb = await startConsoleBox({ handheld: HANDHELDS });
  cb.box.importOrders(
    Array.from({ length: ORDERS }, (_, i) =>
      makeOrder({ numero: numero(i + 1), prefix: `G${i + 1}`, dataUso: '2026-11-21', people: PER_ORDER }),
    ),
  );
  // Orders written before the day is read: the device's deltas then bring only what changes after.
  cb.box.clock.advance(60_000);
  const token = await pairingToken(await signInSupervisor(cb.box));
  const profile = profileDir();
  device = await startDeviceBrowser(profile);
  const page = await appPage(device.browser.contexts()[0]!, cb.origin, BOX_NOW, `#parear=${token}`);
  await pairInApp(page, 'coletor-01');
  // The service worker holds the shell: the app opens with the box away.
  await page.waitForFunction(() => (globalThis as any).navigator.serviceWorker.controller !== null);
  return { page, profile };
}

/** The device's browser killed, then started again on its profile; the app open at /m/. */
async function restart(profile: string, before?: (context: BrowserContext) => Promise<void>): Promise<Page> {
  await device!.kill();
  device = await startDeviceBrowser(profile);
  const context = device.browser.contexts()[0]!;
  await before?.(context);
  return appPage(context, cb!.origin, BOX_NOW);
}

const offline = async (page: Page) => page.getByText('OFFLINE').waitFor();

describe('a 5,000-person day on the device', () => {
  it('is kept as pieces of the box’s text, and after the browser is killed decides offline from them', async () => {
    const { page, profile } = await pairedOnBigDay();
    const kept = await stored(page);
    expect(kept.blocos).toBeGreaterThanOrEqual(2);
    expect(kept.dia.blocos).toBe(kept.blocos);
    expect(kept.linhas).toBe(0);

    await cb!.goAway();
    let again = await restart(profile);
    await offline(again);
    expect(await wedge(again, 'G1-1')).toEqual({ resultado: 'ok', noAparelho: true });
    expect(await wedge(again, `G${ORDERS}-${PER_ORDER}`)).toEqual({ resultado: 'ok', noAparelho: true });
    // A group QR: the order's people, found through the index built from the text.
    expect(await wedge(again, numero(700))).toEqual({ resultado: 'ok', noAparelho: true });
    await again.getByText('Liberado: 4 pessoas').waitFor();
    expect((await wedge(again, 'X-1')).resultado).toBe('TICKET_NOT_FOUND');

    // Killed again: the decisions made offline are kept over the day's text, and the queue with them.
    again = await restart(profile);
    await offline(again);
    await again.getByRole('button', { name: 'Fila (4)' }).waitFor();
    expect((await wedge(again, 'G1-1')).resultado).toBe('TICKET_ALREADY_USED');
    expect((await wedge(again, `G${ORDERS}-${PER_ORDER}`)).resultado).toBe('TICKET_ALREADY_USED');
    expect((await wedge(again, 'G700-2')).resultado).toBe('TICKET_ALREADY_USED');
    expect(await wedge(again, 'G2-1')).toEqual({ resultado: 'ok', noAparelho: true });

    await cb!.comeBack();
    await again.getByRole('button', { name: 'Fila (0)' }).waitFor({ timeout: 60_000 });
    const entered = cb!.box.db.sqlite
      .prepare("SELECT qr_code, count(*) AS n FROM events WHERE source = 'handheld' AND result = 'ok' GROUP BY qr_code")
      .all() as { qr_code: string; n: number }[];
    expect(entered.map((e) => e.qr_code).sort()).toEqual(
      ['G1-1', 'G2-1', `G${ORDERS}-${PER_ORDER}`, 'G700-1', 'G700-2', 'G700-3', 'G700-4'].sort(),
    );
    expect(entered.every((e) => e.n === 1)).toBe(true);
  });

  it('keeps the day before a whole refresh killed in the middle of its write, never half of the new one', async () => {
    const { page, profile } = await pairedOnBigDay();
    const before = await stored(page);

    // More than 2,000 orders written since the device's cursor: the box sends the whole day again, new orders in it.
    cb!.box.clock.advance(60_000);
    cb!.box.importOrders(
      Array.from({ length: 2001 }, (_, i) =>
        makeOrder({ numero: numero(i + 1, '20261122'), prefix: `N${i + 1}`, dataUso: '2026-11-21', people: 1 }),
      ),
    );
    cb!.box.clock.advance(60_000);
    let cut!: () => void;
    const cutting = new Promise<void>((resolve) => (cut = resolve));
    await restart(profile, async (context) => {
      context.on('console', (m) => m.text() === 'gate-teste: corte' && cut());
      // The second piece of the new day is where the device dies: its transaction is kept from ever committing (a
      // request after each other), then the browser is killed.
      await context.addInitScript(() => {
        const proto = (globalThis as any).IDBObjectStore.prototype;
        const put = proto.put;
        let pieces = 0;
        proto.put = function (this: { name: string; count(): { onsuccess: unknown } }, ...args: unknown[]) {
          const request = put.apply(this, args);
          if (this.name === 'blocos' && ++pieces === 2) {
            const hold = () => (this.count().onsuccess = hold);
            hold();
            console.log('gate-teste: corte');
          }
          return request;
        };
      });
    });
    await cutting;

    await cb!.goAway();
    let again = await restart(profile);
    await offline(again);
    expect((await stored(again)).dia).toEqual(before.dia);
    // The day before, whole: its first and last people; nothing of the new one.
    expect(await wedge(again, 'G1-1')).toEqual({ resultado: 'ok', noAparelho: true });
    expect(await wedge(again, `G${ORDERS}-${PER_ORDER}`)).toEqual({ resultado: 'ok', noAparelho: true });
    expect((await wedge(again, 'N1-1')).resultado).toBe('TICKET_NOT_FOUND');
    await again.getByText('Ingresso não está nos dados de hoje.').waitFor();

    // Back online, the whole new day is kept, then what the queue's upload changed; away again, the device decides
    // on them.
    await cb!.comeBack();
    await expect.poll(async () => (await stored(again)).dia.cursor, { timeout: 60_000 }).not.toBe(before.dia.cursor);
    await again.getByRole('button', { name: 'Fila (0)' }).waitFor({ timeout: 60_000 });
    await expect.poll(async () => (await stored(again)).linhas, { timeout: 60_000 }).toBeGreaterThan(0);
    await cb!.goAway();
    again = await restart(profile);
    await offline(again);
    expect(await wedge(again, 'N2001-1')).toEqual({ resultado: 'ok', noAparelho: true });
    expect((await wedge(again, 'G1-1')).resultado).toBe('TICKET_ALREADY_USED');
  });
});
