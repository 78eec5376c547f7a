// bench:handheld's first part (issue 38, point 8): a big day from "Parear" to "ready to scan offline", on a device
// profile on disk (a fresh one each round), beside what the same page takes to download the day and to write the
// same bytes as one IndexedDB record. Playwright's default contexts keep IndexedDB in memory, which hid the cost of
// the device's writes: every round here runs in a persistent profile, as a handheld's browser does.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext, type CDPSession, type Page } from 'playwright-core';

export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

export interface DayRound {
  /** "Parear" clicked → the day stored and indexed (the app's `data-dados` set). */
  readyMs: number;
  /** The app's own GET /api/handheld/dados, request → last byte (Resource Timing). */
  downloadMs: number;
  /** From the download's last byte to ready: parsing, storing, indexing. */
  afterDownloadMs: number;
  /** The same bytes fetched again in the page (fetch + text) and written as one string record, durability strict. */
  bareFetchMs: number;
  bareWriteMs: number;
  bytes: number;
  /** Used JS heap after a forced GC, once ready after pairing and once ready after a reload. */
  heapMb: number;
  /** The page reloaded → ready from what is stored (no download: the day is read back and indexed). */
  reopenMs: number;
  reopenHeapMb: number;
}

export interface Device {
  context: BrowserContext;
  page: Page;
  cdp: CDPSession;
  close(): Promise<void>;
}

/** A device's browser: a persistent profile in a temporary folder, its page throttled `rate`× through CDP. */
export async function openDevice(rate: number, tz: string): Promise<Device> {
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'gate-bench-perfil-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: CHROMIUM_ARGS,
    viewport: { width: 400, height: 800 },
    locale: 'pt-BR',
    timezoneId: tz,
  });
  context.setDefaultTimeout(120_000);
  const page = context.pages()[0] ?? (await context.newPage());
  const cdp = await context.newCDPSession(page);
  await cdp.send('Emulation.setCPUThrottlingRate', { rate });
  return {
    context,
    page,
    cdp,
    async close() {
      await context.close();
      fs.rmSync(profile, { recursive: true, force: true });
    },
  };
}

const heapMb = async (cdp: CDPSession) => {
  await cdp.send('HeapProfiler.collectGarbage');
  const { usedSize } = await cdp.send('Runtime.getHeapUsage');
  return usedSize / 1024 / 1024;
};

/** The page's globals this file reads (it is compiled for Node, without the DOM's types). */
interface PageGlobals {
  document: { documentElement: { dataset: Record<string, string | undefined> } };
  performance: { now(): number };
}

/** Resolves with the page's performance.now() at the first frame where the app says it holds a day. */
const readyAt = async (page: Page) =>
  Number(
    await (
      await page.waitForFunction(
        () => {
          const g = globalThis as unknown as PageGlobals;
          return g.document.documentElement.dataset.dados ? g.performance.now() : 0;
        },
        undefined,
        { timeout: 180_000 },
      )
    ).jsonValue(),
  );

// Page-side code as text, run through CDP (the app's CSP forbids eval in the page).
const DADOS_TIMING = `(() => {
  const e = performance.getEntriesByType('resource').find((r) => r.name.includes('/api/handheld/dados'));
  return e ? { start: e.startTime, end: e.responseEnd } : null;
})()`;

const BARE_WRITE = `(async () => {
  const idb = (req) => new Promise((resolve, reject) => { req.onsuccess = () => resolve(req.result); req.onerror = () => reject(req.error); });
  const app = await idb(indexedDB.open('gate-handheld'));
  const device = await idb(app.transaction('cfg').objectStore('cfg').get('dispositivo'));
  app.close();
  const fetched = performance.now();
  const res = await fetch('/api/handheld/dados', { headers: { 'x-handheld-key': device.chave }, cache: 'no-store' });
  const text = await res.text();
  const bareFetchMs = performance.now() - fetched;
  const open = indexedDB.open('bench-bare', 1);
  open.onupgradeneeded = () => open.result.createObjectStore('b');
  const db = await idb(open);
  const started = performance.now();
  const tx = db.transaction('b', 'readwrite', { durability: 'strict' });
  tx.objectStore('b').put(text, 'dia');
  await new Promise((resolve, reject) => { tx.oncomplete = resolve; tx.onerror = () => reject(tx.error); });
  const bareWriteMs = performance.now() - started;
  db.close();
  await idb(indexedDB.deleteDatabase('bench-bare'));
  return { bareFetchMs, bareWriteMs, bytes: text.length };
})()`;

