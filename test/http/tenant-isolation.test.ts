import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/auth/api-keys.js';
import { offlineLane } from '../support/lanes.js';
import { seedClients } from '../clients/client-data.js';
import { makeAvailability, makeCombo, seedAvailability, seedCombos, uuid } from '../combos/combo-data.js';
import { createTestBox, type TestBox } from '../support/box.js';
import {
  TODAY,
  OUTRO_ONLY_DATE,
  TWIN,
  O,
  NX,
  P,
  MARKERS,
  parqueOrders,
  outroOrders,
  parqueClients,
  outroClients,
} from './tenant-isolation.data.js';

// Tenant isolation, swept over every endpoint and every parameter (docs/security.md, "One tenant
// learns nothing of another's"). Both tenants hold look-alike data: some identifiers exist in both
// (TWIN: same order number, person QR, additional QR, combo uuid and slug, client id, e-mail, CPF,
// lane name), the rest only in `outro`. A key of `parque` then calls every route with every
// parameter, aimed at outro's identifiers, at the twins and at identifiers that exist nowhere:
//   - no answer carries anything of outro (every MARKER below; each outro name holds "xerxes");
//   - a foreign identifier answers exactly like one that exists nowhere (`like` rows), except the
//     documented TENANT_MISMATCH of PATCH with another tenant's ticket QR (docs/api.md, Reversal);
//   - twins act on and show parque's record only;
//   - nothing of outro changes (database snapshot and outro's own listings, before and after);
//   - sync marks never cross tenants, and stay per key.
// The table is run twice: /api/... paths with the row's key, then /v1/... paths with the `all`
// key. A route registered in the app without a row in the table fails the coverage test.

// ---------------------------------------------------------------------------------------------
// The box
// ---------------------------------------------------------------------------------------------

type Role = 'checkin' | 'checkinPlain' | 'vouchers' | 'clientes' | 'combos' | 'local' | 'all';

let box: TestBox;
let keys: Record<Role, string>;
/** outro's own keys: the ones that act in the setup, and readers for the before/after comparison. */
let outroKeys: { checkin: string; vouchers: string; clientes: string; local: string; reader: string };
let outroBefore: { db: unknown; api: unknown };

const q = <T = unknown>(sqlText: string, ...args: unknown[]) => box.db.sqlite.prepare(sqlText).all(...args) as T[];
const n = (sqlText: string, ...args: unknown[]) =>
  box.db.sqlite
    .prepare(sqlText)
    .pluck()
    .get(...args) as number;

async function call(method: string, url: string, key: string, payload?: object, header = 'x-api-key') {
  const res = await box.app.inject({
    method: method as 'GET',
    url,
    headers: { [header]: key },
    ...(payload ? { payload } : {}),
  });
  return {
    status: res.statusCode,
    text: res.body,
    json: String(res.headers['content-type'] ?? '').includes('json') ? res.json() : undefined,
  };
}

/** Everything of outro in the database: must be byte-for-byte the same after parque's sweep. */
function outroDb() {
  const t = box.otherTenantId;
  return {
    orders: q('select * from orders where tenant_id = ? order by id', t),
    people: q('select * from people where tenant_id = ? order by id', t),
    additionals: q('select * from additionals where tenant_id = ? order by id', t),
    redemptions: q(
      'select r.* from additional_redemptions r join additionals a on a.id = r.additional_id where a.tenant_id = ? order by r.id',
      t,
    ),
    presence: q('select * from presence where tenant_id = ? order by area, person_id', t),
    events: q('select * from events where tenant_id = ? order by id', t),
    voucherMarks: q(
      'select m.* from voucher_marks m join people p on p.id = m.person_id where p.tenant_id = ? order by m.api_key_id, m.person_id',
      t,
    ),
    clients: q('select * from clients where tenant_id = ? order by id', t),
    clientMarks: q(
      'select m.* from client_marks m join clients c on c.id = m.client_pk where c.tenant_id = ? order by m.api_key_id, m.client_pk',
      t,
    ),
    eventMarks: q(
      'select m.* from event_marks m join events e on e.id = m.event_id where e.tenant_id = ? order by m.api_key_id, m.event_id',
      t,
    ),
    combos: q('select * from combos where tenant_id = ? order by id', t),
    comboItems: q(
      'select i.* from combo_items i join combos c on c.id = i.combo_pk where c.tenant_id = ? order by i.combo_pk, i.position',
      t,
    ),
    comboStock: q(
      'select s.* from combo_stock s join combos c on c.id = s.combo_pk where c.tenant_id = ? order by s.combo_pk, s.date, s.position',
      t,
    ),
    syncPush: q('select * from sync_push where tenant_id = ? order by event_id', t),
    syncState: q('select * from sync_state where tenant_id = ?', t),
    syncRejects: q('select * from sync_rejects where tenant_id = ? order by kind, ref', t),
    laneEvents: q('select * from lane_events where tenant_id = ? order by id', t),
    apiKeys: q('select id, name, permissions, revoked_at from api_keys where tenant_id = ? order by id', t),
  };
}

/** outro as its own keys see it, read without marking anything. */
async function outroApi() {
  const get = async (url: string, key: string, header = 'x-api-key') =>
    (await call('GET', url, key, undefined, header)).json;
  return {
    unsyncedVouchersOfFreshKey: await get(
      '/api/v1/api-vouchers?sincronizado=false&marcar_sincronizado=false&limit=1000',
      outroKeys.reader,
    ),
    unsyncedVouchersOfMarkingKey: await get(
      '/api/v1/api-vouchers?sincronizado=false&marcar_sincronizado=false&limit=1000',
      outroKeys.vouchers,
    ),
    syncedVouchersOfMarkingKey: await get(
      '/api/v1/api-vouchers?sincronizado=true&marcar_sincronizado=false&limit=1000',
      outroKeys.vouchers,
    ),
    unsyncedClientsOfFreshKey: await get(
      '/api/v1/api-clientes?sincronizado=false&marcar_sincronizado=false&limit=500',
      outroKeys.reader,
    ),
    clientsOfMarkingKey: await get('/api/v1/api-clientes?marcar_sincronizado=false&limit=500', outroKeys.clientes),
    combos: await get('/api/integration/combos', outroKeys.reader, 'x-integration-key'),
    events: await get('/api/local/eventos?marcar_sincronizado=false&limit=1000', outroKeys.local),
    conflicts: await get('/api/local/conflicts', outroKeys.local),
    sync: await get('/api/local/sync', outroKeys.local),
    occupancy: await get('/api/local/ocupacao', outroKeys.local),
  };
}

