import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HANDHELDS } from '../../support/handheld.js';
import {
  docImage,
  launchBrowser,
  openConsole,
  screenProblems,
  signIn,
  startConsoleBox,
  SUPERVISOR,
  type ConsoleBox,
} from '../../support/console-browser.js';

// The supervisor's handhelds screen in Chromium (docs/handheld.md, "Parear e acompanhar"): the pairing QR carries
// the box's URL with a one-time code a device pairs with; the list shows the device; revoking it asks first.

let browser: Browser;
let cb: ConsoleBox;
let context: BrowserContext;
let page: Page;

beforeAll(async () => {
  browser = await launchBrowser();
  cb = await startConsoleBox({ handheld: HANDHELDS });
  ({ context, page } = await openConsole(browser, cb));
  await signIn(page, SUPERVISOR);
});
afterAll(async () => {
  await context?.close();
  await browser?.close();
  await cb?.close();
});

describe('the handhelds screen', () => {
  it('shows a pairing QR of the address the console was opened at; the paired device is listed; revoking asks first', async () => {
    await page.getByRole('link', { name: 'Handhelds' }).click();
    await page.getByRole('button', { name: 'Parear handheld' }).click();
    const url = (await page.locator('.pairing-url').textContent())!;
    expect(url).toMatch(new RegExp(`^${cb.origin}/m/#parear=[A-Za-z0-9_-]{32}$`));
    expect(await page.locator('.pairing-qr svg').count()).toBe(1);
    await docImage(page, 'handhelds-parear', { fullPage: true });

    const token = url.split('#parear=')[1]!;
    const paired = await fetch(`${cb.origin}/api/handheld/parear`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token, nome: 'coletor-07', versao_app: '1.0.0' }),
    });
    expect(paired.status).toBe(201);
    await page.reload();
    const row = page.locator('[data-aparelho="coletor-07"]');
    await expect.poll(() => row.textContent()).toContain('versão 1.0.0');
    expect(await screenProblems(page)).toEqual([]);
    await docImage(page, 'handhelds');

    await row.getByRole('button', { name: 'Revogar coletor-07' }).click();
    await page
      .getByRole('group', { name: 'Confirmar revogação de coletor-07' })
      .getByRole('button', { name: 'Confirmar' })
      .click();
    await expect.poll(() => row.textContent()).toContain('revogado em');
    const refused = await fetch(`${cb.origin}/api/handheld/dados`, {
      headers: { 'x-handheld-key': ((await paired.json()) as { data: { chave: string } }).data.chave },
    });
    expect(refused.status).toBe(401);
  });
});
