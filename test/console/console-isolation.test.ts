import { afterAll, beforeAll, expect, it } from 'vitest';
import { createOperator } from '../../src/operators/operators.repo.js';
import { createTestBox, type TestBox } from '../support/box.js';
import { makeOrder } from '../support/fixtures.js';

// Tenant isolation of the staff console: a supervisor of `parque` (the most a session can do) calls
// every console route aimed at `outro`'s identifiers. Nothing of outro shows (each of outro's names
// holds "xerxes"), a foreign identifier answers like one that exists nowhere, and nothing of outro
// changes. A console route without a row here fails the coverage test.

let box: TestBox;
let post: (url: string, payload?: object) => Promise<{ status: number; text: string }>;
let get: (url: string) => Promise<{ status: number; text: string }>;
const ids = { outroOperator: 0, outroAlarm: 0 };

const outroDb = () => ({
  people: box.db.sqlite.prepare('SELECT * FROM people WHERE tenant_id = ? ORDER BY id').all(box.otherTenantId),
  events: box.db.sqlite.prepare('SELECT * FROM events WHERE tenant_id = ? ORDER BY id').all(box.otherTenantId),
  operators: box.db.sqlite.prepare('SELECT * FROM operators WHERE tenant_id = ? ORDER BY id').all(box.otherTenantId),
  acks: box.db.sqlite
    .prepare('SELECT a.* FROM alarm_acks a JOIN lane_events e ON e.id = a.lane_event_id WHERE e.tenant_id = ?')
    .all(box.otherTenantId),
});
let before: ReturnType<typeof outroDb>;

beforeAll(async () => {
  box = await createTestBox();
  const xerxes = (o: ReturnType<typeof makeOrder>) => ({
    ...o,
    cliente: { ...o.cliente, nome: 'Xerxes', email: 'xerxes@secreto.example' },
    lotes: o.lotes.map((l) => ({ ...l, dados: l.dados.map((d) => ({ ...d, Nome: 'Xerxes Outro' })) })),
  });
  box.importOrders([makeOrder({ numero: '20261121-0001', prefix: 'PARQUE', dataUso: '2026-11-21' })]);
  box.importOrders(
    [xerxes(makeOrder({ numero: '20261121-0009', prefix: 'XERXES', dataUso: '2026-11-21' }))],
    box.otherTenantId,
  );
  const now = box.clock.nowIso();
  await createOperator(box.db, {
    tenantId: box.tenantId,
    nome: 'Sofia',
    papel: 'supervisor',
    segredo: '4321',
    nowIso: now,
  });
  ids.outroOperator = (
    await createOperator(box.db, {
      tenantId: box.otherTenantId,
      nome: 'Xerxes Supervisor',
      papel: 'supervisor',
      segredo: '4321',
      nowIso: now,
    })
  ).id;
  ids.outroAlarm = Number(
    box.db.sqlite
      .prepare(
        "INSERT INTO lane_events (tenant_id, occurred_at, lane, kind, code, details) VALUES (?, ?, 'pista-xerxes', 'carona', NULL, NULL)",
      )
      .run(box.otherTenantId, now).lastInsertRowid,
  );
  await box.checkin.checkIn(
    { code: 'XERXES-1', terminal: 'catraca-xerxes', operator: 'Xerxes' },
    { tenantId: box.otherTenantId, apiKeyId: null, keyName: 'x', source: 'api' },
  );
  const signIn = await box.app.inject({
    method: 'POST',
    url: '/api/console/entrar',
    payload: { nome: 'Sofia', segredo: '4321', tenant: 'parque' },
  });
  const cookie = String(signIn.headers['set-cookie']).split(';')[0]!;
  const csrf = signIn.json().data.csrf as string;
  const answer = (r: { statusCode: number; body: string }) => ({ status: r.statusCode, text: r.body });
  post = async (url, payload = {}) =>
    answer(await box.app.inject({ method: 'POST', url, payload, headers: { cookie, 'x-csrf-token': csrf } }));
  get = async (url) => answer(await box.app.inject({ method: 'GET', url, headers: { cookie } }));
  before = outroDb();
});
afterAll(() => box.close());

