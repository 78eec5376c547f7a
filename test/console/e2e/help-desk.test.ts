import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { PedidoInput } from '../../../src/orders/order.schemas.js';
import { makeOrder } from '../../support/fixtures.js';
import {
  apiFromPage,
  ATTENDANT,
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

// The help desk: finding an order by what the visitor says (name, CPF, order number), the order
// shown like the vouchers listing, check-ins and reversals with their answers next to what they
// concern, and what an attendant may not do (refused by the server, not only hidden).

let browser: Browser;
let cb: ConsoleBox;
let context: BrowserContext;
let page: Page;

function withPeople(order: PedidoInput, cliente: Partial<PedidoInput['cliente']>, names: string[]): PedidoInput {
  order.cliente = { ...order.cliente, ...cliente };
  order.lotes[0]!.dados = order.lotes[0]!.dados.map((d, i) => ({ ...d, Nome: names[i]!, Documento: `RG ${1000 + i}` }));
  return order;
}

const PIPOCA = {
  adicional_id: 'a1',
  nome: 'Pipoca',
  quantidade: 1,
  preco_unitario: 10,
  subtotal: 10,
  codigo_integracao: 'PIP',
  adicional_qr_code: 'PIPOCA00000001',
};
const FAMILY = '20261121-0101';
const CANCELLED = '20261121-0102';
const GROUP = '20261121-0103';
const REVERSAL = '20261121-0104';
const AT_LANE = '20261121-0105';

beforeAll(async () => {
  browser = await launchBrowser();
  cb = await startConsoleBox();
  cb.box.importOrders([
    withPeople(
      makeOrder({ numero: FAMILY, prefix: 'FAM', people: 3 }),
      { nome: 'João', sobrenome: 'Conceição', email: 'joao.conceicao@example.com', cpf: '52998224725' },
      ['Júlia Araújo', 'Pedro Conceição', 'Ângela Muñoz'],
    ),
    withPeople(
      makeOrder({ numero: CANCELLED, prefix: 'CAN', people: 1, status: 'cancelado' }),
      { nome: 'Carlos', sobrenome: 'Cancelado' },
      ['Carlos Cancelado'],
    ),
    withPeople(
      makeOrder({ numero: GROUP, prefix: 'GRP', people: 3, adicionais: [PIPOCA] }),
      { nome: 'Rita', sobrenome: 'Grupo', cpf: '11144477735' },
      ['Rita Grupo', 'Sara Grupo', 'Tomás Grupo'],
    ),
    withPeople(makeOrder({ numero: REVERSAL, prefix: 'REV', people: 2 }), { nome: 'Vera', sobrenome: 'Volta' }, [
      'Vera Volta',
      'Vitor Volta',
    ]),
    makeOrder({ numero: AT_LANE, prefix: 'LAN', people: 2 }),
    makeOrder({ prefix: 'CRW', people: 25 }),
  ]);
});
afterAll(async () => {
  await browser?.close();
  await cb?.close();
});
afterEach(async () => {
  await context?.close();
});

async function start(who: { nome: string; segredo: string }, hash = '#/busca') {
  ({ context, page } = await openConsole(browser, cb, { hash }));
  await signIn(page, who, 'balcao-1');
}

/** Types in the search screen's field (already open) and sends it with Enter. */
async function search(q: string) {
  const field = page.getByLabel('Pedido, QR code, nome, CPF ou e-mail');
  await field.fill(q);
  await field.press('Enter');
  await page.locator('.result-count', { hasText: q }).waitFor();
  return page.locator('.search-results .result-card');
}

const person = (name: string) => page.locator('li.person', { has: page.getByRole('heading', { name, exact: true }) });

describe('help desk', () => {
  it('shows an order like the vouchers listing: status, customer, payment, lots, people with their form data and check-in state', async () => {
    await start(ATTENDANT, `#/pedido/${FAMILY}`);
    await page.getByRole('heading', { name: `Pedido ${FAMILY}` }).waitFor();
    await page.locator('.order-summary').waitFor();
    const summary = await page.locator('.order-summary').textContent();
    expect(summary).toContain('PAGO');
    expect(summary).toContain('João Conceição');
    expect(summary).toContain('529.982.247-25');
    expect(summary).toMatch(/Total pago\s*R\$\s*300,00/);
    await page.getByRole('heading', { name: 'Passaporte Dia · Adulto' }).waitFor();
    for (const name of ['Júlia Araújo', 'Pedro Conceição', 'Ângela Muñoz'])
      expect(await person(name).textContent()).toContain('Ainda não entrou');
    expect(await person('Júlia Araújo').textContent()).toContain('RG 1000');
    expect(await person('Júlia Araújo').textContent()).toContain('FAM-1');
    expect(await screenProblems(page)).toEqual([]);
    await screenshots(page, 'pedido');
    await docImage(page, 'pedido');
  });

  it('finds an order by a name typed without accents, and the result opens it', async () => {
    await start(ATTENDANT);
    const results = await search('julia araujo');
    expect(await results.count()).toBe(1);
    expect(await results.first().textContent()).toContain(`Pedido ${FAMILY}`);
    expect(await results.first().textContent()).toContain('João');
    expect(await screenProblems(page)).toEqual([]);
    await screenshots(page, 'busca');
    await docImage(page, 'busca');
    await results.first().click();
    await page.getByRole('heading', { name: `Pedido ${FAMILY}` }).waitFor();
    await person('Júlia Araújo').waitFor();
  });

  it('finds orders by CPF with punctuation and by order number', async () => {
    await start(ATTENDANT);
    const byCpf = await search('111.444.777-35');
    expect((await byCpf.allTextContents()).join('\n')).toContain(`Pedido ${GROUP}`);
    const byNumber = await search(CANCELLED);
    expect(await byNumber.count()).toBe(1);
    expect(await byNumber.first().textContent()).toContain('CANCELADO');
  });

  it('checks in one person, then the rest of the order at once, then an additional; each answer shows where it belongs', async () => {
    await start(ATTENDANT, `#/pedido/${GROUP}`);
    await page.getByRole('button', { name: 'Fazer check-in de Rita Grupo' }).click();
    await person('Rita Grupo').locator('.form-ok', { hasText: 'LIBERADO' }).waitFor();
    await person('Rita Grupo')
      .getByText(/Entrou em .* terminal balcao-1/)
      .waitFor();
    expect(await person('Sara Grupo').textContent()).toContain('Ainda não entrou');

    await page.getByRole('button', { name: 'Check-in do pedido inteiro' }).click();
    await page.locator('.order-actions .form-ok, .order-actions .form-error').first().waitFor();
    await page.getByRole('heading', { name: 'Entradas: 3 de 3' }).waitFor();
    for (const name of ['Sara Grupo', 'Tomás Grupo']) expect(await person(name).textContent()).toMatch(/Entrou em/);
    const checked = cb.box.db.sqlite
      .prepare("select count(*) as n from people where qr_code like 'GRP-%' and checkin_em is not null")
      .get() as { n: number };
    expect(checked.n).toBe(3);

    // The order's additional, by its own QR: the answer shows beside it.
    await page.getByRole('button', { name: 'Fazer check-in do adicional Pipoca' }).click();
    await page.locator('li.person', { hasText: 'Pipoca' }).locator('.form-ok, .form-error').waitFor();
    expect(await page.locator('li.person', { hasText: 'Pipoca' }).locator('.form-ok').textContent()).toContain(
      'LIBERADO',
    );
  });

  it('a check-in at a lane shows on the open order without a reload, also behind a rush of other scans', async () => {
    await start(ATTENDANT, `#/pedido/${AT_LANE}`);
    await page.getByRole('heading', { name: 'Entradas: 0 de 2' }).waitFor();
    // This order's two scans, then 25 of another order, in one commit: the console is sent the newest 20 scans and
    // only the order numbers of the others.
    const lane = { tenantId: cb.box.tenantId, apiKeyId: null, keyName: 'catraca', source: 'lane' };
    const codes = ['LAN-1', 'LAN-2', ...Array.from({ length: 25 }, (_, i) => `CRW-${i + 1}`)];
    await Promise.all(codes.map((code) => cb.box.checkin.checkIn({ code, terminal: 'catraca-1' }, lane)));
    await page.getByRole('heading', { name: 'Entradas: 2 de 2' }).waitFor();
  });

  it('a refusal shows next to the person it concerns: a cancelled order is made obvious and refused', async () => {
    await start(ATTENDANT, `#/pedido/${CANCELLED}`);
    await page.locator('.order-status-cancelado', { hasText: 'CANCELADO' }).waitFor();
    const answer = page.waitForResponse((r) => r.url().endsWith('/api/console/checkin'));
    await page.getByRole('button', { name: 'Fazer check-in de Carlos Cancelado' }).click();
    const body = await (await answer).json();
    expect(body.success).toBe(false);
    await person('Carlos Cancelado').getByRole('alert').filter({ hasText: body.error.message }).waitFor();
    expect(await page.locator('.order-actions [role=alert]').count()).toBe(0);
  });

  it('a supervisor reverses a check-in with a reason, which is required', async () => {
    await start(SUPERVISOR, `#/pedido/${REVERSAL}`);
    await page.getByRole('button', { name: 'Fazer check-in de Vera Volta' }).click();
    await person('Vera Volta')
      .getByText(/Entrou em/)
      .waitFor();

    await page.getByRole('button', { name: 'Estornar check-in de Vera Volta' }).click();
    const reason = page.getByLabel('Motivo do estorno de Vera Volta');
    expect(await reason.evaluate((el) => el === (globalThis as any).document.activeElement)).toBe(true);
    await page.getByRole('button', { name: 'Confirmar estorno' }).click();
    await person('Vera Volta').getByText('Informe o motivo (de 3 a 200 caracteres).').waitFor();
    await reason.fill('Entrou por engano no balcão');
    await page.getByRole('button', { name: 'Confirmar estorno' }).click();
    await person('Vera Volta')
      .getByText(/Check-in estornado em .* terminal balcao-1/)
      .waitFor();
    await person('Vera Volta').locator('.form-ok').waitFor();
    expect(await screenProblems(page)).toEqual([]);

    const logged = cb.box.db.sqlite
      .prepare("select details from events where action = 'estorno' and qr_code = 'REV-1'")
      .all() as { details: string | null }[];
    expect(logged).toHaveLength(1);
    expect(logged[0]!.details).toContain('Entrou por engano no balcão');
  });

  it('an attendant sees no reversal and no operators, and the server refuses both with 403 PAPEL_INSUFICIENTE', async () => {
    await start(ATTENDANT, `#/pedido/${REVERSAL}`);
    await page.getByRole('button', { name: 'Fazer check-in de Vitor Volta' }).click();
    await person('Vitor Volta')
      .getByText(/Entrou em/)
      .waitFor();
    expect(await page.getByRole('button', { name: /Estornar/ }).count()).toBe(0);
    const nav = await page.getByRole('navigation', { name: 'Telas' }).getByRole('link').allTextContents();
    expect(nav).toEqual(['Leitura', 'Busca']);
    await page.goto(`${cb.origin}/console/#/operadores`);
    await page.getByText('Esta tela é só para supervisores.').waitFor();

    const reversal = await apiFromPage(page, 'POST', '/api/console/estorno', {
      qr_code: 'REV-2',
      motivo: 'tentativa do atendente',
    });
    expect({ status: reversal.status, code: reversal.json?.error?.code }).toEqual({
      status: 403,
      code: 'PAPEL_INSUFICIENTE',
    });
    const list = await apiFromPage(page, 'GET', '/api/console/operadores');
    expect({ status: list.status, code: list.json?.error?.code }).toEqual({ status: 403, code: 'PAPEL_INSUFICIENTE' });
    const create = await apiFromPage(page, 'POST', '/api/console/operadores', { nome: 'Intruso', papel: 'supervisor' });
    expect({ status: create.status, code: create.json?.error?.code }).toEqual({
      status: 403,
      code: 'PAPEL_INSUFICIENTE',
    });
    const still = cb.box.db.sqlite.prepare("select checkin_em from people where qr_code = 'REV-2'").get() as {
      checkin_em: string | null;
    };
    expect(still.checkin_em).not.toBeNull();
  });
});
