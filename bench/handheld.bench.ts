// bench:handheld (issue 24): the handheld app in Debian's Chromium with 4× CPU throttling (a stand-in for a
// handheld; Workers are not throttled), against a real box with a 50,000-person day, reached through a proxy that can
// go silent the way a Wi-Fi link does (no RST: requests just never come back).
//   - a big day downloaded and stored: "Parear" → ready to scan offline, medians of BENCH_ROUNDS rounds on fresh
//     profiles on disk, beside the download and a bare write of the same bytes in the same page (handheld-day.ts;
//     target ≤ 15 s and ≤ 2× the download)
//   - a wedge scan → its result on screen, online (≤ 250 ms p95) and offline (≤ 150 ms p95)
//   - the box unreachable → offline within 2 s, no scan waiting more than 800 ms
//   - 2,000 movements queued offline → uploaded exactly once within 10 s of the link coming back
// The scans and the upload run on the last round's device. Run: npm run bench:handheld (BENCH_ROUNDS, BENCH_QUEUE,
// BENCH_SCANS to change the sizes).
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { createBox } from '../src/box.js';
import { createClock } from '../src/clock.js';
import { createPairing } from '../src/handheld/devices.repo.js';
import { fillDatabase, PEOPLE_PER_ORDER, qrOf } from './fill.js';
import { dayReport, dayRound, openDevice, type DayRound, type Device } from './handheld-day.js';

const TZ = 'America/Sao_Paulo';
const PEOPLE = 50_000;
const SCANS = Number(process.env.BENCH_SCANS ?? 150);
const QUEUE = Number(process.env.BENCH_QUEUE ?? 2000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);