/** One round on a fresh device: pairing → ready, the reference in the same page, then a reload → ready. */
export async function dayRound(device: Device, origin: string, token: string, name: string): Promise<DayRound> {
  const { page, cdp } = device;
  await page.goto(`${origin}/m/#parear=${token}`);
  await page.getByLabel('Nome do aparelho').fill(name);
  await page.evaluate(`document.addEventListener('click', () => (globalThis.clickedAt ??= performance.now()), true)`);
  await page.getByRole('button', { name: 'Parear' }).click();
  const ready = await readyAt(page);
  const clicked = Number(await page.evaluate('globalThis.clickedAt'));
  const dados = (await page.evaluate(DADOS_TIMING)) as { start: number; end: number } | null;
  if (!dados) throw new Error('the day data request is not in the page’s resource timing');
  const heap = await heapMb(cdp);
  const bare = (await page.evaluate(BARE_WRITE)) as { bareFetchMs: number; bareWriteMs: number; bytes: number };
  await page.reload();
  const reopenMs = await readyAt(page);
  return {
    readyMs: ready - clicked,
    downloadMs: dados.end - dados.start,
    afterDownloadMs: ready - dados.end,
    ...bare,
    heapMb: heap,
    reopenMs,
    reopenHeapMb: await heapMb(cdp),
  };
}

export const median = (values: number[]) => {
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
};

/** "median (min–max)" of one measure over the rounds. */
export function spread(rounds: DayRound[], key: keyof DayRound, unit: 'ms' | 's' | 'MB'): string {
  const v = rounds.map((r) => r[key]);
  const f = (n: number) => (unit === 's' ? (n / 1000).toFixed(2) : n.toFixed(unit === 'MB' ? 1 : 0));
  return `${f(median(v))} ${unit} (${f(Math.min(...v))}–${f(Math.max(...v))})`;
}

/** The rounds' lines, and whether readiness met its targets (≤ 15 s, ≤ 2× the download, medians). */
export function dayReport(rounds: DayRound[]): { lines: string[]; met: boolean } {
  const ready = median(rounds.map((r) => r.readyMs));
  const download = median(rounds.map((r) => r.downloadMs));
  const met = ready <= 15_000 && ready <= 2 * download;
  const mb = (median(rounds.map((r) => r.bytes)) / 1024 / 1024).toFixed(1);
  return {
    met,
    lines: [
      `big day, medians of ${rounds.length} rounds (min–max), each on a fresh profile on disk, ${mb} MB of day data:`,
      `  ${met ? 'met   ' : 'MISSED'}  "Parear" → ready to scan offline: ${spread(rounds, 'readyMs', 's')} ` +
        `(target ≤ 15 s and ≤ 2× the download: ×${(ready / download).toFixed(2)})`,
      `          the app's download (request → last byte): ${spread(rounds, 'downloadMs', 's')}`,
      `          last byte → ready (parse, store, index): ${spread(rounds, 'afterDownloadMs', 's')}`,
      `          reference, same page: the same bytes fetched ${spread(rounds, 'bareFetchMs', 's')}, ` +
        `written as one IndexedDB record ${spread(rounds, 'bareWriteMs', 's')}`,
      `          JS heap after a GC, ready: ${spread(rounds, 'heapMb', 'MB')}; ` +
        `reloaded → ready from storage ${spread(rounds, 'reopenMs', 's')}, heap ${spread(rounds, 'reopenHeapMb', 'MB')}`,
    ],
  };
}