beforeAll(async () => {
  box = await createTestBox({
    // Lanes for parque (the box's lane tenant), with a lane named like one in outro's old lane events.
    lanes: offlineLane('isolation', { name: TWIN.lane, capacity: 500 }),
  });
  const { sqlite } = box.db;
  const key = (tenantId: number, name: string, permissions: string[]) =>
    createApiKey(box.db, { tenantId, name, permissions, nowIso: box.clock.nowIso() }).key;
  keys = {
    checkin: box.keys.checkin,
    checkinPlain: box.keys.checkinPlain,
    vouchers: box.keys.vouchers,
    clientes: box.keys.clientes,
    combos: box.keys.combos,
    local: key(box.tenantId, 'central-parque', ['local:read']),
    all: box.keys.all,
  };
  const o = box.otherTenantId;
  outroKeys = {
    checkin: key(o, 'catraca-xerxes', ['vouchers:checkin']),
    vouchers: key(o, 'erp-xerxes', ['vouchers:read']),
    clientes: key(o, 'crm-xerxes', ['clientes:read']),
    local: key(o, 'central-xerxes', ['local:read']),
    reader: box.keys.otherTenant, // vouchers:read, clientes:read, combos: never marks anything here
  };

  // Orders, clients, combos and availability in both tenants.
  box.importOrders(parqueOrders);
  box.importOrders(outroOrders, o);
  seedClients(box, parqueClients);
  seedClients(box, outroClients, o);
  seedCombos(box, [
    makeCombo(1, { nome: 'Família Parque', slug: TWIN.comboSlug, destaque: false }),
    makeCombo(2, { nome: 'Solo Parque', slug: 'combo-parque-solo', destaque: true }),
  ]);
  seedCombos(
    box,
    [
      makeCombo(1, { nome: 'Família Xerxes', slug: TWIN.comboSlug, destaque: true, descricao: '<p>Xerxes</p>' }),
      makeCombo(777, { nome: 'Combo Xerxes', slug: O.comboSlug, destaque: true }),
      makeCombo(778, { nome: 'Velho Xerxes', slug: O.comboInactiveSlug, ativo: false }),
    ],
    o,
  );
  seedAvailability(box, makeAvailability(TWIN.comboId, { '2026-11-21': [4, 2], '2026-11-22': [6, 1] }));
  seedAvailability(box, makeAvailability(TWIN.comboId, { '2026-11-21': [40, 20], '2026-11-22': [60, 10] }), o);
  seedAvailability(box, makeAvailability(O.comboId, { '2026-11-21': [70, 70] }), o);

  // outro acts through the API: check-ins (person, group, additionals), a reversal, a refusal, an exit,
  // and marks with its own keys.
  const act = async (method: 'POST' | 'PATCH', payload: object, url = '/api/v1/api-qrcode-checkin') => {
    const res = await call(method, url, outroKeys.checkin, {
      terminal: 'terminal-xerxes',
      operador: 'Operador Xerxes',
      ...payload,
    });
    return res.status;
  };
  expect(await act('POST', { qr_code: TWIN.qr1 })).toBe(200);
  expect(await act('POST', { qr_code: O.numeroGroup })).toBe(200);
  expect(await act('PATCH', { qr_code: O.qrGroup3 })).toBe(200);
  expect(await act('POST', { qr_code: O.additional })).toBe(200);
  expect(await act('POST', { qr_code: TWIN.additional })).toBe(200);
  expect(await act('POST', { qr_code: 'OQR-NAO-EXISTE-XERXES' })).toBe(404);
  expect(await act('POST', { qr_code: O.qrGroup1 }, '/api/local/saida')).toBe(200);
  expect(
    (await call('GET', `/api/v1/api-vouchers?numero_pedido=${TWIN.numero}`, outroKeys.vouchers)).json.data.total,
  ).toBe(1);
  expect((await call('GET', '/api/v1/api-clientes?email=xerxes.um', outroKeys.clientes)).json.data.total).toBe(1);
  expect((await call('GET', '/api/local/eventos?limit=3', outroKeys.local)).json.data.total).toBe(3);

  // parque's own first check-in (for its conflicts and occupancy).
  expect((await call('POST', '/api/v1/api-qrcode-checkin', keys.checkin, { qr_code: P.qrGroup1 })).status).toBe(200);

  // What the sync worker and the lanes would have left: outro's outbox, state and rejects, lane events
  // of both tenants (outro's from a lane named like parque's).
  const firstEvent = (tenantId: number) =>
    n("select min(id) from events where tenant_id = ? and result = 'ok'", tenantId);
  const push =
    sqlite.prepare(`insert into sync_push (event_id, tenant_id, chave, action, status, attempts, next_attempt_at, first_sent_at, last_sent_at, last_error, resultado, cloud_code, cloud_message, cloud_em, settled_at)
    values (?, ?, ?, 'checkin', ?, ?, ?, '2026-11-21T12:30:00.000Z', '2026-11-21T12:30:00.000Z', ?, ?, ?, ?, ?, ?)`);
  push.run(
    firstEvent(o),
    o,
    TWIN.qr1,
    'concluido',
    1,
    null,
    null,
    'ja_utilizado_na_nuvem',
    'XERXES_USED',
    'Já utilizado na nuvem (xerxes)',
    '2026-11-21T11:00:00.000Z',
    '2026-11-21T12:31:00.000Z',
  );
  push.run(
    firstEvent(o) + 1,
    o,
    O.qrGroup1,
    'pendente',
    3,
    '2026-11-21T13:10:00.000Z',
    'timeout xerxes',
    null,
    null,
    null,
    null,
    null,
  );
  push.run(
    firstEvent(box.tenantId),
    box.tenantId,
    P.qrGroup1,
    'concluido',
    1,
    null,
    null,
    'fora_do_prazo',
    'EXPIRED',
    'Fora do prazo (parque)',
    null,
    '2026-11-21T12:31:00.000Z',
  );
  sqlite
    .prepare(
      'insert into sync_state (tenant_id, online, last_contact_at, last_error, last_error_at) values (?, 0, ?, ?, ?)',
    )
    .run(o, '2026-11-21T12:00:00.000Z', 'nuvem xerxes fora do ar', '2026-11-21T12:00:00.000Z');
  const reject = sqlite.prepare(
    "insert into sync_rejects (tenant_id, kind, ref, reason, at) values (?, 'pedido', ?, ?, '2026-11-21T12:00:00.000Z')",
  );
  reject.run(o, 'pedido-xerxes-9', 'motivo xerxes');
  reject.run(box.tenantId, 'pedido-parque-1', 'motivo parque');
  const laneEvent = sqlite.prepare(
    "insert into lane_events (tenant_id, occurred_at, lane, kind, code, details) values (?, '2026-11-21T12:45:00.000Z', ?, ?, ?, ?)",
  );
  laneEvent.run(o, 'pista-xerxes', 'liberada', O.qrGroup1, null);
  laneEvent.run(o, TWIN.lane, 'negada', O.qrHidden, JSON.stringify({ motivo: 'TICKET_NOT_FOUND', operador: 'xerxes' }));
  laneEvent.run(box.tenantId, TWIN.lane, 'liberada', P.qrGroup1, null);

  outroBefore = { db: outroDb(), api: await outroApi() };
});

afterAll(async () => {
  await box?.close();
});

// ---------------------------------------------------------------------------------------------
// The table: one line per request
// ---------------------------------------------------------------------------------------------