/** A TCP proxy that passes bytes, or goes silent on every connection (old and new), as a dropped Wi-Fi does. */
function silentProxy(target: number) {
  let silent = false;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(target, '127.0.0.1');
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('error', () => undefined);
      s.on('close', () => sockets.delete(s));
    }
    client.on('data', (d) => silent || upstream.write(d));
    upstream.on('data', (d) => silent || client.write(d));
    client.on('end', () => upstream.end());
    upstream.on('end', () => client.end());
  });
  return {
    listen: () =>
      new Promise<number>((resolve) =>
        server.listen(0, '127.0.0.1', () => resolve((server.address() as net.AddressInfo).port)),
      ),
    setSilent(v: boolean) {
      silent = v;
      // Back from silence: the old connections are dead for the app as for a phone; new ones carry on.
      if (!v) for (const s of sockets) s.destroy();
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/** The few browser globals the page-side code uses (this file is compiled for Node; types only, erased). */
interface PageElement {
  getAttribute(name: string): string | null;
  querySelector(selector: string): { textContent: string | null } | null;
}
interface PageGlobals {
  document: {
    documentElement: { dataset: Record<string, string | undefined> };
    body: unknown;
    querySelector(selector: string): PageElement | null;
    dispatchEvent(event: unknown): void;
  };
  performance: { now(): number };
  requestAnimationFrame(callback: () => void): void;
  MutationObserver: new (callback: () => void) => {
    observe(target: unknown, options: object): void;
    disconnect(): void;
  };
  KeyboardEvent: new (type: string, init: object) => unknown;
}

const pct = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;
};
const ms = (n: number) => `${n.toFixed(0)} ms`;

/** Types `code` + Enter as an imager does (keydown on the document) and times until its result is on screen. */
const wedgeScan = (page: Page, code: string) =>
  page.evaluate(async (code) => {
    const g = globalThis as unknown as PageGlobals;
    const d = g.document;
    const shown = () => {
      const root = d.querySelector('[data-testid=resultado]');
      return root?.querySelector('.code')?.textContent === code ? root.getAttribute('data-resultado') : null;
    };
    const started = g.performance.now();
    const done = new Promise<{ ms: number; resultado: string }>((resolve) => {
      const check = () => {
        const r = shown();
        if (r) g.requestAnimationFrame(() => resolve({ ms: g.performance.now() - started, resultado: r }));
        return !!r;
      };
      const observer = new g.MutationObserver(() => check() && observer.disconnect());
      observer.observe(d.body, { subtree: true, childList: true, characterData: true, attributes: true });
    });
    for (const key of [...code, 'Enter']) d.dispatchEvent(new g.KeyboardEvent('keydown', { key, bubbles: true }));
    return done;
  }, code);

async function main() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gate-bench-handheld-'));
  const file = path.join(dir, 'gate.db');
  const clock = createClock(TZ);
  const filled = await fillDatabase(file, clock, PEOPLE / PEOPLE_PER_ORDER);
  const box = createBox({
    database: file,
    clock,
    logger: false,
    tenant: 'bench',
    handheld: { timeoutMs: 800, names: false },
    listen: { host: '127.0.0.1', port: 0 },
  });
  const running = await box.start();
  const proxy = silentProxy(Number(new URL(running.url!).port));
  const origin = `http://127.0.0.1:${await proxy.listen()}`;
  const tenantId = running.tenantId!;
  const newToken = () =>
    running.db.writes.run(() =>
      createPairing(running.db, {
        tenantId,
        by: 'bench',
        nowIso: clock.nowIso(),
        expiresAt: new Date(Date.now() + 600_000).toISOString(),
      }),
    );
  const load = () => os.loadavg()[0]!.toFixed(2);
  let device: Device | undefined;
  try {
    console.log(
      `bench:handheld — ${filled.people} people today, Chromium with 4× CPU throttling, ${os.cpus().length} cores, load ${load()}`,
    );

    // 1. "Parear" → the big day stored on the device, on a fresh profile each round.
    const rounds: DayRound[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      await device?.close();
      device = await openDevice(4, TZ);
      rounds.push(await dayRound(device, origin, await newToken(), `coletor-bench-${i + 1}`));
    }
    const day = dayReport(rounds);
    for (const line of day.lines) console.log(line);
    console.log(`load after the rounds ${load()}`);
    const { page } = device!;
    await page.getByLabel('Operador').fill('Bench');
    await page.getByRole('button', { name: 'Começar' }).click();
    await page.locator('[data-testid=resultado]').waitFor();

    // 2. Online: the box decides.
    let next = 0;
    const online: number[] = [];
    for (let i = 0; i < SCANS; i++) {
      const r = await wedgeScan(page, qrOf(next++));
      if (r.resultado !== 'ok') throw new Error(`online scan refused: ${r.resultado}`);
      online.push(r.ms);
    }

    // 3. The link goes silent while scanning: every scan decided within the timeout; offline soon after.
    proxy.setSilent(true);
    const cut = Date.now();
    const switching: number[] = [];
    let offlineAfterMs = NaN;
    while (Date.now() - cut < 5000) {
      const r = await wedgeScan(page, qrOf(next++));
      switching.push(r.ms);
      if (
        Number.isNaN(offlineAfterMs) &&
        (await page.evaluate(() => (globalThis as unknown as PageGlobals).document.documentElement.dataset.modo)) ===
          'offline'
      )
        offlineAfterMs = Date.now() - cut;
      if (!Number.isNaN(offlineAfterMs)) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }

    // 4. Offline: the device decides on its day data.
    const offline: number[] = [];
    for (let i = 0; i < SCANS; i++) offline.push((await wedgeScan(page, qrOf(next++))).ms);
    // Then on to QUEUE movements in the device's queue (what it decided since the link went silent).
    const inQueue = async () =>
      Number(/Fila \((\d+)\)/.exec((await page.locator('nav.tabs').textContent()) ?? '')?.[1] ?? 0);
    while ((await inQueue()) < QUEUE) for (let i = 0; i < 50; i++) await wedgeScan(page, qrOf(next++));
    const expected = await inQueue();

    // 5. The link comes back: the queue goes up once.
    proxy.setSilent(false);
    const healed = Date.now();
    await page.getByRole('button', { name: 'Fila (0)' }).waitFor({ timeout: 120_000 });
    const uploadMs = Date.now() - healed;
    const uploaded = running.db.sqlite
      .prepare("SELECT count(*) AS n FROM handheld_moves WHERE how = 'upload'")
      .get() as { n: number };
    const events = running.db.sqlite
      .prepare(
        "SELECT count(*) AS n, count(DISTINCT json_extract(details, '$.aparelho.movimento')) AS ids FROM events WHERE source = 'handheld' AND json_extract(details, '$.aparelho.movimento') IS NOT NULL",
      )
      .get() as { n: number; ids: number };

    const rows = [
      [
        `wedge scan → result online, p95 of ${online.length} (p50 ${ms(pct(online, 50))})`,
        ms(pct(online, 95)),
        '≤ 250 ms',
        pct(online, 95) <= 250,
      ],
      [
        `wedge scan → result offline, p95 of ${offline.length} (p50 ${ms(pct(offline, 50))})`,
        ms(pct(offline, 95)),
        '≤ 150 ms',
        pct(offline, 95) <= 150,
      ],
      ['link silent → offline', ms(offlineAfterMs), '≤ 2000 ms', offlineAfterMs <= 2000],
      [
        `slowest scan while switching (${switching.length} scans)`,
        ms(Math.max(...switching)),
        '≤ 800 ms',
        Math.max(...switching) <= 800,
      ],
      [
        `${expected} queued movements uploaded after the link came back`,
        ms(uploadMs),
        '≤ 10000 ms',
        uploadMs <= 10_000,
      ],
      [
        '… recorded once each at the box',
        `${events.n} events, ${events.ids} ids, ${uploaded.n} uploads`,
        `${uploaded.n} each`,
        events.n === events.ids && events.n === uploaded.n,
      ],
    ] as const;
    for (const [what, value, target, met] of rows)
      console.log(`${met ? 'met   ' : 'MISSED'}  ${what}: ${value} (target ${target})`);
    console.log(`load at the end ${load()}`);
  } finally {
    await device?.close();
    await proxy.close();
    await box.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

await main();
