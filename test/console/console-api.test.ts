import type { Response } from 'light-my-request';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createOperator } from '../../src/operators/operators.repo.js';
import { createTestBox, type TestBox } from '../support/box.js';
import { makeOrder } from '../support/fixtures.js';

// The console's API over inject, on the real box and a real SQLite file (docs/console.md).

let box: TestBox;
const TODAY = '2026-11-21';

async function operator(nome: string, papel: 'atendente' | 'supervisor', segredo = '4321', tenantId = box.tenantId) {
  return createOperator(box.db, { tenantId, nome, papel, segredo, nowIso: box.clock.nowIso() });
}

interface Signed {
  cookie: string;
  csrf: string;
  post(url: string, payload?: object): Promise<Response>;
  get(url: string): Promise<Response>;
}

async function signIn(
  nome: string,
  segredo = '4321',
  tenant: string | undefined = 'parque',
  estacao = 'balcao-1',
): Promise<Signed> {
  const res = await box.app.inject({
    method: 'POST',
    url: '/api/console/entrar',
    payload: { nome, segredo, tenant, estacao },
  });
  expect(res.statusCode, res.body).toBe(200);
  const cookie = String(res.headers['set-cookie']).split(';')[0]!;
  const csrf = res.json().data.csrf as string;
  return {
    cookie,
    csrf,
    post: (url, payload = {}) =>
      box.app.inject({ method: 'POST', url, payload, headers: { cookie, 'x-csrf-token': csrf } }),
    get: (url) => box.app.inject({ method: 'GET', url, headers: { cookie } }),
  };
}

beforeEach(async () => {
  box = await createTestBox();
  box.importOrders([
    makeOrder({ numero: '20261121-0001', prefix: 'HOJE', dataUso: TODAY, people: 2 }),
    makeOrder({ numero: '20261121-0002', prefix: 'AMANHA', dataUso: '2026-11-24', people: 1 }),
    makeOrder({ numero: '20261121-0003', prefix: 'CANC', dataUso: TODAY, people: 1, status: 'cancelado' }),
  ]);
});
afterEach(() => box.close());

describe('signing in', () => {
  it('sets an httpOnly SameSite=Strict cookie and answers the session; a wrong PIN is refused; the 5th locks the account for 5 minutes', async () => {
    await operator('Ana', 'atendente');
    const wrong = (n: number) =>
      box.app.inject({
        method: 'POST',
        url: '/api/console/entrar',
        payload: { nome: 'ana', segredo: `999${n}`, tenant: 'parque' },
      });
    for (let i = 0; i < 4; i++) {
      const res = await wrong(i);
      expect(res.statusCode).toBe(401);
      expect(res.json().error.code).toBe('CREDENCIAIS_INVALIDAS');
    }
    const locked = await wrong(5);
    expect(locked.statusCode).toBe(429);
    expect(locked.json().error.code).toBe('CONTA_BLOQUEADA');
    // Locked: even the right PIN waits.
    const stillLocked = await box.app.inject({
      method: 'POST',
      url: '/api/console/entrar',
      payload: { nome: 'Ana', segredo: '4321', tenant: 'parque' },
    });
    expect(stillLocked.json().error.code).toBe('CONTA_BLOQUEADA');
    box.clock.advance(5 * 60_000 + 1000);
    const res = await box.app.inject({
      method: 'POST',
      url: '/api/console/entrar',
      payload: { nome: 'Ana', segredo: '4321', tenant: 'parque', estacao: 'balcao-1' },
    });
    expect(res.statusCode).toBe(200);
    expect(String(res.headers['set-cookie'])).toMatch(/^gate_console=[\w-]{40,}; Path=\/; HttpOnly; SameSite=Strict$/);
    expect(res.json().data).toMatchObject({
      operador: { nome: 'Ana', papel: 'atendente' },
      tenant: { slug: 'parque' },
      estacao: 'balcao-1',
      expira_apos_min: 720,
    });
    // The database keeps only a hash of the cookie's token.
    const token = String(res.headers['set-cookie']).split(';')[0]!.split('=')[1]!;
    expect(JSON.stringify(box.db.sqlite.prepare('SELECT * FROM console_sessions').all())).not.toContain(token);
  });

  it('an unknown name and a disabled operator are refused the same way', async () => {
    const { id } = await operator('Bia', 'atendente');
    box.db.sqlite.prepare('UPDATE operators SET disabled_at = ? WHERE id = ?').run(box.clock.nowIso(), id);
    for (const nome of ['Bia', 'Ninguém']) {
      const res = await box.app.inject({
        method: 'POST',
        url: '/api/console/entrar',
        payload: { nome, segredo: '4321', tenant: 'parque' },
      });
      expect(res.statusCode).toBe(401);
      expect(res.json().error.code).toBe('CREDENCIAIS_INVALIDAS');
    }
  });

  it('a session ends after the idle time, and at sign-out', async () => {
    await operator('Ana', 'atendente');
    const a = await signIn('Ana');
    expect((await a.get('/api/console/sessao')).statusCode).toBe(200);
    box.clock.advance(721 * 60_000);
    const expired = await a.get('/api/console/sessao');
    expect(expired.statusCode).toBe(401);
    expect(expired.json().error.code).toBe('SESSAO_INVALIDA');
    const b = await signIn('Ana');
    expect((await b.post('/api/console/sair')).statusCode).toBe(200);
    expect((await b.get('/api/console/sessao')).statusCode).toBe(401);
  });
});