type Method = 'GET' | 'POST' | 'PATCH';
type Req = { params?: Record<string, string>; query?: Record<string, string>; body?: Record<string, string> };
interface Row extends Req {
  name: string;
  /** Method and route as registered, in its /api form; the second pass uses the /v1 form. */
  route: `${Method} /api/${string}`;
  key: Role;
  /** Expected HTTP status (200 when left out) and error code. */
  status?: number;
  code?: string;
  /** The same request with identifiers that exist nowhere: the answer must be the same. */
  like?: Req;
  /** Text of parque's that must be in the answer: proof it is about parque's own record. */
  has?: string[];
  /** More about the answer; throw (expect) to fail. */
  check?: (json: any, text: string) => void;
  /** A listing of the event log: parque's own events echo every code parque sent. */
  log?: true;
}

const CHECKIN = 'POST /api/v1/api-qrcode-checkin' as const;
const REVERSAL = 'PATCH /api/v1/api-qrcode-checkin' as const;
const EXIT = 'POST /api/local/saida' as const;
const VOUCHERS = 'GET /api/v1/api-vouchers' as const;
const CLIENTS = 'GET /api/v1/api-clientes' as const;
const COMBOS = 'GET /api/integration/combos' as const;
const COMBO = 'GET /api/integration/combos/:id' as const;
const AVAILABILITY = 'GET /api/integration/combos/:id/availability' as const;

const parqueEventIds = () =>
  new Set(q<{ id: number }>('select id from events where tenant_id = ?', box.tenantId).map((r) => r.id));
const parqueLaneEventIds = () =>
  new Set(
    q<{ id: number }>('select id from lane_events where tenant_id = ? order by id', box.tenantId).map((r) => r.id),
  );
const mismatch = (code: string) => (json: any) =>
  expect(json.error).toEqual({
    code: 'TENANT_MISMATCH',
    message: 'Ingresso não pertence a este cliente.',
    details: { qr_code: code },
  });
const numeros = (json: any) => json.data.pedidos.map((p: { numero_pedido: string }) => p.numero_pedido);
const onlyParqueOrders = (json: any) => expect(numeros(json).every((x: string) => P.numeros.includes(x))).toBe(true);
const clientIds = (json: any) => json.data.clientes.map((c: { id: string }) => c.id);
const comboIds = (json: any) => json.data.combos.map((c: { id: string }) => c.id);
/** In a batch answer: items i and j are the same answer once their own code is set aside. */
const sameItem = (json: any, i: number, j: number) => {
  const [a, b] = [json.data.resultados[i], json.data.resultados[j]];
  expect(normalise(JSON.stringify(a), [a.qr_code])).toBe(normalise(JSON.stringify(b), [b.qr_code]));
};

