import fs from 'node:fs';
import path from 'node:path';
import qrcode from 'qrcode-generator';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM_ARGS, startConsoleBox, type ConsoleBox } from '../support/console-browser.js';
import { makeOrder } from '../support/fixtures.js';
import { HANDHELDS, pairingToken, signInSupervisor } from '../support/handheld.js';
import { appPage, CHROMIUM, pairInApp } from '../support/handheld-browser.js';
import { waitUntil } from '../support/pty.js';
import { tempDir } from '../support/temp.js';

// A phone without an imager reads with its camera (docs/handheld.md): Chromium's fake camera plays a Y4M video of
// two QR codes; Debian's Chromium has no BarcodeDetector for QR, so the app decodes with the box-served wasm reader
// in a Worker, every host but the box's blocked. Each code read over many frames is one scan.

const BOX_NOW = new Date('2026-11-21T13:00:00.000Z');
const SIZE = 360;
const FPS = 10;

/**
 * A 4:2:0 Y4M video, `seconds` of each code, then white. Chromium's file capture device
 * (media/capture/video/file_video_capture_device.cc) plays Y4M (a `YUV4MPEG2` header, `FRAME` records of the planes)
 * or MJPEG, and loops the file.
 */
function qrVideo(file: string, codes: string[], seconds: number): void {
  const frame = (code: string | null) => {
    const y = Buffer.alloc(SIZE * SIZE, 235);
    if (code) {
      const qr = qrcode(0, 'M');
      qr.addData(code, 'Byte');
      qr.make();
      const n = qr.getModuleCount();
      const cell = Math.floor(SIZE / (n + 8));
      const off = Math.floor((SIZE - cell * n) / 2);
      for (let r = 0; r < n; r++)
        for (let c = 0; c < n; c++)
          if (qr.isDark(r, c))
            for (let dy = 0; dy < cell; dy++)
              y.fill(
                16,
                (off + r * cell + dy) * SIZE + off + c * cell,
                (off + r * cell + dy) * SIZE + off + (c + 1) * cell,
              );
    }
    return Buffer.concat([Buffer.from('FRAME\n'), y, Buffer.alloc((SIZE * SIZE) / 2, 128)]);
  };
  const frames = [...codes.flatMap((c) => Array(seconds * FPS).fill(c)), ...Array(3 * FPS).fill(null)].map(frame);
  fs.writeFileSync(
    file,
    Buffer.concat([Buffer.from(`YUV4MPEG2 W${SIZE} H${SIZE} F${FPS}:1 Ip A1:1 C420jpeg\n`), ...frames]),
  );
}

let cb: ConsoleBox;
let browser: Browser | undefined;
beforeAll(async () => {
  cb = await startConsoleBox({ handheld: HANDHELDS });
  cb.box.importOrders([
    makeOrder({ numero: '20261121-0001', prefix: 'K', dataUso: '2026-11-21', people: 2 }),
    makeOrder({ numero: '20261121-0002', prefix: 'H', dataUso: '2026-11-21', people: 1 }),
  ]);
});
afterEach(async () => {
  await browser?.close();
});
afterAll(async () => {
  await cb?.close();
});

/** Chromium whose fake camera plays `seconds` of each code, then 3 s of white, in a loop. */
async function cameraBrowser(codes: string[], seconds: number): Promise<Browser> {
  const video = path.join(tempDir('gate-camera-'), 'qrs.y4m');
  qrVideo(video, codes, seconds);
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      ...CHROMIUM_ARGS,
      '--use-fake-device-for-media-stream',
      '--use-fake-ui-for-media-stream',
      `--use-file-for-fake-video-capture=${video}`,
    ],
  });
}

const events = () =>
  cb.box.db.sqlite
    .prepare("SELECT code, result, occurred_at FROM events WHERE source = 'handheld' ORDER BY id")
    .all() as { code: string; result: string; occurred_at: string }[];

describe("the phone's camera", () => {
  it('reads the QR codes of the video through the wasm decoder the box serves, with every other host blocked', async () => {
    browser = await cameraBrowser(['K-1', 'K-2'], 2);
    const context = await browser.newContext({
      viewport: { width: 400, height: 800 },
      timezoneId: 'America/Sao_Paulo',
    });
    await context.grantPermissions(['camera'], { origin: cb.origin });
    const elsewhere: string[] = [];
    await context.route(
      (url) => !url.href.startsWith(cb.origin),
      async (route) => {
        elsewhere.push(route.request().url());
        await route.abort();
      },
    );
    const token = await pairingToken(await signInSupervisor(cb.box));
    const page = await appPage(context, cb.origin, BOX_NOW, `#parear=${token}`);
    await pairInApp(page, 'celular-1');
    expect(await page.evaluate(() => 'BarcodeDetector' in globalThis)).toBe(false);
    await page.getByRole('button', { name: 'Ler com a câmera' }).click();
    await waitUntil(() => events().filter((e) => e.result === 'ok').length === 2, 30_000, 'both codes read');
    expect(
      events()
        .filter((e) => e.result === 'ok')
        .map((e) => e.code),
    ).toEqual(['K-1', 'K-2']);
    // Two seconds of frames of each code were one read each: nothing else was scanned meanwhile.
    expect(
      events()
        .slice(0, 2)
        .map((e) => e.code),
    ).toEqual(['K-1', 'K-2']);
    expect(elsewhere).toEqual([]);
    await context.close();
  });

  it('held on one QR for seconds: one scan, the first result stays on screen, the repeats said and ignored', async () => {
    browser = await cameraBrowser(['H-1'], 10);
    const context = await browser.newContext({
      viewport: { width: 400, height: 800 },
      timezoneId: 'America/Sao_Paulo',
    });
    await context.grantPermissions(['camera'], { origin: cb.origin });
    const page = await context.newPage();
    // The device's clock runs (from the box's instant): the repeat window is real time, not a frozen clock.
    await page.clock.install({ time: BOX_NOW });
    await page.goto(`${cb.origin}/m/#parear=${await pairingToken(await signInSupervisor(cb.box, 'Sofia'))}`);
    await pairInApp(page, 'celular-2');
    await page.getByRole('button', { name: 'Ler com a câmera' }).click();
    const screen = page.getByTestId('resultado');
    await expect.poll(() => screen.locator('.code').textContent(), { timeout: 30_000 }).toBe('H-1');

    // Every headline the screen paints from now on, for longer than the 2 s window, the QR still in view.
    await page.evaluate(() => {
      const g = globalThis as any;
      g.painted = [g.document.querySelector('[data-testid=resultado] .big').textContent];
      new g.MutationObserver(() => {
        const now = g.document.querySelector('[data-testid=resultado] .big')?.textContent;
        if (now !== g.painted.at(-1)) g.painted.push(now);
      }).observe(g.document.body, { subtree: true, childList: true, characterData: true });
    });
    await new Promise((r) => setTimeout(r, 5000));
    expect(await page.evaluate(() => (globalThis as any).painted)).toEqual(['Liberado: 1 pessoa']);
    expect(await screen.getAttribute('data-resultado')).toBe('ok');
    expect(await screen.getByText('Leitura repetida de H-1 ignorada.').count()).toBe(1);
    expect(events().filter((e) => e.code === 'H-1')).toEqual([expect.objectContaining({ result: 'ok' })]);
    await page.getByRole('button', { name: 'Fila (0)' }).waitFor();
    await context.close();
  });
});