describe('the scan view', () => {
  it('checks in through the check-in service as the console door, and words every refusal for the gate staff', async () => {
    await operator('Ana', 'atendente');
    const a = await signIn('Ana');
    const scan = async (codigo: string) => (await a.post('/api/console/leitura', { codigo })).json().data;

    const ok = await scan('HOJE-1');
    expect(ok).toMatchObject({
      resultado: 'liberado',
      titulo: 'LIBERADO',
      numero_pedido: '20261121-0001',
      porta: 'console',
      terminal: 'balcao-1',
      lote: { data_uso: TODAY },
    });
    expect(ok.pessoas[0].qr_code).toBe('HOJE-1');
    expect(ok.mensagem).toBe(ok.pessoas[0].nome);
    const event = box.db.sqlite
      .prepare("SELECT source, terminal, operador, result FROM events WHERE code = 'HOJE-1'")
      .get();
    expect(event).toEqual({ source: 'console', terminal: 'balcao-1', operador: 'Ana', result: 'ok' });

    const again = await scan('HOJE-1');
    expect(again).toMatchObject({
      resultado: 'recusado',
      titulo: 'JÁ UTILIZADO',
      mensagem: 'Ingresso já utilizado às 10:00 no terminal balcao-1',
      erro: { code: 'TICKET_ALREADY_USED' },
    });
    expect(await scan('AMANHA-1')).toMatchObject({
      resultado: 'recusado',
      titulo: 'FORA DA DATA',
      mensagem: 'Ingresso para 24/11',
    });
    expect(await scan('CANC-1')).toMatchObject({
      resultado: 'recusado',
      titulo: 'CANCELADO',
      mensagem: 'Pedido cancelado',
    });
    expect(await scan('NAO-EXISTE')).toMatchObject({
      resultado: 'recusado',
      titulo: 'NÃO ENCONTRADO',
      mensagem: 'Ingresso não encontrado',
    });
  });

  it('refuses a state change without the session’s CSRF token, and anything without a session', async () => {
    await operator('Ana', 'atendente');
    const a = await signIn('Ana');
    const noToken = await box.app.inject({
      method: 'POST',
      url: '/api/console/leitura',
      payload: { codigo: 'HOJE-1' },
      headers: { cookie: a.cookie },
    });
    expect(noToken.statusCode).toBe(403);
    expect(noToken.json().error.code).toBe('CSRF_INVALIDO');
    const otherToken = await box.app.inject({
      method: 'POST',
      url: '/api/console/leitura',
      payload: { codigo: 'HOJE-1' },
      headers: { cookie: a.cookie, 'x-csrf-token': 'x'.repeat(a.csrf.length) },
    });
    expect(otherToken.json().error.code).toBe('CSRF_INVALIDO');
    expect(box.db.sqlite.prepare("SELECT count(*) AS n FROM events WHERE code = 'HOJE-1'").get()).toEqual({ n: 0 });
    const anonymous = await box.app.inject({ method: 'GET', url: '/api/console/pedidos/20261121-0001' });
    expect(anonymous.statusCode).toBe(401);
    expect(anonymous.json().error.code).toBe('SESSAO_INVALIDA');
  });
});

