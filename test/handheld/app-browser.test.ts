import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM_ARGS, screenProblems, startConsoleBox, type ConsoleBox } from '../support/console-browser.js';
import { makeOrder } from '../support/fixtures.js';
import { pairingQrSvg } from '../../src/handheld/pairing-qr.js';
import { REPEAT_MS } from '../../src/handheld/web/wedge.js';
import { HANDHELDS, pairingToken, signInSupervisor } from '../support/handheld.js';

// The handheld app (src/handheld/web) in Debian's Chromium against a real box serving /m/ over http://127.0.0.1 (a
// secure context for the browser): the shell opens from the service worker with the box away, and a paired device
// scans online, keeps scanning when the box goes away, and uploads its queue once when it comes back.

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
// The test box's fixed clock: 10:00 in São Paulo on 2026-11-21; the page's clock is set to the same instant.
const BOX_NOW = new Date('2026-11-21T13:00:00.000Z');

let browser: Browser;
let cb: ConsoleBox;
let context: BrowserContext;

beforeAll(async () => {
  if (!fs.existsSync(path.join(ROOT, 'dist', 'handheld', 'sw.js')))
    throw new Error('dist/handheld/sw.js is missing: run `npm run build` first');
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    headless: true,
    args: CHROMIUM_ARGS,
  });
});
afterAll(async () => {
  await browser?.close();
});
afterEach(async () => {
  await context?.close();
  await cb?.close();
});

async function open(hash = ''): Promise<Page> {
  context = await browser.newContext({
    viewport: { width: 400, height: 800 },
    locale: 'pt-BR',
    timezoneId: 'America/Sao_Paulo',
  });
  context.setDefaultTimeout(15_000);
  const page = await context.newPage();
  await page.clock.setFixedTime(BOX_NOW);
  await page.goto(`${cb.origin}/m/${hash}`);
  return page;
}

const swReady = (page: Page) =>
  page.evaluate(async () => {
    const reg = await (globalThis as any).navigator.serviceWorker.ready;
    return reg.scope;
  });

describe('the app shell', () => {
  it('loads at /m/, registers its service worker for /m/, and opens again with the box stopped', async () => {
    cb = await startConsoleBox({ handheld: HANDHELDS });
    const sw = await fetch(`${cb.origin}/m/sw.js`);
    expect(sw.headers.get('service-worker-allowed')).toBe('/m/');
    expect(sw.headers.get('cache-control')).toBe('no-cache');
    expect(await (await fetch(`${cb.origin}/m/config.json`)).json()).toEqual({
      timeoutMs: 800,
      nomes: false,
      fusoHorario: 'America/Sao_Paulo',
    });
    for (const url of ['/m', '/m/'])
      expect(await (await fetch(`${cb.origin}${url}`)).text()).toContain('<script type="module" src="/m/app.');

    const page = await open();
    await expect(page.getByRole('heading', { name: 'Parear aparelho' }).waitFor()).resolves.toBeUndefined();
    expect(await screenProblems(page)).toEqual([]);
    expect(await swReady(page)).toBe(`${cb.origin}/m/`);
    // The worker controls the page once it has claimed it; then everything the shell needs is in its cache.
    await page.waitForFunction(() => (globalThis as any).navigator.serviceWorker.controller !== null);

    await cb.goAway();
    await page.reload();
    await page.getByRole('heading', { name: 'Parear aparelho' }).waitFor();
    expect(await page.evaluate(() => (globalThis as any).document.querySelector('link[rel=stylesheet]') !== null)).toBe(
      true,
    );
  });
});

describe("the camera's decoder", () => {
  it('decodes a QR in its Worker with the wasm the box serves, under the page CSP, and asks nothing of other hosts', async () => {
    cb = await startConsoleBox({ handheld: HANDHELDS });
    const page = await open();
    const elsewhere: string[] = [];
    await context.route(
      (url) => !url.href.startsWith(cb.origin),
      async (route) => {
        elsewhere.push(route.request().url());
        await route.abort();
      },
    );
    const svg = pairingQrSvg('20261121-0001');
    const codes = await page.evaluate(async (svg) => {
      const g = globalThis as any;
      const img = new g.Image();
      img.src = `data:image/svg+xml;base64,${btoa(svg)}`;
      await img.decode();
      const canvas = g.document.createElement('canvas');
      canvas.width = 360;
      canvas.height = 360;
      const ctx = canvas.getContext('2d');
      ctx.fillStyle = '#fff';
      ctx.fillRect(0, 0, 360, 360);
      ctx.drawImage(img, 0, 0, 360, 360);
      const frame = ctx.getImageData(0, 0, 360, 360);
      const worker = new g.Worker('/m/decoder.js', { type: 'module' });
      return new Promise<string[]>((resolve) => {
        worker.onmessage = (e: { data: string[] }) => resolve(e.data);
        worker.postMessage(frame);
      });
    }, svg);
    expect(codes).toEqual(['20261121-0001']);
    expect(elsewhere).toEqual([]);
  });
});

const scan = async (page: Page, code: string) => {
  await page.keyboard.type(code);
  await page.keyboard.press('Enter');
};

const person = (qr: string) =>
  cb.box.db.sqlite.prepare('SELECT checkin_em, checkin_dispositivo FROM people WHERE qr_code = ?').get(qr) as {
    checkin_em: string | null;
    checkin_dispositivo: string | null;
  };