/** Each row: a request aimed at outro, and the same request aimed at nothing (when there is an identifier to swap). */
const ROWS: {
  route: string;
  foreign: () => Promise<{ status: number; text: string }>;
  nowhere?: () => Promise<{ status: number; text: string }>;
}[] = [
  {
    route: 'POST /api/console/entrar',
    foreign: () => post('/api/console/entrar', { nome: 'Xerxes Supervisor', segredo: '4321', tenant: 'parque' }),
    nowhere: () => post('/api/console/entrar', { nome: 'Ninguem Supervisor', segredo: '4321', tenant: 'parque' }),
  },
  { route: 'GET /api/console/sessao', foreign: () => get('/api/console/sessao') },
  {
    route: 'POST /api/console/leitura',
    foreign: () => post('/api/console/leitura', { codigo: 'XERXES-2' }),
    nowhere: () => post('/api/console/leitura', { codigo: 'NINGUEM-2' }),
  },
  {
    route: 'GET /api/console/busca',
    foreign: () => get('/api/console/busca?q=xerxes'),
    nowhere: () => get('/api/console/busca?q=ninguem'),
  },
  {
    route: 'GET /api/console/pedidos/:numero',
    foreign: () => get('/api/console/pedidos/20261121-0009'),
    nowhere: () => get('/api/console/pedidos/20261121-0008'),
  },
  {
    route: 'POST /api/console/checkin',
    foreign: () => post('/api/console/checkin', { numero_pedido: '20261121-0009' }),
    nowhere: () => post('/api/console/checkin', { numero_pedido: '20261121-0008' }),
  },
  {
    route: 'POST /api/console/estorno',
    foreign: () => post('/api/console/estorno', { numero_pedido: '20261121-0009', motivo: 'teste' }),
    nowhere: () => post('/api/console/estorno', { numero_pedido: '20261121-0008', motivo: 'teste' }),
  },
  { route: 'GET /api/console/pistas', foreign: () => get('/api/console/pistas') },
  {
    route: 'POST /api/console/alarmes/:id/reconhecer',
    foreign: () => post(`/api/console/alarmes/${ids.outroAlarm}/reconhecer`),
    nowhere: () => post('/api/console/alarmes/999999/reconhecer'),
  },
  { route: 'GET /api/console/sync', foreign: () => get('/api/console/sync') },
  { route: 'GET /api/console/site', foreign: () => get('/api/console/site') },
  { route: 'GET /api/console/site/modo', foreign: () => get('/api/console/site/modo') },
  { route: 'GET /api/console/conflitos', foreign: () => get('/api/console/conflitos?formato=csv') },
  { route: 'GET /api/console/operadores', foreign: () => get('/api/console/operadores') },
  {
    route: 'POST /api/console/operadores',
    foreign: () => post('/api/console/operadores', { nome: 'Xerxes Supervisor', papel: 'atendente' }),
  },
  {
    route: 'POST /api/console/operadores/:id/desativar',
    foreign: () => post(`/api/console/operadores/${ids.outroOperator}/desativar`),
    nowhere: () => post('/api/console/operadores/999999/desativar'),
  },
  { route: 'GET /api/console/relatorio', foreign: () => get('/api/console/relatorio?data=2026-11-21&formato=csv') },
  { route: 'POST /api/console/sair', foreign: () => post('/api/console/sair') },
];

it('has a row for every console route the app serves', () => {
  const served = box.app.printRoutes({ commonPrefix: false }).split('\n');
  const routes: string[] = [];
  const stack: string[] = [];
  for (const line of served) {
    const m = /^((?:│ {3}| {4})*)(?:├── |└── )(.+?)(?: \(([^)]*)\))?$/.exec(line);
    if (!m) continue;
    stack.length = m[1]!.length / 4;
    stack.push(m[2]!);
    for (const method of m[3]?.split(',').map((s) => s.trim()) ?? [])
      if (stack.join('').startsWith('/api/console/') && method !== 'HEAD') routes.push(`${method} ${stack.join('')}`);
  }
  expect(routes.filter((r) => r !== 'GET /api/console/eventos').sort()).toEqual(ROWS.map((r) => r.route).sort());
});

it('a supervisor of parque learns nothing of outro and changes nothing of it', async () => {
  const failures: string[] = [];
  for (const row of ROWS) {
    const a = await row.foreign();
    // What parque itself sent is echoed by design (a scanned code, the name it gave an operator).
    if (/xerxes/i.test(a.text.replace(/Xerxes Supervisor|XERXES-\d/g, '')))
      failures.push(`${row.route}: shows outro: ${a.text.slice(0, 300)}`);
    if (row.nowhere) {
      const b = await row.nowhere();
      const strip = (t: string) =>
        t.replace(
          /XERXES|NINGUEM|20261121-000[89]|Xerxes Supervisor|Ninguem Supervisor|\d{6,}|"em":"[^"]*"|"id":\d+/g,
          '«id»',
        );
      if (a.status !== b.status || strip(a.text) !== strip(b.text))
        failures.push(
          `${row.route}: foreign ${a.status} ${a.text.slice(0, 200)} / nowhere ${b.status} ${b.text.slice(0, 200)}`,
        );
    }
  }
  expect(failures).toEqual([]);
  expect(outroDb()).toEqual(before);
});
