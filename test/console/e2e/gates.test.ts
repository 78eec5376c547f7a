import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { BridgeBoard } from '../../support/bridge-board.js';
import { makeOrder } from '../../support/fixtures.js';
import { startBridgeLaneRig, type BridgeLaneRig } from '../../support/bridge-lane.js';
import { openScannerSim, type ScannerSim } from '../../support/lanes.js';
import type { PtyPair } from '../../support/pty.js';
import {
  docImage,
  launchBrowser,
  openConsole,
  screenshots,
  screenProblems,
  signIn,
  startConsoleBox,
  SUPERVISOR,
  type ConsoleBox,
} from '../../support/console-browser.js';

// The supervisor's gates panel on a real lane: a scanner on a socat pty and the host-built bridge
// firmware as its relay board. What happens at the turnstile shows on the open panel without a reload.

let browser: Browser;
let cb: ConsoleBox;
let context: BrowserContext;
let page: Page;
let rig: BridgeLaneRig;
let scannerPty: PtyPair;
let board: BridgeBoard;
let scanner: ScannerSim;

beforeAll(async () => {
  rig = await startBridgeLaneRig();
  ({ scannerPty, board } = rig);
  [browser, cb] = await Promise.all([launchBrowser(), startConsoleBox({ lanes: rig.lanes })]);
  cb.box.importOrders([makeOrder({ prefix: 'LANE', people: 4 })]);
  scanner = await openScannerSim(scannerPty.device);
  await board.waitFor('online', 1, { timeoutMs: 8000 });
}, 30_000);

afterAll(async () => {
  await browser?.close();
  await scanner?.close();
  await cb?.close();
  await rig?.close();
});
afterEach(async () => {
  await context?.close();
});

const lane = () => page.locator('li.lane[data-pista="entrada-1"]');
const openAlarms = () => page.locator('.alarm-open');

describe('gates panel', () => {
  it('shows a lane scan live, and a tailgating alarm that stays until acknowledged, with who acknowledged it', async () => {
    ({ context, page } = await openConsole(browser, cb, { hash: '#/pistas' }));
    await signIn(page, SUPERVISOR, 'supervisao');
    await page.getByRole('heading', { name: 'Pistas', level: 1 }).waitFor();
    await lane().locator('.pill', { hasText: 'ONLINE' }).waitFor();
    await page.getByText('Nenhum alarme pendente.').waitFor();

    // A visitor scans at the turnstile and walks through: the panel shows it without a reload.
    const since = board.mark();
    await scanner.scan('LANE-1');
    await board.waitFor('grant', undefined, { since });
    await page
      .locator('#recent-title ~ .table-wrap tr', { hasText: 'LANE-1' })
      .filter({ hasText: 'LIBERADO' })
      .waitFor();
    await board.setPassage();
    await lane()
      .getByText(/Último evento: passagem \(LANE-1\)/)
      .waitFor();
    // The simulated sensor stays closed 50 ms (+10 ms debounce) and the board reports no falling
    // edge: a second pulse sent before that would be no new passage.
    await page.waitForTimeout(100);

    // Someone goes through without a grant.
    await board.setPassage();
    const alarm = openAlarms().filter({ hasText: 'Carona' }).filter({ hasText: 'entrada-1' });
    await alarm.waitFor();
    await lane()
      .getByText(/Último evento: carona/)
      .waitFor();
    expect(await screenProblems(page)).toEqual([]);
    await screenshots(page, 'pistas-alarme');
    await docImage(page, 'pistas');

    // It stays until acknowledged: a reload still shows it.
    await page.reload();
    await alarm.waitFor();
    await alarm.getByRole('button', { name: /Reconhecer alarme: Carona/ }).click();
    await page
      .locator('.alarm-done', { hasText: 'Carona' })
      .filter({ hasText: `reconhecido por ${SUPERVISOR.nome}` })
      .waitFor();
    expect(await openAlarms().count()).toBe(0);
    await page.reload();
    await page.locator('.alarm-done', { hasText: `reconhecido por ${SUPERVISOR.nome}` }).waitFor();
    expect(await openAlarms().count()).toBe(0);
  });

  it('a scanner unplugged turns the lane OFFLINE and raises a device alarm on the open panel', async () => {
    ({ context, page } = await openConsole(browser, cb, { hash: '#/pistas' }));
    await signIn(page, SUPERVISOR, 'supervisao');
    await lane().locator('.pill', { hasText: 'ONLINE' }).waitFor();

    await scanner.close();
    await scannerPty.unplug();
    await lane().locator('.pill', { hasText: 'OFFLINE' }).waitFor({ timeout: 10_000 });
    await lane().locator('.devices .bad', { hasText: 'desconectado' }).waitFor();
    const alarm = openAlarms().filter({ hasText: 'Dispositivo desconectado' }).filter({ hasText: 'entrada-1' });
    await alarm.waitFor();
    expect(await screenProblems(page)).toEqual([]);
    await screenshots(page, 'pistas-offline');

    await alarm
      .first()
      .getByRole('button', { name: /Reconhecer/ })
      .click();
    await page
      .locator('.alarm-done', { hasText: 'Dispositivo desconectado' })
      .filter({ hasText: `reconhecido por ${SUPERVISOR.nome}` })
      .waitFor();
    await scannerPty.replug();
  }, 30_000);
});