const ROWS: Row[] = [
  // ---- vouchers, read first without marking: parque's three orders and nothing else
  {
    name: 'vouchers unsynced, not marking',
    route: VOUCHERS,
    key: 'vouchers',
    query: { sincronizado: 'false', marcar_sincronizado: 'false' },
    has: [P.name],
    check: (j) => expect(numeros(j)).toEqual(P.numeros),
  },

  // ---- check-in (POST): foreign codes answer as codes that exist nowhere
  {
    name: 'check-in: foreign person QR',
    route: CHECKIN,
    key: 'checkin',
    body: { qr_code: O.qrAdd },
    like: { body: { qr_code: NX.qr } },
    status: 404,
    code: 'TICKET_NOT_FOUND',
  },
  {
    name: 'check-in: foreign QR already used by outro',
    route: CHECKIN,
    key: 'checkin',
    body: { qr_code: O.qrGroup2 },
    like: { body: { qr_code: NX.qr } },
    status: 404,
    code: 'TICKET_NOT_FOUND',
  },
  {
    name: 'check-in: foreign QR of a cancelled order',
    route: CHECKIN,
    key: 'checkin',
    body: { qr_code: O.qrCancelled },
    like: { body: { qr_code: NX.qr } },
    status: 404,
    code: 'TICKET_NOT_FOUND',
  },
  {
    name: 'check-in: foreign QR of another day',
    route: CHECKIN,
    key: 'checkin',
    body: { qr_code: O.qrFuture },
    like: { body: { qr_code: NX.qr } },
    status: 404,
    code: 'TICKET_NOT_FOUND',
  },
  {
    name: 'check-in: foreign QR of an order parque never names',
    route: CHECKIN,
    key: 'checkin',
    body: { qr_code: O.qrHidden },
    like: { body: { qr_code: NX.qr } },
    status: 404,
    code: 'TICKET_NOT_FOUND',
  },
  {
    name: 'check-in: foreign group QR',
    route: CHECKIN,
    key: 'checkin',
    body: { qr_code: O.numeroGroup },
    like: { body: { qr_code: NX.group } },
    status: 404,
    code: 'TICKET_NOT_FOUND',
  },
  {
    name: 'check-in: foreign additional QR (14 chars)',
    route: CHECKIN,
    key: 'checkin',
    body: { qr_code: O.additional },
    like: { body: { qr_code: NX.additional } },
    status: 404,
    code: 'TICKET_NOT_FOUND',
  },
  {
    name: 'check-in: foreign numero_pedido',
    route: CHECKIN,
    key: 'checkinPlain',
    body: { numero_pedido: O.numeroAdd },
    like: { body: { numero_pedido: NX.numero } },
    status: 404,
    code: 'ORDER_NOT_FOUND',
  },
  {
    name: 'check-in: foreign numero_pedido of a cancelled order',
    route: CHECKIN,
    key: 'checkinPlain',
    body: { numero_pedido: O.numeroCancelled },
    like: { body: { numero_pedido: NX.numero } },
    status: 404,
    code: 'ORDER_NOT_FOUND',
  },
  {
    name: 'check-in: foreign numero_pedido fully checked in by outro',
    route: CHECKIN,
    key: 'checkin',
    body: { numero_pedido: O.numeroGroup, terminal: 't', operador: 'op' },
    like: { body: { numero_pedido: NX.numero, terminal: 't', operador: 'op' } },
    status: 404,
    code: 'ORDER_NOT_FOUND',
  },
  {
    name: 'check-in: batch mixing own, foreign and nonexistent codes',
    route: CHECKIN,
    key: 'checkin',
    body: {
      qr_code: [P.qrOwn, O.qrAdd, O.qrCancelled, O.numeroGroup, O.additional, NX.qr, NX.group, NX.additional].join(','),
    },
    check: (j) => {
      expect(j.data.resultados.map((r: any) => [r.qr_code, r.status])).toEqual([
        [P.qrOwn, 200],
        [O.qrAdd, 404],
        [O.qrCancelled, 404],
        [O.numeroGroup, 404],
        [O.additional, 404],
        [NX.qr, 404],
        [NX.group, 404],
        [NX.additional, 404],
      ]);
      sameItem(j, 1, 5);
      sameItem(j, 2, 5);
      sameItem(j, 3, 6);
      sameItem(j, 4, 7);
    },
  },
  // ---- check-in of twins: parque's own record, never outro's
  {
    name: 'check-in: twin person QR',
    route: CHECKIN,
    key: 'checkin',
    body: { qr_code: TWIN.qr1 },
    has: [P.name],
    check: (j) => expect(j.data.pedido.lotes[0].dados.map((d: any) => d.qr_code)).toEqual([TWIN.qr1, TWIN.qr2]),
  },
  {
    name: 'check-in: twin group QR',
    route: CHECKIN,
    key: 'checkin',
    body: { qr_code: TWIN.numero },
    has: ['Paulo Parque'],
    check: (j) => expect([j.data.total_checkins, j.data.total_pessoas]).toEqual([1, 2]),
  },
  {
    name: 'check-in: twin numero_pedido, all of parque already in',
    route: CHECKIN,
    key: 'checkin',
    body: { numero_pedido: TWIN.numero },
    status: 409,
    code: 'TICKET_ALREADY_USED',
    check: (j) => expect(j.error.details).toEqual({ numero_pedido: TWIN.numero, total_pessoas: 2 }),
  },
  {
    name: 'check-in: twin additional QR',
    route: CHECKIN,
    key: 'checkin',
    body: { qr_code: TWIN.additional },
    has: ['Sorvete Parque'],
    check: (j) =>
      expect(j.data.adicional).toMatchObject({ nome: 'Sorvete Parque', quantidade: 1, unidades_utilizadas: 1 }),
  },

  // ---- exits (POST /api/local/saida): foreign codes answer as codes that exist nowhere
  {
    name: 'exit: foreign person QR (inside for outro)',
    route: EXIT,
    key: 'checkin',
    body: { qr_code: O.qrGroup2 },
    like: { body: { qr_code: NX.qr } },
  },
  {
    name: 'exit: foreign group QR',
    route: EXIT,
    key: 'checkin',
    body: { qr_code: O.numeroGroup },
    like: { body: { qr_code: NX.group } },
  },
  {
    name: 'exit: foreign additional QR',
    route: EXIT,
    key: 'checkin',
    body: { qr_code: O.additional, area: 'parque' },
    like: { body: { qr_code: NX.additional, area: 'parque' } },
  },
  {
    name: 'exit: twin person QR',
    route: EXIT,
    key: 'checkin',
    body: { qr_code: TWIN.qr1, terminal: 'portao' },
    check: (j) =>
      expect(j.data).toMatchObject({
        sem_entrada: false,
        numero_pedido: TWIN.numero,
        pessoas: [{ qr_code: TWIN.qr1, nome: P.name }],
      }),
  },

  // ---- reversal (PATCH): TENANT_MISMATCH only for another tenant's ticket QR (docs/api.md, Reversal)
  {
    name: 'reversal: foreign person QR',
    route: REVERSAL,
    key: 'checkinPlain',
    body: { qr_code: O.qrAdd },
    status: 403,
    code: 'TENANT_MISMATCH',
    check: mismatch(O.qrAdd),
  },
  {
    name: 'reversal: foreign person QR checked in by outro',
    route: REVERSAL,
    key: 'checkin',
    body: { qr_code: O.qrGroup2 },
    status: 403,
    code: 'TENANT_MISMATCH',
    check: mismatch(O.qrGroup2),
  },
  {
    name: 'reversal: foreign person QR reversed by outro',
    route: REVERSAL,
    key: 'checkin',
    body: { qr_code: O.qrGroup3 },
    status: 403,
    code: 'TENANT_MISMATCH',
    check: mismatch(O.qrGroup3),
  },
  {
    name: 'reversal: foreign QR of an order parque never names',
    route: REVERSAL,
    key: 'checkin',
    body: { qr_code: O.qrHidden },
    status: 403,
    code: 'TENANT_MISMATCH',
    check: mismatch(O.qrHidden),
  },
  {
    name: 'reversal: foreign additional QR',
    route: REVERSAL,
    key: 'checkin',
    body: { qr_code: O.additional },
    status: 403,
    code: 'TENANT_MISMATCH',
    check: mismatch(O.additional),
  },
  {
    name: 'reversal: foreign group QR',
    route: REVERSAL,
    key: 'checkin',
    body: { qr_code: O.numeroGroup },
    like: { body: { qr_code: NX.group } },
    status: 404,
    code: 'TICKET_NOT_FOUND',
  },
  {
    name: 'reversal: foreign numero_pedido with check-ins',
    route: REVERSAL,
    key: 'checkin',
    body: { numero_pedido: O.numeroGroup },
    like: { body: { numero_pedido: NX.numero } },
    status: 404,
    code: 'ORDER_NOT_FOUND',
  },
  {
    name: 'reversal: foreign numero_pedido of a cancelled order',
    route: REVERSAL,
    key: 'checkin',
    body: { numero_pedido: O.numeroCancelled, operador: 'x' },
    like: { body: { numero_pedido: NX.numero, operador: 'x' } },
    status: 404,
    code: 'ORDER_NOT_FOUND',
  },
  {
    name: 'reversal: nonexistent QR',
    route: REVERSAL,
    key: 'checkin',
    body: { qr_code: NX.qr },
    status: 404,
    code: 'TICKET_NOT_FOUND',
  },
  {
    name: 'reversal: batch mixing own, foreign and nonexistent codes',
    route: REVERSAL,
    key: 'checkin',
    body: { qr_code: [P.qrOwn, O.qrGroup1, O.numeroGroup, O.additional, NX.qr, NX.group].join(',') },
    check: (j) => {
      expect(j.data.resultados.map((r: any) => [r.qr_code, r.status, r.error?.code])).toEqual([
        [P.qrOwn, 200, undefined],
        [O.qrGroup1, 403, 'TENANT_MISMATCH'],
        [O.numeroGroup, 404, 'TICKET_NOT_FOUND'],
        [O.additional, 403, 'TENANT_MISMATCH'],
        [NX.qr, 404, 'TICKET_NOT_FOUND'],
        [NX.group, 404, 'TICKET_NOT_FOUND'],
      ]);
      expect(j.data.resultados[1].error.details).toEqual({ qr_code: O.qrGroup1 });
      sameItem(j, 2, 5);
    },
  },
  {
    name: 'reversal: twin person QR',
    route: REVERSAL,
    key: 'checkin',
    body: { qr_code: TWIN.qr1 },
    has: [P.name],
    check: (j) => expect(j.data.pedido.pessoa.qr_code).toBe(TWIN.qr1),
  },
  {
    name: 'reversal: twin group QR',
    route: REVERSAL,
    key: 'checkin',
    body: { qr_code: TWIN.numero },
    has: ['Paulo Parque'],
    check: (j) => expect([j.data.total_estornados, j.data.total_pessoas]).toEqual([1, 2]),
  },
  {
    name: 'reversal: twin additional QR',
    route: REVERSAL,
    key: 'checkin',
    body: { qr_code: TWIN.additional },
    has: ['Sorvete Parque'],
  },
  {
    name: 'reversal: twin numero_pedido, all of parque reversed',
    route: REVERSAL,
    key: 'checkin',
    body: { numero_pedido: TWIN.numero },
    status: 423,
    code: 'JA_ESTORNADO',
    check: (j) => expect(j.error.details.qr_code).toBe(TWIN.numero),
  },

  // ---- vouchers listing: every filter
  {
    name: 'vouchers, marking',
    route: VOUCHERS,
    key: 'vouchers',
    has: [P.name],
    check: (j) => expect(numeros(j)).toEqual(P.numeros),
  },
  {
    name: 'vouchers: foreign numero_pedido',
    route: VOUCHERS,
    key: 'vouchers',
    query: { numero_pedido: O.numeroGroup },
    like: { query: { numero_pedido: NX.numero } },
    check: (j) => expect(j.data.total).toBe(0),
  },
  {
    name: 'vouchers: foreign numero_pedido of a cancelled order',
    route: VOUCHERS,
    key: 'vouchers',
    query: { numero_pedido: O.numeroCancelled, sincronizado: 'false' },
    like: { query: { numero_pedido: NX.numero, sincronizado: 'false' } },
  },
  {
    name: 'vouchers: twin numero_pedido',
    route: VOUCHERS,
    key: 'vouchers',
    query: { numero_pedido: TWIN.numero, marcar_sincronizado: 'false' },
    has: [P.email],
    check: (j) =>
      expect(j.data.pedidos.map((p: any) => [p.numero_pedido, p.total_pessoas, p.cliente.email])).toEqual([
        [TWIN.numero, 2, P.email],
      ]),
  },
  {
    name: 'vouchers: sincronizado=false',
    route: VOUCHERS,
    key: 'vouchers',
    query: { sincronizado: 'false' },
    check: onlyParqueOrders,
  },
  {
    name: 'vouchers: sincronizado=true',
    route: VOUCHERS,
    key: 'vouchers',
    query: { sincronizado: 'true' },
    check: (j) => expect(numeros(j)).toEqual(P.numeros),
  },
  {
    name: "vouchers: data_uso only outro's",
    route: VOUCHERS,
    key: 'vouchers',
    query: { data_uso: OUTRO_ONLY_DATE },
    like: { query: { data_uso: '2026-12-31' } },
  },
  {
    name: 'vouchers: data_uso today',
    route: VOUCHERS,
    key: 'vouchers',
    query: { data_uso: TODAY, marcar_sincronizado: 'false' },
    check: (j) => expect(numeros(j)).toEqual(P.numeros),
  },
  {
    name: 'vouchers: checkin_realizado=true',
    route: VOUCHERS,
    key: 'vouchers',
    query: { checkin_realizado: 'true' },
    check: onlyParqueOrders,
  },
  {
    name: 'vouchers: checkin_realizado=false',
    route: VOUCHERS,
    key: 'vouchers',
    query: { checkin_realizado: 'false', marcar_sincronizado: 'false' },
    check: onlyParqueOrders,
  },
  {
    name: 'vouchers: order_by, order, limit, offset',
    route: VOUCHERS,
    key: 'vouchers',
    query: { order_by: 'pago_em', order: 'desc', limit: '1000', offset: '0' },
    check: (j) => expect(j.data.total).toBe(3),
  },
  {
    name: 'vouchers: offset past parque',
    route: VOUCHERS,
    key: 'vouchers',
    query: { offset: '3', limit: '1000' },
    check: (j) => expect(j.data.total).toBe(0),
  },

  // ---- clients listing: every filter
  {
    name: 'clients unsynced, not marking',
    route: CLIENTS,
    key: 'clientes',
    query: { sincronizado: 'false', marcar_sincronizado: 'false' },
    check: (j) => expect(clientIds(j)).toEqual(['pc-001', 'pc-002', TWIN.clientId]),
  },
  {
    name: 'clients, marking',
    route: CLIENTS,
    key: 'clientes',
    check: (j) => expect(clientIds(j)).toEqual(['pc-001', 'pc-002', TWIN.clientId]),
  },
  {
    name: 'clients: sincronizado=true',
    route: CLIENTS,
    key: 'clientes',
    query: { sincronizado: 'true' },
    check: (j) => expect(j.data.total).toBe(3),
  },
  {
    name: 'clients: sincronizado=false',
    route: CLIENTS,
    key: 'clientes',
    query: { sincronizado: 'false' },
    check: (j) => expect(j.data.total).toBe(0),
  },
  {
    name: "clients: e-mail fragment only outro's",
    route: CLIENTS,
    key: 'clientes',
    query: { email: 'xerxes' },
    like: { query: { email: 'naoexiste' } },
  },
  {
    name: "clients: e-mail domain only outro's",
    route: CLIENTS,
    key: 'clientes',
    query: { email: '@secreto.example', sincronizado: 'true' },
    like: { query: { email: '@nenhum.example', sincronizado: 'true' } },
  },
  {
    name: 'clients: twin e-mail',
    route: CLIENTS,
    key: 'clientes',
    query: { email: 'GEMEO@' },
    check: (j) => expect(j.data.clientes.map((c: any) => [c.id, c.sobrenome])).toEqual([[TWIN.clientId, 'Parque']]),
  },
  {
    name: "clients: CPF only outro's",
    route: CLIENTS,
    key: 'clientes',
    query: { cpf: O.clientCpf },
    like: { query: { cpf: NX.cpf } },
  },
  {
    name: "clients: formatted CPF only outro's",
    route: CLIENTS,
    key: 'clientes',
    query: { cpf: '987.654.321-99', marcar_sincronizado: 'false' },
    like: { query: { cpf: '000.000.001-91', marcar_sincronizado: 'false' } },
  },
  {
    name: 'clients: twin CPF',
    route: CLIENTS,
    key: 'clientes',
    query: { cpf: TWIN.clientCpf },
    check: (j) => expect(j.data.clientes.map((c: any) => [c.id, c.sobrenome])).toEqual([[TWIN.clientId, 'Parque']]),
  },
  {
    name: "clients: desde only outro's",
    route: CLIENTS,
    key: 'clientes',
    query: { desde: '2026-11-20' },
    like: { query: { desde: '2030-01-01' } },
  },
  {
    name: 'clients: desde before all',
    route: CLIENTS,
    key: 'clientes',
    query: { desde: '2026-01-01', order_by: 'nome', order: 'desc' },
    check: (j) => expect(j.data.total).toBe(3),
  },
  {
    name: 'clients: order_by email',
    route: CLIENTS,
    key: 'clientes',
    query: { order_by: 'email', limit: '500' },
    check: (j) => expect(j.data.total).toBe(3),
  },
  {
    name: 'clients: order_by ultimo_login',
    route: CLIENTS,
    key: 'clientes',
    query: { order_by: 'ultimo_login', order: 'desc' },
    check: (j) => expect(clientIds(j)[0]).toBe('pc-001'),
  },
  {
    name: 'clients: offset past parque',
    route: CLIENTS,
    key: 'clientes',
    query: { offset: '3', limit: '1' },
    check: (j) => expect(j.data.total).toBe(0),
  },

  // ---- combos
  {
    name: 'combos',
    route: COMBOS,
    key: 'combos',
    has: ['Família Parque'],
    check: (j) => expect([j.data.total, comboIds(j)]).toEqual([2, [uuid(2), TWIN.comboId]]),
  },
  {
    name: 'combos: destaque=true',
    route: COMBOS,
    key: 'combos',
    query: { destaque: 'true' },
    check: (j) => expect(comboIds(j)).toEqual([uuid(2)]),
  },
  {
    name: 'combos: destaque=false',
    route: COMBOS,
    key: 'combos',
    query: { destaque: 'false' },
    check: (j) => expect(j.data.combos.map((c: any) => c.nome)).toEqual(['Família Parque']),
  },
  {
    name: 'combos: foreign slug',
    route: COMBOS,
    key: 'combos',
    query: { slug: O.comboSlug },
    like: { query: { slug: NX.comboSlug } },
    check: (j) => expect(j.data.total).toBe(0),
  },
  {
    name: 'combos: twin slug',
    route: COMBOS,
    key: 'combos',
    query: { slug: TWIN.comboSlug },
    check: (j) => expect(j.data.combos.map((c: any) => c.nome)).toEqual(['Família Parque']),
  },
  {
    name: 'combos: limit, offset',
    route: COMBOS,
    key: 'combos',
    query: { limit: '1', offset: '1' },
    check: (j) => expect([j.data.total, comboIds(j)]).toEqual([2, [TWIN.comboId]]),
  },
  {
    name: 'combo: foreign uuid',
    route: COMBO,
    key: 'combos',
    params: { id: O.comboId },
    like: { params: { id: NX.comboId } },
    status: 404,
    code: 'COMBO_NOT_FOUND',
  },
  {
    name: 'combo: foreign slug',
    route: COMBO,
    key: 'combos',
    params: { id: O.comboSlug },
    like: { params: { id: NX.comboSlug } },
    status: 404,
    code: 'COMBO_NOT_FOUND',
  },
  {
    name: 'combo: foreign inactive uuid',
    route: COMBO,
    key: 'combos',
    params: { id: O.comboInactiveId },
    like: { params: { id: NX.comboId } },
    status: 404,
    code: 'COMBO_NOT_FOUND',
  },
  {
    name: 'combo: twin uuid',
    route: COMBO,
    key: 'combos',
    params: { id: TWIN.comboId },
    check: (j) => expect([j.data.id, j.data.nome]).toEqual([TWIN.comboId, 'Família Parque']),
  },
  {
    name: 'combo: twin slug',
    route: COMBO,
    key: 'combos',
    params: { id: TWIN.comboSlug },
    check: (j) => expect([j.data.id, j.data.nome, j.data.destaque]).toEqual([TWIN.comboId, 'Família Parque', false]),
  },
  {
    name: 'availability: foreign uuid',
    route: AVAILABILITY,
    key: 'combos',
    params: { id: O.comboId },
    like: { params: { id: NX.comboId } },
    status: 404,
    code: 'COMBO_NOT_FOUND',
  },
  {
    name: 'availability: foreign slug with dates',
    route: AVAILABILITY,
    key: 'combos',
    params: { id: O.comboSlug },
    query: { date_from: TODAY, date_to: '2026-11-22' },
    like: { params: { id: NX.comboSlug }, query: { date_from: TODAY, date_to: '2026-11-22' } },
    status: 404,
    code: 'COMBO_NOT_FOUND',
  },
  {
    name: 'availability: twin uuid with dates',
    route: AVAILABILITY,
    key: 'combos',
    params: { id: TWIN.comboId },
    query: { date_from: TODAY, date_to: '2026-11-23' },
    check: (j) =>
      expect([
        j.data.combo_nome,
        j.data.dates.map((d: any) => [d.date, d.min_stock, d.items_availability.map((i: any) => i.estoque_disponivel)]),
      ]).toEqual([
        'Família Parque',
        [
          ['2026-11-21', 2, [4, 2]],
          ['2026-11-22', 1, [6, 1]],
          ['2026-11-23', 0, [0, 0]],
        ],
      ]),
  },
  {
    name: 'availability: twin slug, default dates',
    route: AVAILABILITY,
    key: 'combos',
    params: { id: TWIN.comboSlug },
    check: (j) => expect(j.data.dates.slice(0, 2).map((d: any) => d.min_stock)).toEqual([2, 1]),
  },

  // ---- the box's own endpoints
  {
    name: 'sync state',
    route: 'GET /api/local/sync',
    key: 'local',
    check: (j) => {
      expect(j.data.resultados).toEqual({
        aceito: 0,
        ja_utilizado_na_nuvem: 0,
        fora_do_prazo: 1,
        cancelado_na_nuvem: 0,
        outro: 0,
      });
      expect([
        j.data.fila.pendentes,
        j.data.fila.em_nova_tentativa,
        j.data.ultimo_erro,
        j.data.ultima_comunicacao_em,
        j.data.registros_rejeitados.total,
      ]).toEqual([0, 0, null, null, 1]);
    },
  },
  {
    // A single box: no site, whoever asks (the site shares one tenant's movements: test/site/site-visible.test.ts).
    name: 'site',
    route: 'GET /api/local/site',
    key: 'local',
    check: (j) => expect([j.data.modo, j.data.caixas, j.data.pendentes]).toEqual(['desligado', [], 0]),
  },
  {
    name: 'conflicts',
    route: 'GET /api/local/conflicts',
    key: 'local',
    check: (j) =>
      expect(j.data.conflitos.map((c: any) => [c.tipo, c.qr_code])).toEqual([['fora_do_prazo', P.qrGroup1]]),
  },
  {
    name: "conflicts: kind only outro's",
    route: 'GET /api/local/conflicts',
    key: 'local',
    query: { tipo: 'ja_utilizado_na_nuvem' },
    like: { query: { tipo: 'cancelado_na_nuvem' } },
    check: (j) => expect(j.data.total).toBe(0),
  },
  {
    name: 'conflicts: dates, limit, offset',
    route: 'GET /api/local/conflicts',
    key: 'local',
    query: { desde: TODAY, ate: TODAY, limit: '100', offset: '0' },
    check: (j) => expect(j.data.total).toBe(1),
  },
  {
    name: 'conflicts: CSV',
    route: 'GET /api/local/conflicts',
    key: 'local',
    query: { format: 'csv' },
    check: (_j, text) => expect(text.trim().split('\n')).toHaveLength(2),
  },
  {
    name: 'events, not marking',
    route: 'GET /api/local/eventos',
    key: 'local',
    query: { marcar_sincronizado: 'false', limit: '1000' },
    log: true,
    check: (j) => expect(j.data.eventos.map((e: any) => e.id)).toEqual([...parqueEventIds()].sort((a, b) => a - b)),
  },
  {
    name: 'events, marking',
    route: 'GET /api/local/eventos',
    key: 'local',
    query: { limit: '1000' },
    log: true,
    check: (j) => expect(j.data.eventos.every((e: any) => parqueEventIds().has(e.id))).toBe(true),
  },
  {
    name: 'events: sincronizado=true',
    route: 'GET /api/local/eventos',
    key: 'local',
    query: { sincronizado: 'true', marcar_sincronizado: 'false', limit: '1000' },
    log: true,
    check: (j) => expect(j.data.total).toBe(parqueEventIds().size),
  },
  {
    name: 'events: sincronizado=false, offset',
    route: 'GET /api/local/eventos',
    key: 'local',
    query: { sincronizado: 'false', offset: '0', limit: '10' },
    log: true,
    check: (j) => expect(j.data.total).toBe(0),
  },
  {
    name: 'gates',
    route: 'GET /api/local/gates',
    key: 'local',
    check: (j) => expect([j.data.configurado, j.data.pistas.map((p: any) => p.nome)]).toEqual([true, [TWIN.lane]]),
  },
  // (The lane's missing serial ports may add parque's own dispositivo_offline events at any time.)
  {
    name: 'lane events',
    route: 'GET /api/local/gates/eventos',
    key: 'local',
    query: { limit: '1000' },
    check: (j) =>
      expect(j.data.eventos.map((e: any) => parqueLaneEventIds().has(e.id) && e.codigo)).toContain(P.qrGroup1),
  },
  {
    name: "lane events: lane only outro's",
    route: 'GET /api/local/gates/eventos',
    key: 'local',
    query: { pista: 'pista-xerxes' },
    like: { query: { pista: 'pista-nenhuma' } },
  },
  {
    name: 'lane events: twin lane',
    route: 'GET /api/local/gates/eventos',
    key: 'local',
    query: { pista: TWIN.lane, apos_id: '0', limit: '1000' },
    check: (j) => expect(j.data.eventos.every((e: any) => parqueLaneEventIds().has(e.id))).toBe(true),
  },
  {
    name: 'lane events: twin lane, a kind both have',
    route: 'GET /api/local/gates/eventos',
    key: 'local',
    query: { pista: TWIN.lane, tipo: 'liberada' },
    check: (j) => expect(j.data.eventos.map((e: any) => e.codigo)).toEqual([P.qrGroup1]),
  },
  {
    name: "lane events: kind only outro's",
    route: 'GET /api/local/gates/eventos',
    key: 'local',
    query: { tipo: 'negada' },
    like: { query: { tipo: 'carona' } },
  },
  {
    name: 'occupancy',
    route: 'GET /api/local/ocupacao',
    key: 'local',
    check: (j) =>
      expect(j.data.areas).toEqual([
        {
          area: 'parque',
          dentro: n(
            'select count(*) from presence where tenant_id = ? and local_date = ? and inside = 1',
            box.tenantId,
            TODAY,
          ),
          capacidade: 500,
          livres: expect.any(Number),
        },
      ]),
  },
];

