import crypto from 'node:crypto';
import { sql } from 'kysely';
import type { Db } from '../db/open.js';
import { defineQuery, run } from '../db/query.js';
import { demoRetiredSql } from '../tenants/tenants.repo.js';

export const PERMISSIONS = [
  'vouchers:checkin',
  'checkin',
  'vouchers:read',
  'clientes:read',
  'integration:combos:read',
  'local:read',
  'all',
] as const;
export type Permission = (typeof PERMISSIONS)[number];

/** Who is calling: the key's tenant and name (for the event log) and its permissions. */
export interface Caller {
  apiKeyId: number;
  keyName: string;
  tenantId: number;
  tenantSlug: string;
  permissions: readonly string[];
}

// Keys look like gk_<12 hex id>_<43 base64url secret> (a handheld's: hk_, src/handheld/devices.repo.ts). The id
// finds the row; only the SHA-256 of the whole key is stored, compared in constant time. The key is high-entropy, so
// a fast hash is enough.
export const keyShape = (prefix: string) => new RegExp(`^${prefix}_([0-9a-f]{12})_[A-Za-z0-9_-]{43}$`);
export const hashKey = (key: string) => crypto.createHash('sha256').update(key).digest();
/** What a presented key is compared with when its id matches no row, so a miss costs what a wrong secret does. */
export const dummyKeyHash = (prefix: string) => hashKey(`${prefix}_000000000000_${'x'.repeat(43)}`);
const KEY_SHAPE = keyShape('gk');
const DUMMY_HASH = dummyKeyHash('gk');

export function generateKey(prefix = 'gk'): { key: string; keyId: string; keyHash: Buffer } {
  const keyId = crypto.randomBytes(6).toString('hex');
  const key = `${prefix}_${keyId}_${crypto.randomBytes(32).toString('base64url')}`;
  return { key, keyId, keyHash: hashKey(key) };
}

export function createApiKey(
  db: Db,
  input: { tenantId: number; name: string; permissions: readonly string[]; nowIso: string; expiresAt?: string | null },
): { id: number; key: string; keyId: string } {
  const unknown = input.permissions.filter((p) => !(PERMISSIONS as readonly string[]).includes(p));
  if (unknown.length > 0)
    throw new Error(`Permissões desconhecidas: ${unknown.join(', ')}. Use: ${PERMISSIONS.join(', ')}`);
  if (input.permissions.length === 0) throw new Error('Informe ao menos uma permissão.');
  const { key, keyId, keyHash } = generateKey();
  const res = run(
    db,
    db.kysely.insertInto('api_keys').values({
      tenant_id: input.tenantId,
      name: input.name,
      key_id: keyId,
      key_hash: keyHash,
      permissions: JSON.stringify([...new Set(input.permissions)]),
      created_at: input.nowIso,
      expires_at: input.expiresAt ?? null,
      revoked_at: null,
    }),
  );
  return { id: Number(res.lastInsertRowid), key, keyId };
}

const keyLookup = defineQuery((k, p: { keyId: string }) =>
  k
    .selectFrom('api_keys')
    .innerJoin('tenants', 'tenants.id', 'api_keys.tenant_id')
    .select([
      'api_keys.id',
      'api_keys.name',
      'api_keys.key_hash',
      'api_keys.permissions',
      'api_keys.expires_at',
      'api_keys.revoked_at',
      'api_keys.tenant_id',
      'tenants.slug',
    ])
    // A demo key beside a real park is refused: its QRs are predictable and it would let a
    // misconfigured handheld "grant" entries that no park sold (docs/cli.md, "demo").
    .select(sql.raw<number>(demoRetiredSql('tenants.slug')).as('demo_retired'))
    .where('api_keys.key_id', '=', p.keyId),
);
type KeyRow = NonNullable<ReturnType<typeof keyLookup.get>>;

/** Random key ids must not grow the cache without bound: past this many it starts over. */
const MAX_CACHED_KEYS = 10_000;

/**
 * The caller behind a presented key, or null when it is unknown, revoked or expired. Key rows are
 * cached by key id (the lookup would otherwise be a join on every request). Keys are issued and
 * revoked by the CLI, another connection, whose commits change `PRAGMA data_version`: the cache is
 * dropped then, so a revoked key is refused from the first request after the CLI's commit; so is a
 * demo key from the first request after `gate tenants create` made a real park. The pragma is asked
 * once per turn of the event loop, not per request: it takes and drops a read lock on the WAL (system
 * calls: 1.1 µs alone, 5 % of the HTTP door's samples in a profile under load), and requests read in
 * the same turn arrived together, before any answer. A change made on this same connection does not change
 * it: code that ever revokes keys in-process must use a new verifier.
 */
export function createKeyVerifier(db: Db): (presented: string, nowIso: string) => Caller | null {
  const dataVersion = () => (db.statement('PRAGMA data_version').get() as { data_version: number }).data_version;
  let version = dataVersion();
  let askedThisTurn = false;
  const forget = () => {
    askedThisTurn = false;
  };
  /** null: looked up, no such key id (cached too, so an unknown id costs what a known one does). */
  const rows = new Map<string, KeyRow | null>();
  // A key once verified is remembered whole, until the keys change: no SHA-256 or JSON per request (issue 25). Only
  // keys that verified are kept (a guess is hashed and compared every time), so only a holder of the whole secret
  // ever hits it; their expiry is still read on every request.
  const verified = new Map<string, { caller: Caller; expiresAt: string | null }>();
  return (presented, nowIso) => {
    const now = askedThisTurn ? version : dataVersion();
    if (!askedThisTurn) {
      askedThisTurn = true;
      setImmediate(forget);
    }
    if (now !== version) {
      version = now;
      rows.clear();
      verified.clear();
    }
    const known = verified.get(presented);
    if (known) return known.expiresAt !== null && known.expiresAt <= nowIso ? null : known.caller;
    const match = KEY_SHAPE.exec(presented);
    let row = match ? rows.get(match[1]!) : null;
    if (match && row === undefined) {
      row = keyLookup.get(db, { keyId: match[1]! }) ?? null;
      if (rows.size >= MAX_CACHED_KEYS) rows.clear();
      rows.set(match[1]!, row);
    }
    // Compare even when nothing matched, so a miss costs the same as a wrong secret.
    const equal = crypto.timingSafeEqual(hashKey(presented), row ? row.key_hash : DUMMY_HASH);
    if (!row || !equal || row.revoked_at !== null || row.demo_retired) return null;
    const caller: Caller = Object.freeze({
      apiKeyId: row.id,
      keyName: row.name,
      tenantId: row.tenant_id,
      tenantSlug: row.slug,
      permissions: Object.freeze(JSON.parse(row.permissions) as string[]),
    });
    if (verified.size >= MAX_CACHED_KEYS) verified.clear();
    verified.set(presented, { caller, expiresAt: row.expires_at });
    return row.expires_at !== null && row.expires_at <= nowIso ? null : caller;
  };
}

/** `all` is the superkey: it grants every permission. `local:read` is the box's own: the /api/local endpoints. */
export const hasAnyPermission = (caller: Caller, wanted: readonly string[]) =>
  caller.permissions.includes('all') || wanted.some((p) => caller.permissions.includes(p));