/** A box with one order of today (people A-1…A-4), a device paired through the console's QR URL, operator Rita. */
async function pairedDevice() {
  cb = await startConsoleBox({ handheld: HANDHELDS });
  cb.box.importOrders([makeOrder({ numero: '20261121-0001', prefix: 'A', dataUso: '2026-11-21', people: 4 })]);
  const supervisor = await signInSupervisor(cb.box);
  const page = await open(`#parear=${await pairingToken(supervisor)}`);
  await page.getByLabel('Nome do aparelho').fill('coletor-01');
  await page.getByRole('button', { name: 'Parear' }).click();
  await page.getByLabel('Operador').fill('Rita');
  await page.getByRole('button', { name: 'Começar' }).click();
  await page.getByText('Conectado ao box').waitFor();
  return { page, supervisor, result: page.getByTestId('resultado') };
}

describe('a paired device', () => {
  it('scans online, decides on the device with the box away, and uploads the queue once (two tabs open) when it is back', async () => {
    const { page, result } = await pairedDevice();
    const uploads: string[][] = [];
    // Every tab's uploads: the device's queue is one (IndexedDB), and only one tab at a time sends it.
    context.on('request', (r) => {
      if (r.url().endsWith('/api/handheld/movimentos'))
        uploads.push((JSON.parse(r.postData() ?? '{}') as { itens: { id: string }[] }).itens.map((i) => i.id));
    });

    await scan(page, 'A-1');
    await expect.poll(() => result.getAttribute('data-resultado')).toBe('ok');
    expect(await page.getByText('decidido no aparelho').count()).toBe(0);
    expect(person('A-1').checkin_dispositivo).toBe('coletor-01');

    // The box goes away: the device decides, durably, and says so.
    await cb.goAway();
    await scan(page, 'A-2');
    await page.getByText('decidido no aparelho').waitFor();
    expect(await result.getAttribute('data-resultado')).toBe('ok');
    // A-1 again once its first read is older than the repeat window (within it, it is the same read: wedge.ts).
    await new Promise((resolve) => setTimeout(resolve, REPEAT_MS));
    await scan(page, 'A-1');
    await expect.poll(() => result.getAttribute('data-resultado')).toBe('TICKET_ALREADY_USED');
    await page.getByText('OFFLINE').waitFor();
    await scan(page, 'A-3');
    await expect.poll(() => result.getAttribute('data-resultado')).toBe('ok');
    await page.getByRole('button', { name: 'Fila (3)' }).waitFor();
    expect(await screenProblems(page)).toEqual([]);
    expect(person('A-2').checkin_em).toBeNull();
    // A second tab opens from the service worker with the box away, and sees the same queue.
    const second = await context.newPage();
    await second.goto(`${cb.origin}/m/`);
    await second.getByText('OFFLINE').waitFor();
    await second.getByRole('button', { name: 'Fila (3)' }).waitFor();

    // Back: three heartbeats in a row, then the queue goes up once, and the device empties it.
    await cb.comeBack();
    await page.getByText('Conectado ao box').waitFor();
    await page.getByRole('button', { name: 'Fila (0)' }).waitFor();
    await second.getByRole('button', { name: 'Fila (0)' }).waitFor({ timeout: 30_000 });
    expect(person('A-2').checkin_dispositivo).toBe('coletor-01');
    expect(person('A-3').checkin_dispositivo).toBe('coletor-01');
    const ids = uploads.flat();
    expect(ids).toHaveLength(3);
    expect(new Set(ids).size).toBe(3);
    const moves = cb.box.db.sqlite.prepare('SELECT how, result FROM handheld_moves ORDER BY received_at, how').all();
    expect(moves).toEqual(
      expect.arrayContaining([
        { how: 'online', result: 'ok' },
        { how: 'upload', result: 'ok' },
        { how: 'upload', result: 'TICKET_ALREADY_USED' },
      ]),
    );
    expect(moves).toHaveLength(4);
  });

  it('revoked with movements queued: keeps them, asks to pair again, and uploads them under the new key', async () => {
    const { page, supervisor, result } = await pairedDevice();
    await cb.goAway();
    await scan(page, 'A-4');
    await page.getByText('decidido no aparelho').waitFor();
    expect(await result.getAttribute('data-resultado')).toBe('ok');
    const device = cb.box.db.sqlite.prepare('SELECT id FROM handheld_devices').get() as { id: number };
    expect((await supervisor.post(`/api/console/handhelds/${device.id}/revogar`)).statusCode).toBe(200);

    await cb.comeBack();
    await page.getByText('A fila deste aparelho foi mantida').waitFor();
    await page.getByText('APARELHO REVOGADO: pareie de novo · 1 na fila').waitFor();
    expect(person('A-4').checkin_em).toBeNull();

    // The console's QR read again (its whole URL pasted), under a new name: the kept queue goes up with the new key.
    const url = `${cb.origin}/m/#parear=${await pairingToken(supervisor)}`;
    await page.getByLabel('Código de pareamento').fill(url);
    await page.getByLabel('Nome do aparelho').fill('coletor-02');
    await page.getByRole('button', { name: 'Parear' }).click();
    await page.getByRole('button', { name: 'Fila (0)' }).waitFor();
    expect(person('A-4').checkin_dispositivo).toBe('coletor-02');
  });
});
