import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  apiFromPage,
  ATTENDANT,
  docImage,
  launchBrowser,
  openConsole,
  screenProblems,
  screenshots,
  signIn,
  startConsoleBox,
  SUPERVISOR,
} from '../../support/console-browser.js';
import { siteLinkOf, startHub } from '../../support/site-hub.js';
import { startSiteConsoleBox } from '../../support/site-console.js';
import { eventually } from '../../support/sync-gate.js';

// The site in the console (issue 23, "Visible"): every operator sees a banner while the box decides without the
// other entrances; the supervisor has the site's panel (boxes, lag, conflicts, rejected messages, the cloud-key
// alarm). The box's status reads a SiteInfo the test sets (test/support/site-console.ts).

let browser: Browser;
let cb: Awaited<ReturnType<typeof startSiteConsoleBox>>;
let context: BrowserContext;
let page: Page;

beforeAll(async () => {
  browser = await launchBrowser();
  cb = await startSiteConsoleBox();
});
afterAll(async () => {
  await browser?.close();
  await cb?.close();
});
afterEach(async () => {
  await context?.close();
  cb.site.set({ modo: 'site', motivo: null, pendentes: 0, chave_nuvem_repetida: [] });
});

const banner = () => page.getByRole('alert').filter({ hasText: 'Modo local' });

