import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { buildApp } from '../../src/app.js';
import { checkinAnswerSchema, reversalAnswerSchema } from '../../src/checkin/checkin.answers.js';
import { exitAnswerSchema, occupancyAnswerSchema } from '../../src/checkin/movement.answers.js';
import { clientsAnswerSchema } from '../../src/clients/clients.answers.js';
import { availabilityAnswerSchema, comboAnswerSchema, comboListAnswerSchema } from '../../src/combos/combo.answers.js';
import { consoleAnswers } from '../../src/console/console.answers.js';
import { createOperator } from '../../src/operators/operators.repo.js';
import { gatesAnswerSchema, laneEventsAnswerSchema } from '../../src/gate/gates.answers.js';
import { healthAnswerSchema, liveAnswerSchema, readyAnswerSchema } from '../../src/status/status.answers.js';
import { errorEnvelopeSchema } from '../../src/http/error-envelope.js';
import { vouchersAnswerSchema } from '../../src/orders/order.answers.js';
import { EXAMPLE_ADDITIONAL_QR, EXAMPLE_QRS, examplePedido } from '../../src/orders/order.docs.js';
import type { PedidoInput } from '../../src/orders/order.schemas.js';
import { siteAnswerSchema } from '../../src/site/site.answers.js';
import { conflictsAnswerSchema, eventsAnswerSchema, syncStatusAnswerSchema } from '../../src/sync/sync.answers.js';
import { makeAvailability, makeCombo, seedAvailability, seedCombos } from '../combos/combo-data.js';
import { makeClient, seedClients } from '../clients/client-data.js';
import { createTestBox, type TestBox } from '../support/box.js';
import { checkin, reverse } from '../support/http.js';

// Each answer has one schema (the feature's *.answers.ts): the builders are typed by it, /docs shows it and
// the routes check their object answers with it. Here every answer the box gives is run through it, the
// strict objects refusing a field the builder added or dropped: the recorded check-in and reversal answers
// (test/checkin/answer-bytes.golden.json) and one real answer of every JSON operation of /docs.

const golden = JSON.parse(
  fs.readFileSync(path.join(import.meta.dirname, '../checkin/answer-bytes.golden.json'), 'utf8'),
) as { request: string; status: number; body: string }[];

/** The schema's verdict on a body: undefined when it conforms, else the issues, readable in a failure. */
const issues = (schema: z.ZodType, body: unknown) => {
  const r = schema.safeParse(body);
  return r.success ? undefined : z.prettifyError(r.error);
};

describe('the recorded check-in and reversal answers', () => {
  it('each 200 is an answer of its method’s schema and each refusal an error envelope', () => {
    const schemaOf = (request: string, status: number) =>
      status !== 200
        ? errorEnvelopeSchema
        : request.startsWith('POST ')
          ? checkinAnswerSchema
          : request.startsWith('PATCH ')
            ? reversalAnswerSchema
            : vouchersAnswerSchema;
    expect(golden.length).toBeGreaterThan(20);
    for (const { request, status, body } of golden)
      expect(issues(schemaOf(request, status), JSON.parse(body)), request).toBeUndefined();
  });
});

let box: TestBox;
let cookie: Record<string, string>;
let csrf: Record<string, string>;
let jsonOperations: string[];
beforeAll(async () => {
  box = await createTestBox({ now: '2026-11-21T13:00:00.000Z' });
  const variant = (numero: string, tag: string): PedidoInput => {
    const lot = examplePedido.lotes[0]!;
    return {
      ...(examplePedido as unknown as PedidoInput),
      numero_pedido: numero,
      lotes: [{ ...lot, dados: lot.dados.map((d) => ({ ...d, qr_code: `${d.qr_code}-${tag}` })) }],
      adicionais: examplePedido.adicionais.map((a) => ({
        ...a,
        adicional_qr_code: `${tag}${a.adicional_qr_code.slice(tag.length)}`,
      })),
    } as PedidoInput;
  };
  box.importOrders([
    examplePedido as unknown as PedidoInput,
    variant('20261121-0043', 'B'),
    variant('20261121-0044', 'C'),
    variant('20261121-0045', 'D'),
  ]);
  seedClients(box, [makeClient('c-1'), makeClient('c-2', { ultimo_login: '2026-11-20T10:00:00.000Z' })]);
  const combo = makeCombo(1);
  seedCombos(box, [combo]);
  seedAvailability(box, makeAvailability(combo.id, { '2026-12-05': [180, 96] }));
  await createOperator(box.db, {
    tenantId: box.tenantId,
    nome: 'Sara',
    papel: 'supervisor',
    segredo: '4321',
    nowIso: box.clock.nowIso(),
  });
  const spec = (await box.app.inject({ method: 'GET', url: '/docs/json' })).json() as {
    paths: Record<string, Record<string, { responses: { 200: { content: Record<string, unknown> } } }>>;
  };
  jsonOperations = Object.entries(spec.paths).flatMap(([p, ops]) =>
    Object.entries(ops)
      .filter(([, op]) => 'application/json' in op.responses[200].content)
      .map(([method]) => `${method.toUpperCase()} ${p}`),
  );
});
afterAll(() => box?.close());

