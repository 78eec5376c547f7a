import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { PedidoInput } from '../../../src/orders/order.schemas.js';
import { startBridgeLaneRig, type BridgeLaneRig } from '../../support/bridge-lane.js';
import { makeOrder } from '../../support/fixtures.js';
import {
  launchBrowser,
  openConsole,
  signIn,
  startConsoleBox,
  trySignIn,
  type ConsoleBox,
} from '../../support/console-browser.js';

// Defect 6.3 of issue 22: attendants with handhelds see about 360 px, and the scan screen was 391 px
// wide (420 px on a refusal), "NÃO ENCONTRADO", the hint and the header cut at the right edge. At 320
// and 360 px no screen scrolls sideways and nothing sticks out past the right edge, in every state,
// with long single words (a 40-character operator, station, code, name or e-mail) in what it shows.

const WIDTHS = [320, 360];
const HEIGHT = 740;

// Forty characters with no place to break, as a badly chosen but valid name would be.
const LONG_SUPERVISOR = { nome: 'SupervisoraMaximilianaDeAlcantaraFerreir', segredo: '482915' };
const LONG_ATTENDANT = { nome: 'AtendenteBartolomeuDeGusmaoVasconcelosXY', segredo: '731604' };
const LONG_STATION = 'bilheteriaprincipalportaonortenumero0001';
const LONG_PREFIX = 'QRCODEMUITOLONGOSEMESPACOSABCDEFGHIJKLM';
const UNKNOWN = 'CODIGODESCONHECIDOMUITOLONGOSEMESPACO0001';
const LONG_NAME = 'Wolfeschlegelsteinhausenbergerdorffvoralt Pinheiro';
const LONG_EMAIL = 'maximiliana.alcantara.ferreira.souza.lima@exemplo.com.br';
const ORDER = '20261121-0777';

let browser: Browser;
let cb: ConsoleBox;
let rig: BridgeLaneRig;
let context: BrowserContext | undefined;
let page: Page;

function longOrder(): PedidoInput {
  const order = makeOrder({ numero: ORDER, prefix: LONG_PREFIX, people: 3 });
  order.cliente = {
    ...order.cliente,
    nome: 'Maximiliana',
    sobrenome: 'AlcantaraFerreiraSouzaLimaVasconcelos',
    email: LONG_EMAIL,
  };
  const lot = order.lotes[0]!;
  lot.nome_ingresso = 'PassaporteAnualIlimitadoComEstacionamento';
  lot.nome_lote = 'AdultoMeiaEntradaEstudanteUniversitario';
  lot.dados = lot.dados.map((d, i) => ({ ...d, Nome: `${LONG_NAME} ${i + 1}`, Email: LONG_EMAIL }));
  order.adicionais = [
    {
      adicional_id: 'a1',
      nome: 'EstacionamentoCobertoComManobristaIncluido',
      quantidade: 1,
      preco_unitario: 10,
      subtotal: 10,
      codigo_integracao: 'EST',
      adicional_qr_code: 'ESTACIONA00001',
    },
  ];
  return order;
}

/** What sticks out sideways: the page's own width, and any element or line of text past the viewport's edges. */
async function overflow(p: Page): Promise<string[]> {
  return p.evaluate(() => {
    const doc = (globalThis as any).document;
    const width = doc.documentElement.clientWidth;
    const found: string[] = [];
    if (doc.documentElement.scrollWidth > width)
      found.push(`page scrolls sideways: ${doc.documentElement.scrollWidth} px wide in ${width} px`);
    const describe = (el: any) =>
      `${el.tagName.toLowerCase()}${el.className && typeof el.className === 'string' ? `.${el.className.trim().replace(/\s+/g, '.')}` : ''}`;
    const outside = (r: { left: number; right: number; width: number; height: number }) =>
      r.width > 0 && r.height > 0 && r.right > 0 && (r.right > width + 0.5 || r.left < -0.5);
    for (const el of doc.body.querySelectorAll('*')) {
      // Off screen until focused (the skip link) or clipped to nothing for screen readers only.
      if (el.closest('.visually-hidden') || el.matches('.skip')) continue;
      const r = el.getBoundingClientRect();
      if (outside(r)) found.push(`${describe(el)} spans ${Math.round(r.left)}..${Math.round(r.right)} px`);
    }
    const walker = doc.createTreeWalker(doc.body, 4 /* NodeFilter.SHOW_TEXT */);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const parent = node.parentElement;
      if (!parent || parent.closest('.visually-hidden, .skip, script, style') || !node.textContent.trim()) continue;
      const range = doc.createRange();
      range.selectNodeContents(node);
      for (const r of range.getClientRects())
        if (outside(r)) {
          found.push(
            `text "${node.textContent.trim().slice(0, 30)}" spans ${Math.round(r.left)}..${Math.round(r.right)} px`,
          );
          break;
        }
    }
    return [...new Set(found)];
  });
}

