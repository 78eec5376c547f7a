import type { Writable } from 'node:stream';
import { createApiKey } from '../auth/api-keys.js';
import { clienteRecordSchema } from '../clients/client.schemas.js';
import { upsertClient } from '../clients/clients.repo.js';
import type { Clock } from '../clock.js';
import { availabilitySchema, comboSchema } from '../combos/combo.schemas.js';
import { upsertAvailability, upsertCombo } from '../combos/combos.repo.js';
import type { Db } from '../db/open.js';
import { first } from '../db/query.js';
import { pedidoSchema } from '../orders/order.schemas.js';
import { upsertOrder } from '../orders/orders.repo.js';
import { ensureTenant } from '../tenants/tenants.repo.js';
import { createOperator } from '../operators/operators.repo.js';
import { demoAvailability, demoClients, demoCombo, demoNumero, demoOrders } from './demo-data.js';

export const DEMO_TENANT_NOME = 'Parque Demonstração';
export const DEMO_CHECKIN_PERMISSIONS = ['vouchers:checkin', 'vouchers:read', 'clientes:read'];
export const DEMO_COMBOS_PERMISSIONS = ['integration:combos:read'];

export interface DemoKeys {
  /** vouchers:checkin, vouchers:read, clientes:read */
  checkin: string;
  /** integration:combos:read */
  combos: string;
}

export interface DemoSeed {
  tenantId: number;
  tenantSlug: string;
  keys: DemoKeys;
  /** A QR of today's paid orders that has no check-in yet, for the sample curl. */
  sampleQr: string;
}

/** True on a box with no tenant at all: the state a fresh clone starts in. */
export function isEmptyBox(db: Db): boolean {
  return first(db, db.kysely.selectFrom('tenants').select('id').limit(1)) === undefined;
}

/**
 * Creates (or refreshes) the demo park: orders for today and tomorrow in the tenant's time zone, a
 * combo with availability, clients, and two new keys. Everything goes through the import's schemas
 * and upserts; seeding again the same day updates the same records and keeps their check-ins.
 */
export function seedDemo({ db, clock, tenantSlug = 'demo' }: { db: Db; clock: Clock; tenantSlug?: string }): DemoSeed {
  const today = clock.today();
  const nowIso = clock.nowIso();
  return db.sqlite
    .transaction(() => {
      const tenantId = ensureTenant(db, tenantSlug, nowIso, DEMO_TENANT_NOME);
      upsertCombo(db, tenantId, comboSchema.parse(demoCombo()), nowIso);
      upsertAvailability(db, tenantId, availabilitySchema.parse(demoAvailability(today)), nowIso);
      for (const c of demoClients()) upsertClient(db, tenantId, clienteRecordSchema.parse(c), nowIso);
      for (const p of demoOrders(today, nowIso)) upsertOrder(db, tenantId, pedidoSchema.parse(p), nowIso);
      const key = (name: string, permissions: string[]) =>
        createApiKey(db, { tenantId, name, permissions, nowIso }).key;
      const keys = {
        checkin: key('demo-catraca', DEMO_CHECKIN_PERMISSIONS),
        combos: key('demo-loja', DEMO_COMBOS_PERMISSIONS),
      };
      return { tenantId, tenantSlug, keys, sampleQr: sampleQr(db, tenantId, today) };
    })
    .immediate();
}

/** The demo park and a supervisor for the console, whose one-time PIN is shown with the keys. */
export async function seedDemoWithOperator(db: Db, clock: Clock): Promise<DemoSeed & { operator: DemoOperator }> {
  const seed = seedDemo({ db, clock });
  const { pin } = await createOperator(db, {
    tenantId: seed.tenantId,
    nome: DEMO_OPERATOR,
    papel: 'supervisor',
    nowIso: clock.nowIso(),
  });
  return { ...seed, operator: { nome: DEMO_OPERATOR, pin: pin! } };
}

export const DEMO_OPERATOR = 'Supervisor';

export interface DemoOperator {
  nome: string;
  pin: string;
}

function sampleQr(db: Db, tenantId: number, today: string): string {
  const k = db.kysely;
  const today1 = demoNumero(today, 1);
  const free = first(
    db,
    k
      .selectFrom('people')
      .innerJoin('orders', 'orders.id', 'people.order_id')
      .innerJoin('lots', 'lots.id', 'people.lot_id')
      .select('people.qr_code')
      .where('people.tenant_id', '=', tenantId)
      .where('orders.status', '=', 'pago')
      .where('lots.data_uso', '=', today)
      .where('people.checkin_em', 'is', null)
      .orderBy('orders.numero_pedido')
      .orderBy('people.id')
      .limit(1),
  );
  if (free) return free.qr_code;
  // Everyone of today already went in: the curl will show TICKET_ALREADY_USED, which is a fine demo too.
  return first(
    db,
    k
      .selectFrom('people')
      .innerJoin('orders', 'orders.id', 'people.order_id')
      .select('people.qr_code')
      .where('people.tenant_id', '=', tenantId)
      .where('orders.numero_pedido', '=', today1)
      .orderBy('people.id')
      .limit(1),
  )!.qr_code;
}

/** 0.0.0.0 and :: are where the server listens, not an address to send a request to. */
function reachable(url: string): string {
  const u = new URL(url);
  if (u.hostname === '0.0.0.0' || u.hostname === '[::]' || u.hostname === '::') u.hostname = 'localhost';
  return u.origin;
}

/** The demo keys and ready-to-paste requests. Written to stdout only, never to the log. */
export function printDemoBanner(
  out: Writable,
  { url, keys, sampleQr, operator }: { url: string; keys: DemoKeys; sampleQr: string; operator?: DemoOperator },
): void {
  const base = reachable(url);
  const body = JSON.stringify({ qr_code: sampleQr, terminal: 'catraca-1' });
  const lines = [
    '',
    '──────────────── Modo demonstração: tenant "demo" (Parque Demonstração) ────────────────',
    '',
    ...(operator
      ? [`Console da portaria: ${base}/console`, `  operador "${operator.nome}", PIN ${operator.pin} (supervisor)`, '']
      : []),
    `Chave de check-in (${DEMO_CHECKIN_PERMISSIONS.join(', ')}):`,
    `  ${keys.checkin}`,
    `Chave de combos (${DEMO_COMBOS_PERMISSIONS.join(', ')}):`,
    `  ${keys.combos}`,
    '',
    'Check-in de um ingresso de hoje:',
    `  curl -s -X POST ${base}/api/v1/api-qrcode-checkin -H 'Content-Type: application/json' -H 'X-API-Key: ${keys.checkin}' -d '${body}'`,
    '',
    'Pedidos (sem marcar como sincronizados):',
    `  curl -s '${base}/api/v1/api-vouchers?marcar_sincronizado=false' -H 'X-API-Key: ${keys.checkin}'`,
    '',
    'Combos:',
    `  curl -s ${base}/api/integration/combos -H 'X-Integration-Key: ${keys.combos}'`,
    '',
    'Estas chaves não são mostradas de novo. Para usar um parque real: `gate tenants create <slug>`, `gate import`,',
    'GATE_TENANT=<slug> e, por fim, `gate demo --remove` (com um parque real, as chaves da demonstração são recusadas).',
    '─'.repeat(88),
    '',
  ];
  out.write(lines.join('\n') + '\n');
}