type Call = {
  schema: z.ZodType;
  run: () => Promise<{ statusCode: number; body: string }>;
  /** The rows of a listing, which must not be empty: the schema of a row is then checked too. */
  rows?: (body: { data: Record<string, unknown[]> }) => unknown[];
};

describe('a real answer of every JSON operation of /docs', () => {
  const api = () => ({ 'x-api-key': box.keys.all });
  const get = (url: string, headers: Record<string, string> = api()) => box.app.inject({ method: 'GET', url, headers });
  const send = (method: 'POST' | 'PATCH', url: string, payload: object, headers: Record<string, string> = api()) =>
    box.app.inject({ method, url, payload, headers });
  const combos = () => ({ 'x-integration-key': box.keys.combos });
  const asConsole = () => cookie;
  const asConsoleWrite = () => ({ ...cookie, ...csrf });
  const viaHttp = (call: () => Promise<{ status: number; body: unknown }>) => async () => {
    const r = await call();
    return { statusCode: r.status, body: JSON.stringify(r.body) };
  };

  const calls: Record<string, Call[]> = {
    'POST /api/console/entrar': [
      {
        schema: consoleAnswers.sessao,
        run: async () => {
          const res = await send(
            'POST',
            '/api/console/entrar',
            { nome: 'Sara', segredo: '4321', tenant: 'parque' },
            {},
          );
          cookie = { cookie: String(res.headers['set-cookie']).split(';')[0]! };
          csrf = { 'x-csrf-token': res.json().data.csrf };
          return res;
        },
      },
    ],
    'POST /api/v1/api-qrcode-checkin': [
      [EXAMPLE_QRS[0], 'pessoa'],
      [EXAMPLE_ADDITIONAL_QR, 'adicional'],
      ['20261121-0043', 'combo'],
      [`${EXAMPLE_QRS[1]},QR-DESCONHECIDO`, 'lote'],
    ].map(([qr_code]) => ({
      schema: checkinAnswerSchema,
      run: viaHttp(() => checkin(box, { qr_code, terminal: 'catraca-1', operador: 'Joana' })),
    })),
    'PATCH /api/v1/api-qrcode-checkin': [
      { schema: reversalAnswerSchema, run: viaHttp(() => reverse(box, { qr_code: EXAMPLE_QRS[0] })) },
      { schema: reversalAnswerSchema, run: viaHttp(() => reverse(box, { qr_code: EXAMPLE_ADDITIONAL_QR })) },
      { schema: reversalAnswerSchema, run: viaHttp(() => reverse(box, { qr_code: '20261121-0043' })) },
    ],
    'GET /api/v1/api-vouchers': [
      { schema: vouchersAnswerSchema, run: () => get('/api/v1/api-vouchers?marcar_sincronizado=false') },
      { schema: vouchersAnswerSchema, run: () => get('/api/v1/api-vouchers?numero_pedido=20261121-9999') },
    ],
    'GET /api/v1/api-clientes': [{ schema: clientsAnswerSchema, run: () => get('/api/v1/api-clientes') }],
    'GET /api/integration/combos': [
      { schema: comboListAnswerSchema, run: () => get('/api/integration/combos', combos()) },
    ],
    'GET /api/integration/combos/{id}': [
      { schema: comboAnswerSchema, run: () => get(`/api/integration/combos/${makeCombo(1).slug}`, combos()) },
    ],
    'GET /api/integration/combos/{id}/availability': [
      {
        schema: availabilityAnswerSchema,
        run: () =>
          get(
            `/api/integration/combos/${makeCombo(1).id}/availability?date_from=2026-12-05&date_to=2026-12-06`,
            combos(),
          ),
      },
    ],
    'GET /health': [{ schema: healthAnswerSchema, run: () => get('/health', {}) }],
    'GET /health/live': [{ schema: liveAnswerSchema, run: () => get('/health/live', {}) }],
    'GET /health/ready': [{ schema: readyAnswerSchema, run: () => get('/health/ready', {}) }],
    'GET /api/local/sync': [{ schema: syncStatusAnswerSchema, run: () => get('/api/local/sync') }],
    'GET /api/local/site': [{ schema: siteAnswerSchema, run: () => get('/api/local/site') }],
    'GET /api/local/conflicts': [
      {
        schema: conflictsAnswerSchema,
        run: () => {
          settleAsConflicts();
          return get('/api/local/conflicts');
        },
        rows: (b) => b.data.conflitos!,
      },
    ],
    'GET /api/local/eventos': [
      {
        schema: eventsAnswerSchema,
        run: () => get('/api/local/eventos?marcar_sincronizado=false'),
        rows: (b) => b.data.eventos!,
      },
    ],
    'GET /api/local/gates': [{ schema: gatesAnswerSchema, run: () => get('/api/local/gates') }],
    // Without lanes the page is empty (test/http/tenant-isolation reads rows with lanes).
    'GET /api/local/gates/eventos': [{ schema: laneEventsAnswerSchema, run: () => get('/api/local/gates/eventos') }],
    'POST /api/local/saida': [
      { schema: exitAnswerSchema, run: () => send('POST', '/api/local/saida', { qr_code: `${EXAMPLE_QRS[1]}-B` }) },
      { schema: exitAnswerSchema, run: () => send('POST', '/api/local/saida', { qr_code: 'QR-QUALQUER' }) },
    ],
    'GET /api/local/ocupacao': [{ schema: occupancyAnswerSchema, run: () => get('/api/local/ocupacao') }],
    'GET /api/console/sessao': [{ schema: consoleAnswers.sessao, run: () => get('/api/console/sessao', asConsole()) }],
    'POST /api/console/leitura': [
      {
        schema: consoleAnswers.leitura,
        run: () => send('POST', '/api/console/leitura', { codigo: `${EXAMPLE_QRS[0]}-D` }, asConsoleWrite()),
      },
      {
        schema: consoleAnswers.leitura,
        run: () => send('POST', '/api/console/leitura', { codigo: 'NAO-EXISTE' }, asConsoleWrite()),
      },
    ],
    'GET /api/console/busca': [
      { schema: consoleAnswers.busca, run: () => get('/api/console/busca?q=Maria', asConsole()) },
    ],
    'GET /api/console/pedidos/{numero}': [
      { schema: consoleAnswers.pedido, run: () => get('/api/console/pedidos/20261121-0043', asConsole()) },
    ],
    'POST /api/console/checkin': [
      {
        schema: consoleAnswers.checkin,
        run: () => send('POST', '/api/console/checkin', { numero_pedido: '20261121-0045' }, asConsoleWrite()),
      },
    ],
    'POST /api/console/estorno': [
      {
        schema: consoleAnswers.estorno,
        run: () =>
          send('POST', '/api/console/estorno', { numero_pedido: '20261121-0045', motivo: 'teste' }, asConsoleWrite()),
      },
    ],
    'GET /api/console/pistas': [{ schema: consoleAnswers.pistas, run: () => get('/api/console/pistas', asConsole()) }],
    'GET /api/console/sync': [{ schema: consoleAnswers.sync, run: () => get('/api/console/sync', asConsole()) }],
    'GET /api/console/site/modo': [
      { schema: consoleAnswers.modoSite, run: () => get('/api/console/site/modo', asConsole()) },
    ],
    'GET /api/console/site': [{ schema: consoleAnswers.site, run: () => get('/api/console/site', asConsole()) }],
    'GET /api/console/conflitos': [
      {
        schema: consoleAnswers.conflitos,
        run: () => get('/api/console/conflitos', asConsole()),
        rows: (b) => b.data.conflitos!,
      },
    ],
    'POST /api/console/operadores': [
      {
        schema: consoleAnswers.operadorCriado,
        run: () => send('POST', '/api/console/operadores', { nome: 'Pedro', papel: 'atendente' }, asConsoleWrite()),
      },
    ],
    'GET /api/console/operadores': [
      { schema: consoleAnswers.operadores, run: () => get('/api/console/operadores', asConsole()) },
    ],
    'POST /api/console/operadores/{id}/desativar': [
      {
        schema: consoleAnswers.operadorDesativado,
        run: async () => {
          const list = (await get('/api/console/operadores', asConsole())).json().data.operadores as {
            id: number;
            nome: string;
          }[];
          const pedro = list.find((o) => o.nome === 'Pedro')!;
          return send('POST', `/api/console/operadores/${pedro.id}/desativar`, {}, asConsoleWrite());
        },
      },
    ],
    'GET /api/console/relatorio': [
      { schema: consoleAnswers.relatorio, run: () => get('/api/console/relatorio?data=2026-11-21', asConsole()) },
    ],
    'POST /api/console/sair': [
      { schema: consoleAnswers.saiu, run: () => send('POST', '/api/console/sair', {}, asConsoleWrite()) },
    ],
  };
  /** The check-ins so far as conflicts the cloud answered (a box without a cloud queues nothing to push). */
  const settleAsConflicts = () =>
    box.db.sqlite
      .prepare(
        `INSERT INTO sync_push (event_id, tenant_id, chave, action, status, attempts, first_sent_at, resultado,
           cloud_code, cloud_message, settled_at)
         SELECT id, tenant_id, 'teste-' || id, action, 'concluido', 1, occurred_at, 'ja_utilizado_na_nuvem',
           'TICKET_ALREADY_USED', 'Ingresso já utilizado', occurred_at
         FROM events WHERE tenant_id = ? AND action IN ('checkin', 'estorno') AND result = 'ok'`,
      )
      .run(box.tenantId);
  /** Operations this box cannot reach: an alarm needs lanes (test/console/monitor.test.ts acknowledges one). */
  const unreachable = ['POST /api/console/alarmes/{id}/reconhecer'];

  it('covers every JSON operation /docs lists', () => {
    expect([...Object.keys(calls), ...unreachable].sort()).toEqual([...jsonOperations].sort());
  });

  it('answers each with a body its schema accepts, field for field', async () => {
    for (const [operation, list] of Object.entries(calls))
      for (const { schema, run, rows } of list) {
        const res = await run();
        expect(res.statusCode, `${operation}: ${res.body.slice(0, 300)}`).toBe(200);
        expect(issues(schema, JSON.parse(res.body)), operation).toBeUndefined();
        if (rows) expect(rows(JSON.parse(res.body)).length, `${operation}: no rows`).toBeGreaterThan(0);
      }
  });
});

describe('a route whose builder and schema disagree', () => {
  it('answers 500 instead of an answer /docs does not describe, and sends the builder’s object as it is', async () => {
    const schema = z.strictObject({ success: z.literal(true), data: z.strictObject({ a: z.number(), b: z.number() }) });
    const docs = { description: 'teste', ok: { description: 'ok', schema } };
    const app = await buildApp({
      logger: false,
      local: [
        (a) => {
          a.get('/certo', { schema: { docs } }, async () => ({ success: true, data: { b: 2, a: 1 } }));
          a.get('/a-mais', { schema: { docs } }, async () => ({ success: true, data: { a: 1, b: 2, c: 3 } }));
          a.get('/a-menos', { schema: { docs } }, async () => ({ success: true, data: { a: 1 } }));
        },
      ],
    });
    try {
      // The builder's key order is kept (the schema's is a, b).
      expect((await app.inject({ url: '/certo' })).body).toBe('{"success":true,"data":{"b":2,"a":1}}');
      for (const url of ['/a-mais', '/a-menos']) {
        const res = await app.inject({ url });
        expect(res.statusCode, url).toBe(500);
        expect(res.json().error.code).toBe('INTERNAL_ERROR');
      }
    } finally {
      await app.close();
    }
  });
});
