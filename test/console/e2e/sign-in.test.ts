import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  launchBrowser,
  openConsole,
  screenshots,
  screenProblems,
  signIn,
  startConsoleBox,
  SUPERVISOR,
  trySignIn,
  type ConsoleBox,
} from '../../support/console-browser.js';

// Signing in at the console: name + PIN (+ station), the box's own messages for a wrong PIN and for
// a locked account, and nothing secret kept in the browser.

let browser: Browser;
let cb: ConsoleBox;
let context: BrowserContext;
let page: Page;

beforeAll(async () => {
  browser = await launchBrowser();
  cb = await startConsoleBox();
  await cb.addOperator('Dora Portaria', '556677', 'atendente');
  await cb.addOperator('Eva Bloqueio', '998877', 'atendente');
});
afterAll(async () => {
  await browser?.close();
  await cb?.close();
});
afterEach(async () => {
  await context?.close();
});

const open = async () => ({ context, page } = await openConsole(browser, cb));

describe('sign-in screen', () => {
  it('signs in with name and PIN, keeps only the station name in the browser and the session in an httpOnly cookie', async () => {
    await open();
    expect(await page.getAttribute('html', 'lang')).toBe('pt-BR');
    await page.getByRole('heading', { name: 'Console da portaria' }).waitFor();
    expect(await screenProblems(page)).toEqual([]);
    await screenshots(page, 'entrar');

    await signIn(page, SUPERVISOR, 'bilheteria-2');
    await page.getByText(`${SUPERVISOR.nome} (supervisor) · bilheteria-2`).waitFor();
    await page.getByLabel('Código do ingresso').waitFor();

    const storage: string = await page.evaluate(() => JSON.stringify({ ...(globalThis as any).localStorage }));
    expect(storage).toContain('bilheteria-2');
    expect(storage).not.toContain(SUPERVISOR.segredo);
    const cookies = await context.cookies();
    expect(cookies.map((c) => ({ name: c.name, httpOnly: c.httpOnly }))).toEqual([
      { name: 'gate_console', httpOnly: true },
    ]);
    expect(storage).not.toContain(cookies[0]!.value);
    const csrf: string = await page.evaluate(() =>
      fetch('/api/console/sessao')
        .then((r) => r.json())
        .then((j: any) => j.data.csrf),
    );
    expect(storage).not.toContain(csrf);

    // The session survives a reload (cookie), and signing out returns to the form with the station kept.
    await page.reload();
    await page.getByRole('navigation', { name: 'Telas' }).waitFor();
    await page.getByRole('button', { name: 'Sair' }).click();
    await page.getByRole('button', { name: 'Entrar' }).waitFor();
    expect(await page.getByLabel('Estação').inputValue()).toBe('bilheteria-2');
    expect(await page.getByLabel('PIN ou senha').inputValue()).toBe('');
    const after = await page.evaluate(() => fetch('/api/console/sessao').then((r) => r.status));
    expect(after).toBe(401);
  });

  it("a wrong PIN is refused with the box's message and the form stays ready for another try", async () => {
    await open();
    // This box has two parks: the park field appears once the box says it needs it.
    expect(await page.getByLabel('Parque').count()).toBe(0);
    const answer = await trySignIn(page, { nome: 'Dora Portaria', segredo: '000000' });
    expect(answer.status).toBe(401);
    expect(answer.body.error?.code).toBe('CREDENCIAIS_INVALIDAS');
    const alert = page.locator('#login-error');
    await alert.filter({ hasText: answer.body.error!.message }).waitFor();
    expect(await page.getByLabel('PIN ou senha').inputValue()).toBe('');
    expect(await screenProblems(page)).toEqual([]);
    await screenshots(page, 'entrar-pin-errado');

    expect(await page.getByLabel('Parque').isVisible()).toBe(true);
    const ok = await trySignIn(page, { nome: 'Dora Portaria', segredo: '556677' });
    expect(ok.status).toBe(200);
    await page.getByText('Dora Portaria (atendente)').waitFor();
  });

  it('works with the keyboard alone: labelled fields in order, Enter to sign in, visible focus, and the scan input ready', async () => {
    await open();
    const focused = () => page.evaluate(() => (globalThis as any).document.activeElement?.id as string);
    await page.getByLabel('Operador').waitFor();
    expect(await focused()).toBe('login-nome');
    await page.keyboard.type('Dora Portaria');
    await page.keyboard.press('Tab');
    expect(await focused()).toBe('login-segredo');
    await page.keyboard.type('556677');
    await page.keyboard.press('Tab');
    expect(await focused()).toBe('login-estacao');
    await page.keyboard.type('guiche-3');
    await page.keyboard.press('Enter');
    await page.getByLabel('Parque').waitFor();
    expect(await focused()).toBe('login-tenant');
    await page.keyboard.type('parque');
    await page.keyboard.press('Enter');
    await page.getByText('Dora Portaria (atendente) · guiche-3').waitFor();
    await page.waitForFunction(() => (globalThis as any).document.activeElement?.id === 'scan-input');

    // Tab goes on to the scan's button, with a visible focus ring; then to the screens' links in order.
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => (globalThis as any).document.activeElement?.textContent)).toBe('Registrar');
    const ring = await page.evaluate(() => {
      const g = globalThis as any;
      const style = g.getComputedStyle(g.document.activeElement);
      return { style: style.outlineStyle, width: parseFloat(style.outlineWidth) };
    });
    expect(ring.style).toBe('solid');
    expect(ring.width).toBeGreaterThanOrEqual(3);
    await page.keyboard.press('Shift+Tab');
    expect(await focused()).toBe('scan-input');
    await page.keyboard.press('Shift+Tab');
    expect(await page.evaluate(() => (globalThis as any).document.activeElement?.textContent)).toBe('Sair');
    await page.keyboard.press('Shift+Tab');
    expect(await page.evaluate(() => (globalThis as any).document.activeElement?.textContent)).toBe('Busca');
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => (globalThis as any).document.activeElement?.id === 'search-q');
  });

  it('the fifth wrong PIN in a row locks the account: the lockout message shows, and then even the right PIN is refused', async () => {
    await open();
    for (let i = 1; i <= 4; i++) {
      const answer = await trySignIn(page, { nome: 'Eva Bloqueio', segredo: `12345${i}` });
      expect({ i, code: answer.body.error?.code }).toEqual({ i, code: 'CREDENCIAIS_INVALIDAS' });
    }
    const fifth = await trySignIn(page, { nome: 'Eva Bloqueio', segredo: '123455' });
    expect(fifth.status).toBe(429);
    expect(fifth.body.error?.code).toBe('CONTA_BLOQUEADA');
    expect(fifth.body.error?.details?.bloqueada_ate).toEqual(expect.any(String));
    await page
      .locator('#login-error')
      .filter({ hasText: fifth.body.error!.message })
      .filter({ hasText: 'Tente de novo às' })
      .waitFor();

    const right = await trySignIn(page, { nome: 'Eva Bloqueio', segredo: '998877' });
    expect(right.body.error?.code).toBe('CONTA_BLOQUEADA');
    await page.locator('#login-error').filter({ hasText: right.body.error!.message }).waitFor();
    expect(await page.getByRole('navigation', { name: 'Telas' }).count()).toBe(0);
  });
});