/** The page as it is now, at each narrow width: nothing to scroll sideways to. */
async function expectFits(state: string): Promise<void> {
  for (const width of WIDTHS) {
    await page.setViewportSize({ width, height: HEIGHT });
    await page.evaluate(() => new Promise((resolve) => (globalThis as any).requestAnimationFrame(resolve)));
    expect(await overflow(page), `${state} at ${width} px`).toEqual([]);
  }
}

async function open(hash: string, who?: { nome: string; segredo: string }, estacao = LONG_STATION): Promise<void> {
  await context?.close();
  ({ context, page } = await openConsole(browser, cb, { hash }));
  await page.setViewportSize({ width: WIDTHS[0]!, height: HEIGHT });
  if (who) await signIn(page, who, estacao);
}

beforeAll(async () => {
  rig = await startBridgeLaneRig();
  [browser, cb] = await Promise.all([launchBrowser(), startConsoleBox({ lanes: rig.lanes })]);
  await cb.addOperator(LONG_SUPERVISOR.nome, LONG_SUPERVISOR.segredo, 'supervisor');
  await cb.addOperator(LONG_ATTENDANT.nome, LONG_ATTENDANT.segredo, 'atendente');
  cb.box.importOrders([longOrder(), makeOrder({ prefix: 'USADO', people: 1 })]);
  // Already used at 09:30 through a turnstile with a long name: its refusal names that terminal.
  cb.box.clock.set('2026-11-21T12:30:00.000Z');
  const res = await cb.box.app.inject({
    method: 'POST',
    url: '/api/v1/api-qrcode-checkin',
    headers: { 'x-api-key': cb.box.keys.checkin },
    payload: { qr_code: 'USADO-1', terminal: LONG_STATION },
  });
  expect(res.statusCode).toBe(200);
  // A refusal of the day, so the report has both its tables whatever ran before it.
  const unknown = await cb.box.app.inject({
    method: 'POST',
    url: '/api/v1/api-qrcode-checkin',
    headers: { 'x-api-key': cb.box.keys.checkin },
    payload: { qr_code: UNKNOWN, terminal: LONG_STATION },
  });
  expect(unknown.statusCode).toBe(404);
  cb.box.clock.set('2026-11-21T13:00:00.000Z');
  const event = cb.box.db.sqlite.prepare("SELECT id, tenant_id FROM events WHERE code = 'USADO-1'").get() as {
    id: number;
    tenant_id: number;
  };
  // The cloud refused it (a conflict on the sync screen) with a long sentence.
  cb.box.db.sqlite
    .prepare(
      `INSERT INTO sync_push (event_id, tenant_id, chave, action, status, attempts, first_sent_at, last_sent_at, resultado, cloud_code, cloud_message, settled_at)
       VALUES (?, ?, 'nuvem', 'checkin', 'concluido', 1, ?, ?, 'ja_utilizado_na_nuvem', 'X', ?, ?)`,
    )
    .run(
      event.id,
      event.tenant_id,
      '2026-11-21T13:00:00.000Z',
      '2026-11-21T13:00:00.000Z',
      'Ingresso já utilizado em outra unidade: IngressoUtilizadoNaUnidadeLitoralNorte0001',
      '2026-11-21T13:00:00.000Z',
    );
  // A tailgating alarm on a lane with a long name, and a device alarm.
  const alarm = cb.box.db.sqlite.prepare(
    'INSERT INTO lane_events (tenant_id, occurred_at, lane, kind, code, details) VALUES (?, ?, ?, ?, NULL, ?)',
  );
  alarm.run(cb.box.tenantId, '2026-11-21T12:50:00.000Z', 'catracaprincipaldoportaonortenumero00001', 'carona', null);
  alarm.run(
    cb.box.tenantId,
    '2026-11-21T12:55:00.000Z',
    'entrada-1',
    'dispositivo_offline',
    JSON.stringify({ dispositivo: 'leitorDeQrCodeDaEntradaPrincipalNorte001' }),
  );
}, 30_000);
afterAll(async () => {
  await context?.close();
  await browser?.close();
  await cb?.close();
  await rig?.close();
});
afterEach(async () => {
  await context?.close();
  context = undefined;
});