describe('the help desk', () => {
  it('shows an order with each person’s state, checks in a whole order, and refusals come in the envelope with the plain message', async () => {
    await operator('Ana', 'atendente');
    const a = await signIn('Ana');
    const order = (await a.get('/api/console/pedidos/20261121-0001')).json().data;
    expect(order.pedido).toMatchObject({ numero_pedido: '20261121-0001', status: 'pago', total_pessoas: 2 });
    // No combo in this order: no group QR to offer. An order that came with a combo has its number as the group QR
    // (3.3).
    expect(order.combo_qr_code).toBeNull();
    box.importOrders([
      {
        ...makeOrder({ numero: '20261121-0004', prefix: 'COMBO', dataUso: TODAY }),
        adicionais: [
          {
            adicional_id: 'a1',
            nome: 'Pipoca',
            quantidade: 1,
            preco_unitario: 10,
            subtotal: 10,
            combo_id: 'c1',
            is_brinde: false,
            codigo_integracao: '',
            adicional_qr_code: null,
          },
        ],
      },
    ]);
    expect((await a.get('/api/console/pedidos/20261121-0004')).json().data.combo_qr_code).toBe('20261121-0004');
    expect(order.pessoas.map((p: { qr_code: string; checkin_em: null }) => [p.qr_code, p.checkin_em])).toEqual([
      ['HOJE-1', null],
      ['HOJE-2', null],
    ]);
    const res = await a.post('/api/console/checkin', { numero_pedido: '20261121-0001' });
    expect(res.statusCode).toBe(200);
    expect(
      res.json().data.pedido.pessoas.every((p: { checkin_terminal: string }) => p.checkin_terminal === 'balcao-1'),
    ).toBe(true);
    const again = await a.post('/api/console/checkin', { qr_code: 'HOJE-2' });
    expect(again.statusCode).toBe(409);
    expect(again.json().error).toMatchObject({
      code: 'TICKET_ALREADY_USED',
      message: 'Ingresso já utilizado às 10:00 no terminal balcao-1',
      details: { qr_code: 'HOJE-2' },
    });
    const both = await a.post('/api/console/checkin', { qr_code: 'HOJE-2', numero_pedido: '20261121-0001' });
    expect(both.json().error.code).toBe('AMBIGUOUS_INPUT');
  });

  it('an attendant cannot reverse nor manage operators; a supervisor reverses with a reason kept in the event log', async () => {
    await operator('Ana', 'atendente');
    await operator('Sofia', 'supervisor');
    const a = await signIn('Ana');
    await a.post('/api/console/checkin', { qr_code: 'HOJE-1' });
    for (const res of [
      await a.post('/api/console/estorno', { qr_code: 'HOJE-1', motivo: 'entrou errado' }),
      await a.get('/api/console/operadores'),
      await a.get('/api/console/pistas'),
    ]) {
      expect(res.statusCode).toBe(403);
      expect(res.json().error.code).toBe('PAPEL_INSUFICIENTE');
    }
    const s = await signIn('Sofia', '4321', 'parque', 'supervisao');
    expect((await s.post('/api/console/estorno', { qr_code: 'HOJE-1', motivo: '' })).json().error.code).toBe(
      'VALIDATION_ERROR',
    );
    const res = await s.post('/api/console/estorno', { qr_code: 'HOJE-1', motivo: 'Cliente desistiu' });
    expect(res.statusCode).toBe(200);
    expect(res.json().data.pedido.pessoas[0]).toMatchObject({
      qr_code: 'HOJE-1',
      estorno_terminal: 'supervisao',
      estorno_operador: 'Sofia',
    });
    const details = box.db.sqlite
      .prepare("SELECT details FROM events WHERE action = 'estorno' AND code = 'HOJE-1'")
      .get() as { details: string };
    expect(JSON.parse(details.details)).toMatchObject({ motivo: 'Cliente desistiu' });
  });

  it('an operator sees only their tenant', async () => {
    await operator('Outra', 'supervisor', '4321', box.otherTenantId);
    const o = await signIn('Outra', '4321', 'outro');
    expect((await o.get('/api/console/pedidos/20261121-0001')).statusCode).toBe(404);
    const scan = (await o.post('/api/console/leitura', { codigo: 'HOJE-1' })).json().data;
    expect(scan.titulo).toBe('NÃO ENCONTRADO');
  });
});