// ---------------------------------------------------------------------------------------------
// The runner
// ---------------------------------------------------------------------------------------------

interface Pass {
  name: string;
  alias: (path: string) => string;
  key: (row: Row) => Role;
}
const PASSES: Pass[] = [
  { name: "/api paths, the row's key", alias: (p) => p, key: (row) => row.key },
  {
    name: '/v1 paths, the all key',
    alias: (p) => p.replace(/^\/api\/v1\//, '/v1/').replace(/^\/api\/integration\//, '/v1/integration/'),
    key: () => 'all',
  },
];

const splitRoute = (route: string) => route.split(' ') as [Method, string];
const isCheckinDoor = (route: string) => route === CHECKIN || route === REVERSAL || route === EXIT;
/** Codes parque sent to a check-in door: echoed by design (details, resultados[].qr_code, its event log). */
const sentCodes = new Set<string>();
const codesOf = (body: Req['body']) =>
  [...(body?.qr_code ?? '').split(','), body?.numero_pedido ?? ''].map((c) => c.trim()).filter((c) => c !== '');

function urlOf(path: string, req: Req) {
  const filled = path.replace(/:(\w+)/g, (_, name: string) => encodeURIComponent(req.params?.[name] ?? ''));
  const qs = new URLSearchParams(req.query ?? {}).toString();
  return qs ? `${filled}?${qs}` : filled;
}

/** Sets aside the given values (longest first), so what is left can be compared or scanned. */
function normalise(text: string, values: string[]) {
  let out = text;
  for (const v of [...values].sort((a, b) => b.length - a.length)) out = out.split(v).join('«probe»');
  return out;
}
const leaked = (text: string, echoes: string[]) => {
  const t = normalise(text, echoes).toLowerCase();
  return MARKERS.filter((m) => t.includes(m.toLowerCase()));
};

let requestsSent = 0;
async function send(pass: Pass, row: Row, req: Req) {
  const [method, path] = splitRoute(row.route);
  const role = pass.key(row);
  const header = path.startsWith('/api/integration/') ? 'x-integration-key' : 'x-api-key';
  if (isCheckinDoor(row.route)) codesOf(req.body).forEach((c) => sentCodes.add(c));
  requestsSent += 1;
  const res = await call(
    method,
    urlOf(pass.alias(path), req),
    keys[role],
    method === 'GET' ? undefined : (req.body ?? {}),
    header,
  );
  const echoes = row.log ? [...sentCodes] : isCheckinDoor(row.route) ? codesOf(req.body) : [];
  return { ...res, leaks: leaked(res.text, echoes) };
}

/** The identifiers a `like` row swaps: [foreign, nonexistent] pairs. */
function swapped(row: Row): [string, string][] {
  const pairs: [string, string][] = [];
  for (const part of ['params', 'query', 'body'] as const)
    for (const [k, v] of Object.entries(row.like?.[part] ?? {}))
      if (row[part]?.[k] !== v) pairs.push([row[part]![k]!, v]);
  return pairs;
}

async function runRow(pass: Pass, row: Row): Promise<string[]> {
  const failures: string[] = [];
  const fail = (what: string) => failures.push(`[${pass.name}] ${row.name}: ${what}`);
  const res = await send(pass, row, row);
  if (res.leaks.length > 0) fail(`leaks ${res.leaks.join(', ')} in ${res.text.slice(0, 400)}`);
  const status = row.status ?? 200;
  if (res.status !== status) fail(`status ${res.status}, expected ${status}: ${res.text.slice(0, 300)}`);
  if (row.code && res.json?.error?.code !== row.code) fail(`code ${res.json?.error?.code}, expected ${row.code}`);
  for (const h of row.has ?? [])
    if (!res.text.includes(h)) fail(`does not show parque's "${h}": ${res.text.slice(0, 300)}`);
  if (row.check) {
    try {
      row.check(res.json, res.text);
    } catch (err) {
      fail(`check: ${(err as Error).message.slice(0, 600)}`);
    }
  }
  if (row.like) {
    const pairs = swapped(row);
    const other = await send(pass, row, {
      params: { ...row.params, ...row.like.params },
      query: { ...row.query, ...row.like.query },
      body: { ...row.body, ...row.like.body },
    });
    if (other.leaks.length > 0) fail(`the nonexistent request leaks ${other.leaks.join(', ')}`);
    const a = normalise(
      res.text,
      pairs.map(([foreign]) => foreign),
    );
    const b = normalise(
      other.text,
      pairs.map(([, nowhere]) => nowhere),
    );
    if (res.status !== other.status || a !== b)
      fail(
        `foreign answers ${res.status} ${a.slice(0, 300)}\n   nonexistent answers ${other.status} ${b.slice(0, 300)}`,
      );
  }
  return failures;
}

// ---------------------------------------------------------------------------------------------
// Tests
// ---------------------------------------------------------------------------------------------

/** Method and path of every route the app serves, from fastify's route tree. */
function registeredRoutes(): string[] {
  const out: string[] = [];
  const stack: string[] = [];
  for (const line of box.app.printRoutes({ commonPrefix: false }).split('\n')) {
    const m = /^((?:│ {3}| {4})*)(?:├── |└── )(.+?)(?: \(([^)]*)\))?$/.exec(line);
    if (!m) continue;
    stack.length = m[1]!.length / 4;
    stack.push(m[2]!);
    for (const method of m[3]?.split(',').map((s) => s.trim()) ?? []) out.push(`${method} ${stack.join('')}`);
  }
  return out;
}