describe('the site in the console', () => {
  it('an attendant sees the local-mode banner appear and go live, with why, since when and what waits', async () => {
    ({ context, page } = await openConsole(browser, cb, { hash: '#/leitura' }));
    await signIn(page, ATTENDANT);
    await page.getByLabel('Código do ingresso').waitFor();
    expect(await banner().count()).toBe(0);
    // No site screen for an attendant.
    expect(await page.getByRole('navigation', { name: 'Telas' }).getByRole('link', { name: 'Site' }).count()).toBe(0);

    cb.site.set({ modo: 'local', motivo: 'hub_inalcancavel', desde: '2026-11-21T12:41:10.000Z', pendentes: 37 });
    await banner().waitFor();
    const text = await banner().textContent();
    expect(text).toContain('Modo local: esta caixa decide sem as outras entradas');
    expect(text).toContain('O hub não responde');
    expect(text).toContain('21/11 09:41');
    expect(text).toContain('37 movimentos a publicar');
    expect(await screenProblems(page)).toEqual([]);
    await screenshots(page, 'site-banner');
    await docImage(page, 'site-modo-local');

    cb.site.set({ modo: 'site', motivo: null, pendentes: 0 });
    await banner().waitFor({ state: 'detached' });

    // The panel is the supervisor's: the box refuses it to an attendant.
    const refused = await apiFromPage(page, 'GET', '/api/console/site');
    expect([refused.status, refused.json.error.code]).toEqual([403, 'PAPEL_INSUFICIENTE']);
  });

  it("the supervisor's site panel: boxes, lag, decisions without the site, conflicts, rejections, the cloud-key alarm", async () => {
    cb.site.set({
      decisoes_sem_site_hoje: 14,
      conflitos: 2,
      rejeitadas: { esquema: 3, origem_forjada: 1 } as never,
    });
    ({ context, page } = await openConsole(browser, cb, { hash: '#/leitura' }));
    await signIn(page, SUPERVISOR, 'supervisao');
    await page.getByRole('navigation', { name: 'Telas' }).getByRole('link', { name: 'Site' }).click();
    await page.getByRole('heading', { name: 'Site', exact: true }).waitFor();
    await page.locator('.sync-state', { hasText: 'NO SITE' }).waitFor();

    const rows = page.locator('table tbody tr');
    await rows.nth(2).waitFor();
    expect(await rows.allTextContents()).toEqual([
      expect.stringMatching(/^norte \(esta caixa\).*1\.23\.0.*120.*3.*0$/),
      expect.stringMatching(/^sul.*1\.22\.1.*123.*0.*2$/),
      expect.stringMatching(/^leste.*nunca.*—/),
    ]);
    const stat = (label: string) =>
      page
        .locator('.stats div')
        .filter({ has: page.locator('dt').getByText(label, { exact: true }) })
        .locator('dd');
    expect(await stat('Decisões sem o site hoje').textContent()).toBe('14');
    expect(await stat('Conflitos no site').textContent()).toBe('2');
    expect(await stat('Hub').textContent()).toBe('10.0.0.5:4222 (conectado)');
    expect(await page.locator('.rejected li').allTextContents()).toEqual(['campos inválidos: 3', 'origem forjada: 1']);
    // The hub's URL carries the box's password in the link's settings: never in the page.
    expect(await page.content()).not.toContain('s3nha');
    expect(JSON.stringify((await apiFromPage(page, 'GET', '/api/console/site')).json)).not.toContain('gate-norte');
    expect(await screenProblems(page)).toEqual([]);
    await screenshots(page, 'site');

    // Live: another box announces this box's cloud key, and the box goes to local mode.
    cb.site.set({ chave_nuvem_repetida: ['sul'], modo: 'local', motivo: 'falhas_seguidas', pendentes: 1 });
    const alarm = page.locator('.alarm-open', { hasText: 'Chave da nuvem repetida' });
    await alarm.waitFor();
    expect(await alarm.textContent()).toContain('A chave da nuvem desta caixa é a mesma que a caixa sul anuncia');
    await page.locator('.sync-state', { hasText: 'MODO LOCAL' }).waitFor();
    expect(await banner().textContent()).toContain('1 movimento a publicar');
    expect(await screenProblems(page)).toEqual([]);
    await screenshots(page, 'site-alarme');
    await docImage(page, 'site', { fullPage: true });
  });

  it('at 320 and 360 px (handhelds) the banner and the Site screen fit, long box names included', async () => {
    const long = 'caixaportaonorteestacionamentoprincipal1';
    const view = cb.site.view();
    cb.site.set({
      modo: 'local',
      motivo: 'publicando_pendentes',
      pendentes: 12_345,
      chave_nuvem_repetida: [long],
      caixas: [...view.caixas, { ...view.caixas[1]!, caixa: long }],
    });
    ({ context, page } = await openConsole(browser, cb, { hash: '#/site' }));
    await signIn(page, SUPERVISOR, 'supervisao');
    await page.locator('.alarm-open', { hasText: long }).waitFor();
    await page.locator('table tbody tr', { hasText: long }).waitFor();
    await banner().waitFor();
    for (const width of [320, 360]) {
      await page.setViewportSize({ width, height: 740 });
      const sideways = await page.evaluate(() => {
        const doc = (globalThis as any).document;
        const w = doc.documentElement.clientWidth;
        const out = [...doc.body.querySelectorAll('*')].filter((el: any) => {
          const r = el.getBoundingClientRect();
          return !el.closest('.visually-hidden, .skip') && r.width > 0 && r.right > w + 0.5;
        });
        return [doc.documentElement.scrollWidth - w, out.map((el: any) => el.tagName).join(',')];
      });
      expect(sideways, `${width} px`).toEqual([0, '']);
    }
    cb.site.set({ caixas: view.caixas });
  });
});

describe('through a real box on a real hub', () => {
  it('the banner appears when the hub goes away and leaves once the box is back on the site', async () => {
    const hub = await startHub({ boxes: ['norte', 'sul'] });
    const real = await startConsoleBox({
      siteLink: siteLinkOf(hub, 'norte'),
    });
    try {
      await eventually('on the site', () => real.box.status.site()?.modo === 'site');
      ({ context, page } = await openConsole(browser, real, { hash: '#/leitura' }));
      await signIn(page, ATTENDANT);
      await page.getByLabel('Código do ingresso').waitFor();
      expect(await banner().count()).toBe(0);

      // The link notices a silent hub within seconds; a loaded machine gets more patience.
      await hub.stop();
      await banner().waitFor({ timeout: 30_000 });
      expect(await banner().textContent()).toContain('Modo local: esta caixa decide sem as outras entradas');

      await hub.restart();
      await banner().waitFor({ state: 'detached', timeout: 30_000 });
    } finally {
      await context?.close();
      await real.close();
      await hub.close();
    }
  });
});
