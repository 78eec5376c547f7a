import crypto from 'node:crypto';
import path from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM_ARGS, signIn } from '../../support/console-browser.js';
import { homeWithNss } from '../../support/nss.js';
import { caOf, siteCaDir, siteTlsBox } from '../../tls/support.js';

// The IT lead's check before installing the park's CA on a handheld (docs/handheld.md, "Installing the CA on a
// handheld"): the /ca page, in clear, names the console screen that shows the fingerprint to compare with. That
// screen exists in the console (over HTTPS at the box's name) and shows the same fingerprint.

const SUPERVISOR = { nome: 'Ana Supervisora', segredo: '482915' };

let dir: string;
let box: Awaited<ReturnType<typeof siteTlsBox>>;
let browser: Browser;
beforeAll(async () => {
  dir = await siteCaDir();
  box = await siteTlsBox(dir, { caPort: 0 });
  await box.addSupervisor(SUPERVISOR.nome, SUPERVISOR.segredo);
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    headless: true,
    args: [...CHROMIUM_ARGS, '--host-resolver-rules=MAP box.lan 127.0.0.1'],
    env: { ...process.env, HOME: homeWithNss(path.join(dir, 'ca.pem')) },
  });
});
afterAll(async () => {
  await browser?.close();
  await box?.close();
});

describe('the /ca page and the console', () => {
  it('names a console screen that exists and shows the same fingerprint', async () => {
    const context = await browser.newContext({ locale: 'pt-BR', timezoneId: 'America/Sao_Paulo' });
    context.setDefaultTimeout(10_000);
    const page = await context.newPage();
    await page.goto(`http://box.lan:${box.caPort!}/ca`);
    const told = (await page.locator('body').innerText()).replace(/\s+/g, ' ');
    const fingerprint = (await page.locator('#impressao').innerText()).trim();
    expect(fingerprint).toBe(new crypto.X509Certificate(caOf(dir)).fingerprint256);
    // What the page tells the IT lead to open: "no console da caixa, tela X" (before: "console da caixa (X)").
    const screen = /console da caixa,? \(?(?:tela )?([\p{L}]+)/u.exec(told)?.[1];
    expect(screen).toBeDefined();

    await page.goto(`https://box.lan:${box.port}/console/`);
    await signIn(page, SUPERVISOR);
    await page.getByRole('navigation', { name: 'Telas' }).getByRole('link', { name: screen!, exact: true }).click();
    const card = page.getByRole('region', { name: 'Certificado da caixa (HTTPS)' });
    await expect.poll(async () => (await card.innerText()).replace(/\s+/g, ' ')).toContain(fingerprint);
    await context.close();
  });
});