describe('tenant isolation: a key of parque never reaches outro', () => {
  it('the table has a row for every route the app serves (so a new route fails here until it has one)', () => {
    const all = registeredRoutes();
    // The parser sees the tree: a route it knows about must be there, in both path forms.
    expect(all).toEqual(
      expect.arrayContaining([
        'POST /api/v1/api-qrcode-checkin',
        'PATCH /v1/api-qrcode-checkin',
        'GET /v1/integration/combos/:id/availability',
        'GET /health',
      ]),
    );
    const served = all.filter((r) => {
      const [method, path] = r.split(' ') as [string, string];
      // The staff console's routes take a session, not a key: test/console/console-isolation.test.ts sweeps them.
      // /metrics holds box-wide counts, no identifier of any tenant (docs/operations.md).
      return (
        method !== 'HEAD' &&
        !path.startsWith('/docs') &&
        !path.startsWith('/health') &&
        path !== '/metrics' &&
        !path.startsWith('/console') &&
        !path.startsWith('/api/console/')
      );
    });
    const swept = new Set(
      PASSES.flatMap((pass) =>
        ROWS.map((row) => `${splitRoute(row.route)[0]} ${pass.alias(splitRoute(row.route)[1])}`),
      ),
    );
    expect(
      served.filter((r) => !swept.has(r)),
      'routes without an isolation row',
    ).toEqual([]);
    expect(
      [...swept].filter((r) => !served.includes(r)),
      'rows for routes the app does not serve',
    ).toEqual([]);
  });

  it.each(PASSES)('sweep: $name', async (pass) => {
    const failures: string[] = [];
    for (const row of ROWS) failures.push(...(await runRow(pass, row)));
    expect(failures).toEqual([]);
  });

  it('nothing of outro changed: database rows, check-in and reversal state, marks, events, and its own listings', async () => {
    expect(requestsSent).toBeGreaterThan(2 * ROWS.length);
    const after = { db: outroDb(), api: await outroApi() };
    expect(after.db).toEqual(outroBefore.db);
    expect(after.api).toEqual(outroBefore.api);
    // And what outro's keys read is all of outro's: six orders unsynchronised for its fresh key,
    // the twin order still the only one marked for its marking key, its three clients.
    const api = after.api as any;
    expect(api.unsyncedVouchersOfFreshKey.data.pedidos.map((p: any) => p.numero_pedido)).toEqual(
      outroOrders.map((o) => o.numero_pedido),
    );
    expect(api.syncedVouchersOfMarkingKey.data.pedidos.map((p: any) => p.numero_pedido)).toEqual([TWIN.numero]);
    expect(api.unsyncedClientsOfFreshKey.data.clientes.map((c: any) => c.id)).toEqual([...O.clientIds, TWIN.clientId]);
    // outro's twin QR is still checked in by outro, its second twin and its twin-order third person not.
    expect(
      q(
        'select qr_code, checkin_em is not null as dentro, checkin_operador from people where tenant_id = ? and order_id = (select id from orders where tenant_id = ? and numero_pedido = ?) order by position',
        box.otherTenantId,
        box.otherTenantId,
        TWIN.numero,
      ),
    ).toEqual([
      { qr_code: TWIN.qr1, dentro: 1, checkin_operador: 'Operador Xerxes' },
      { qr_code: TWIN.qr2, dentro: 0, checkin_operador: null },
      { qr_code: O.qrTwinOrder3, dentro: 0, checkin_operador: null },
    ]);
  });

  it("the markers are spelled as outro's data has them (the scan is not blind)", () => {
    const outroText =
      JSON.stringify(outroBefore) + JSON.stringify(q('select nome from tenants where id = ?', box.otherTenantId));
    expect(MARKERS.filter((m) => !outroText.toLowerCase().includes(m.toLowerCase()))).toEqual([]);
    // And outro's own answers, scanned the same way, are full of them.
    expect(leaked(JSON.stringify((outroBefore.api as any).unsyncedVouchersOfFreshKey), []).length).toBeGreaterThan(10);
  });

  it("the other way round: the box's lanes are parque's, and outro's key sees none of them", async () => {
    const get = async (url: string) => (await call('GET', url, outroKeys.local)).json;
    expect((await get('/api/local/gates')).data).toMatchObject({ configurado: false, pistas: [] });
    expect((await get('/api/local/gates/eventos?limit=1000')).data.eventos).toEqual([]);
    expect((await get(`/api/local/gates/eventos?pista=${TWIN.lane}`)).data.eventos).toEqual([]);
    const inside = n(
      'select count(*) from presence where tenant_id = ? and local_date = ? and inside = 1',
      box.otherTenantId,
      TODAY,
    );
    expect((await get('/api/local/ocupacao')).data.areas).toEqual([
      { area: 'parque', dentro: inside, capacidade: null, livres: null },
    ]);
  });

  it("sync marks are per key and per tenant: no mark of one tenant's key on another tenant's row", async () => {
    const crossing = (table: string, join: string) =>
      n(
        `select count(*) from ${table} m join api_keys k on k.id = m.api_key_id ${join} where k.tenant_id != x.tenant_id`,
      );
    expect(crossing('voucher_marks', 'join people x on x.id = m.person_id')).toBe(0);
    expect(crossing('client_marks', 'join clients x on x.id = m.client_pk')).toBe(0);
    expect(crossing('event_marks', 'join events x on x.id = m.event_id')).toBe(0);
    // The sweep did mark, with parque's keys, parque's rows.
    const marksOf = (table: string, key: string) =>
      n(`select count(*) from ${table} m join api_keys k on k.id = m.api_key_id where k.key_id = ?`, key.split('_')[1]);
    for (const role of ['vouchers', 'all'] as const) expect(marksOf('voucher_marks', keys[role])).toBe(5);
    for (const role of ['clientes', 'all'] as const) expect(marksOf('client_marks', keys[role])).toBe(3);
    for (const role of ['local', 'all'] as const) expect(marksOf('event_marks', keys[role])).toBeGreaterThan(0);
    // Per key: parque's other vouchers key, which never listed, still sees all of parque as new.
    const fresh = await call(
      'GET',
      '/api/v1/api-vouchers?sincronizado=false&marcar_sincronizado=false',
      box.keys.vouchers2,
    );
    expect(numeros(fresh.json)).toEqual(P.numeros);
    expect(leaked(fresh.text, [])).toEqual([]);
  });
});