describe('the supervisor', () => {
  it('creates an operator whose one-time PIN signs in, and disabling one ends their sessions', async () => {
    await operator('Sofia', 'supervisor');
    const s = await signIn('Sofia');
    const created = (await s.post('/api/console/operadores', { nome: 'Caio', papel: 'atendente' })).json().data;
    expect(created.pin).toMatch(/^\d{6}$/);
    const c = await signIn('Caio', created.pin);
    expect((await c.get('/api/console/sessao')).statusCode).toBe(200);
    const list = (await s.get('/api/console/operadores')).json().data.operadores;
    expect(list.map((o: { nome: string; ativo: boolean }) => [o.nome, o.ativo])).toEqual([
      ['Caio', true],
      ['Sofia', true],
    ]);
    expect((await s.post('/api/console/operadores', { nome: 'caio', papel: 'atendente' })).json().error.code).toBe(
      'VALIDATION_ERROR',
    );
    expect((await s.post(`/api/console/operadores/${created.operador.id}/desativar`)).statusCode).toBe(200);
    expect((await c.get('/api/console/sessao')).statusCode).toBe(401);
  });

  it('sees alarms until acknowledged, with who acknowledged', async () => {
    await operator('Sofia', 'supervisor');
    const s = await signIn('Sofia');
    box.db.sqlite
      .prepare(
        "INSERT INTO lane_events (tenant_id, occurred_at, lane, kind, code, details) VALUES (?, ?, 'catraca-1', 'carona', NULL, NULL)",
      )
      .run(box.tenantId, box.clock.nowIso());
    const [alarme] = (await s.get('/api/console/pistas')).json().data.alarmes;
    expect(alarme).toMatchObject({ tipo: 'carona', pista: 'catraca-1', reconhecido_por: null });
    const acked = await s.post(`/api/console/alarmes/${alarme.id}/reconhecer`);
    expect(acked.json().data).toMatchObject({
      id: alarme.id,
      reconhecido_por: 'Sofia',
      reconhecido_em: box.clock.nowIso(),
    });
    expect((await s.get('/api/console/pistas')).json().data.alarmes[0].reconhecido_por).toBe('Sofia');
    expect((await s.post('/api/console/alarmes/99999/reconhecer')).statusCode).toBe(404);
  });

  it('the day’s report counts entries per local hour and lane, and refusals by reason, as JSON and CSV', async () => {
    await operator('Sofia', 'supervisor');
    const s = await signIn('Sofia');
    await s.post('/api/console/leitura', { codigo: 'HOJE-1' });
    box.clock.advance(2 * 3600_000);
    await s.post('/api/console/leitura', { codigo: 'HOJE-2' });
    await s.post('/api/console/leitura', { codigo: 'HOJE-2' });
    await s.post('/api/console/leitura', { codigo: 'CANC-1' });
    const r = (await s.get(`/api/console/relatorio?data=${TODAY}`)).json().data;
    expect(r).toMatchObject({ data: TODAY, total_entradas: 2, total_recusas: 2 });
    expect(r.por_hora).toEqual([
      { hora: 10, terminal: 'balcao-1', entradas: 1 },
      { hora: 12, terminal: 'balcao-1', entradas: 1 },
    ]);
    expect(r.recusas).toEqual(
      expect.arrayContaining([
        { code: 'TICKET_ALREADY_USED', titulo: 'JÁ UTILIZADO', total: 1 },
        { code: 'TICKET_CANCELLED', titulo: 'CANCELADO', total: 1 },
      ]),
    );
    const csv = await s.get(`/api/console/relatorio?data=${TODAY}&formato=csv`);
    expect(csv.headers['content-type']).toMatch(/^text\/csv/);
    expect(csv.body.split('\r\n')).toEqual(
      expect.arrayContaining([
        'secao,hora,terminal,codigo,total',
        'entradas,10,balcao-1,,1',
        'recusas,,,TICKET_CANCELLED,1',
      ]),
    );
  });
});

describe('the page', () => {
  it('is served by the box at /console with its assets and a strict content security policy', async () => {
    const page = await box.app.inject({ method: 'GET', url: '/console' });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.headers['content-security-policy']).toContain("default-src 'self'");
    expect(page.body).toContain('lang="pt-BR"');
    const script = await box.app.inject({ method: 'GET', url: '/console/app.js' });
    expect(script.headers['content-type']).toMatch(/^text\/javascript/);
    expect((await box.app.inject({ method: 'GET', url: '/console/pistas' })).body).toBe(page.body);
  });
});