describe('at 320 and 360 px wide nothing scrolls sideways', () => {
  it('sign-in: empty, a wrong PIN, the park field', async () => {
    await open('#/leitura');
    await page.getByLabel('Operador').waitFor();
    await expectFits('sign-in');
    const answer = await trySignIn(page, { nome: LONG_ATTENDANT.nome, segredo: '000000' }, LONG_STATION);
    expect(answer.body.error?.code).toBe('CREDENCIAIS_INVALIDAS');
    await page.locator('#login-error').waitFor();
    expect(await page.getByLabel('Parque').isVisible()).toBe(true);
    await expectFits('sign-in refused');
  });

  it('scan: idle, granted, refused (not found, already used), a repeat, the history and the box away', async () => {
    await open('#/leitura', LONG_ATTENDANT);
    await page.locator('.scan-result.idle').waitFor();
    await expectFits('scan idle');

    await page.keyboard.type(`${LONG_PREFIX}-1\n`);
    await page.locator('.scan-stage .scan-result.granted').waitFor();
    await expectFits('scan granted');

    await page.keyboard.type(`${UNKNOWN}\n`);
    await page.locator('.scan-stage .scan-result.refused', { hasText: 'NÃO ENCONTRADO' }).waitFor();
    await expectFits('scan refused: not found');

    await page.keyboard.type('USADO-1\n');
    await page.locator('.scan-stage .scan-result.refused', { hasText: LONG_STATION }).waitFor();
    await expectFits('scan refused: already used at a long-named terminal');

    await page.keyboard.type('USADO-1\n');
    await page.getByText('Leitura repetida de USADO-1 ignorada.').waitFor();
    await page.keyboard.type(`${LONG_PREFIX}-2\n${LONG_PREFIX}-2\n`);
    await page.getByText(`Leitura repetida de ${LONG_PREFIX}-2 ignorada.`).waitFor();
    await expectFits('scan: a repeat ignored, with the history');

    await cb.goAway();
    try {
      await page.keyboard.type(`${LONG_PREFIX}-3\n`);
      await page.locator('.scan-stage .scan-result.refused', { hasText: 'Não foi possível registrar' }).waitFor();
      await page.locator('.banner-offline').waitFor();
      await expectFits('scan: the box away');
    } finally {
      await cb.comeBack();
    }
  });

  it('search: results with long names and e-mails, and nothing found for a long word', async () => {
    await open('#/busca', LONG_ATTENDANT);
    await page.getByLabel('Pedido, QR code, nome, CPF ou e-mail').fill('Wolfeschlegelsteinhausenbergerdorffvoralt');
    await page.getByRole('button', { name: 'Buscar' }).click();
    await page.locator('.result-card').first().waitFor();
    await expectFits('search results');
    await page.getByLabel('Pedido, QR code, nome, CPF ou e-mail').fill('x'.repeat(100));
    await page.getByRole('button', { name: 'Buscar' }).click();
    await page.getByText('Nenhum pedido encontrado').waitFor();
    await expectFits('search: nothing found');
  });

  it('order: people, additionals, a check-in answer and the reversal form', async () => {
    await open(`#/pedido/${ORDER}`, LONG_SUPERVISOR);
    await page.locator('.person').first().waitFor();
    await expectFits('order');
    await page.getByRole('button', { name: 'Check-in do pedido inteiro' }).click();
    await page.locator('.order-actions [role="status"], .order-actions [role="alert"]').first().waitFor();
    await page.getByRole('button', { name: 'Estornar o pedido inteiro' }).click();
    await page
      .getByLabel(/Motivo/)
      .first()
      .waitFor();
    await expectFits('order: checked in, reversal form open');
  });

  it('lanes: a lane card, alarms and the last scans', async () => {
    await open('#/pistas', LONG_SUPERVISOR);
    await page.locator('li.lane').waitFor();
    await page.locator('.alarm-open').first().waitFor();
    await page.locator('#recent-title').waitFor();
    await expectFits('lanes');
  });

  it('sync: the cloud state and the conflicts', async () => {
    await open('#/sync', LONG_SUPERVISOR);
    await page.locator('table tbody tr').first().waitFor();
    await expectFits('sync');
  });

  it('operators: the list, the new PIN and a confirmation', async () => {
    await open('#/operadores', LONG_SUPERVISOR);
    await page.getByLabel('Nome').fill('OperadoraRecemContratadaDoTurnoDaNoite01');
    await page.getByLabel('Papel').selectOption('atendente');
    await page.getByRole('button', { name: 'Criar operador' }).click();
    await page.locator('.pin-box .pin').waitFor();
    await page.getByRole('button', { name: `Desativar ${LONG_ATTENDANT.nome}` }).click();
    await page.getByRole('group', { name: `Confirmar desativação de ${LONG_ATTENDANT.nome}` }).waitFor();
    await expectFits('operators');
  });

  it("report: the day's chart and tables", async () => {
    await open('#/relatorio', LONG_SUPERVISOR);
    await page.locator('.chart').waitFor();
    await page.locator('section[aria-labelledby="refusals-title"] tbody tr').first().waitFor();
    await expectFits('report');
  });

  it('an attendant at a supervisor screen', async () => {
    await open('#/relatorio', LONG_ATTENDANT);
    await page.getByText('Esta tela é só para supervisores.').waitFor();
    await expectFits('restricted screen');
  });
});
