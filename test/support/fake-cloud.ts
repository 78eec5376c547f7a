import fs from 'node:fs';
import path from 'node:path';
import { createApiKey } from '../../src/auth/api-keys.js';
import { clienteRecordSchema, type ClienteRecordInput } from '../../src/clients/client.schemas.js';
import { upsertClient } from '../../src/clients/clients.repo.js';
import type { Clock } from '../../src/clock.js';
import {
  availabilitySchema,
  comboSchema,
  type ComboAvailabilityInput,
  type ComboInput,
} from '../../src/combos/combo.schemas.js';
import { upsertAvailability, upsertCombo } from '../../src/combos/combos.repo.js';
import { migrateToLatest, openDatabase } from '../../src/db/open.js';
import { pedidoSchema, type PedidoInput } from '../../src/orders/order.schemas.js';
import { upsertOrder } from '../../src/orders/orders.repo.js';
import { ensureTenant } from '../../src/tenants/tenants.repo.js';
import { startFaultProxy } from './fault-proxy.js';
import { bootBox } from './box.js';
import { tempDir } from './temp.js';

/** A check-in or reversal the cloud applied, from its own event log. */
export interface CloudRecord {
  action: 'checkin' | 'estorno';
  qr_code: string;
  terminal: string | null;
  operador: string | null;
  key_name: string | null;
  occurred_at: string;
}

/**
 * The cloud side of the spec: a second box (the box already serves the spec's cloud behaviour: per-key
 * marks, status changes unsynchronising orders for every key, batch results, same-day and date rules)
 * on its own SQLite file, listening on loopback, behind a fault-injecting proxy. The gate under test
 * talks to `url` (the proxy). Its answers' `Date` header (RFC 9110 IMF-fixdate, whole seconds) is
 * `clock`'s time, moved by `setDateSkew` to play a cloud whose clock and the box's disagree.
 */
export async function startFakeCloud(opts: { clock: Clock; recordRequests?: boolean }) {
  const dir = tempDir('gate-cloud-');
  const db = openDatabase(path.join(dir, 'cloud.db'));
  await migrateToLatest(db);
  const { sqlite } = db;
  const { clock } = opts;
  const tenantId = ensureTenant(db, 'parque-nuvem', clock.nowIso(), 'Parque na nuvem');
  const key = (name: string, permissions: string[]) =>
    createApiKey(db, { tenantId, name, permissions, nowIso: clock.nowIso() }).key;
  const keys = {
    /** The gate's key: what GATE_CLOUD_API_KEY holds. */
    box: key('gate-box', ['vouchers:read', 'vouchers:checkin', 'clientes:read']),
    /** GATE_CLOUD_INTEGRATION_KEY. */
    integration: key('gate-box-integracao', ['integration:combos:read']),
    /** Another integration of the same tenant (its marks are its own). */
    erp: key('erp', ['vouchers:read', 'clientes:read']),
    /** A turnstile that talks to the cloud directly. */
    otherGate: key('catraca-nuvem', ['vouchers:checkin']),
  };
  const { app, close: closeBox } = await bootBox({ db, clock, logger: false });
  const origin = await app.listen({ host: '127.0.0.1', port: 0 });
  let dateSkewMs = 0;
  const proxy = await startFaultProxy(origin, {
    record: opts.recordRequests ?? true,
    date: () => new Date(clock.now().getTime() + dateSkewMs),
  });
  const orders = new Map<string, PedidoInput>();

  const tx = <T>(work: () => T) => sqlite.transaction(work).immediate();
  const putOrders = (list: PedidoInput[]) =>
    tx(() => {
      for (const p of list) {
        upsertOrder(db, tenantId, pedidoSchema.parse(p), clock.nowIso());
        orders.set(p.numero_pedido, p);
      }
    });

  return {
    url: proxy.url,
    origin,
    proxy,
    keys,
    db,
    tenantId,
    /** The cloud's `Date` header runs `ms` ahead of the test's clock (negative: behind). */
    setDateSkew(ms: number) {
      dateSkewMs = ms;
    },
    /** New orders, or new versions of known ones, as the admin panel would make them. */
    addOrders(list: PedidoInput[], chunk = 1000) {
      for (let i = 0; i < list.length; i += chunk) putOrders(list.slice(i, i + chunk));
    },
    /** Cancel or refund in the admin panel: the order is unsynchronised for every key (3.1). */
    setStatus(numero: string, status: 'pago' | 'cancelado' | 'reembolsado') {
      const p = orders.get(numero);
      if (!p) throw new Error(`pedido ${numero} não existe na nuvem de teste`);
      putOrders([{ ...p, status }]);
    },
    addCombos: (list: ComboInput[]) =>
      tx(() => list.forEach((c) => upsertCombo(db, tenantId, comboSchema.parse(c), clock.nowIso()))),
    setAvailability: (a: ComboAvailabilityInput) =>
      tx(() => upsertAvailability(db, tenantId, availabilitySchema.parse(a), clock.nowIso())),
    addClients: (list: ClienteRecordInput[]) =>
      tx(() => list.forEach((c) => upsertClient(db, tenantId, clienteRecordSchema.parse(c), clock.nowIso()))),
    /** A check-in made at the cloud by another turnstile. */
    async checkinAtCloud(qr: string, terminal = 'catraca-nuvem') {
      const res = await app.inject({
        method: 'POST',
        url: '/api/v1/api-qrcode-checkin',
        headers: { 'x-api-key': keys.otherGate },
        payload: { qr_code: qr, terminal },
      });
      return { status: res.statusCode, body: res.json() };
    },
    /** Every check-in and reversal the cloud applied, oldest first. */
    applied(): CloudRecord[] {
      return sqlite
        .prepare(
          `select action, qr_code, terminal, operador, key_name, occurred_at from events where result = 'ok' order by id`,
        )
        .all() as CloudRecord[];
    },
    /** How many times each QR was applied per action, e.g. { 'checkin:QR-1': 1 }. */
    appliedCounts(): Map<string, number> {
      const rows = sqlite
        .prepare(`select action || ':' || qr_code as k, count(*) as n from events where result = 'ok' group by k`)
        .all() as { k: string; n: number }[];
      return new Map(rows.map((r) => [r.k, r.n]));
    },
    /** Every answer the cloud gave, refusals included (result is 'ok' or the error code). */
    answers(): { action: string; qr_code: string | null; result: string }[] {
      return sqlite.prepare('select action, qr_code, result from events order by id').all() as {
        action: string;
        qr_code: string | null;
        result: string;
      }[];
    },
    /** Every answer the cloud gave with the key it was asked with: which box sent what, in a site's audit. */
    answersByKey(): { action: string; qr_code: string | null; result: string; key_name: string | null }[] {
      return sqlite.prepare('select action, qr_code, result, key_name from events order by id').all() as {
        action: string;
        qr_code: string | null;
        result: string;
        key_name: string | null;
      }[];
    },
    person(qr: string) {
      return sqlite
        .prepare(
          'select qr_code, checkin_em, checkin_dispositivo, checkin_operador, estornado_em from people where qr_code = ?',
        )
        .get(qr) as
        | {
            qr_code: string;
            checkin_em: string | null;
            checkin_dispositivo: string | null;
            checkin_operador: string | null;
            estornado_em: string | null;
          }
        | undefined;
    },
    async close() {
      await proxy.close();
      await closeBox();
      db.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

export type FakeCloud = Awaited<ReturnType<typeof startFakeCloud>>;
