import crypto from 'node:crypto';
import { dummyKeyHash, generateKey, hashKey, keyShape } from '../auth/api-keys.js';
import type { Db } from '../db/open.js';

// Paired handhelds and their pairing tokens (migrations/0014_handheld.ts). A device's key looks like an API key
// with another prefix (hk_<12 hex id>_<43 base64url>) and, like one, only its SHA-256 is stored. It opens the
// handheld endpoints only: the API's guard knows nothing of it.

const KEY_SHAPE = keyShape('hk');
const DUMMY_HASH = dummyKeyHash('hk');
/** A device unseen this long while it said it had movements queued is an alarm (the console, /metrics). */
export const SILENT_ALARM_MINUTES = 15;
/** How long a pairing QR is good for. */
export const PAIRING_MINUTES = 10;

export interface Device {
  id: number;
  tenantId: number;
  name: string;
}

export interface DeviceRow {
  id: number;
  name: string;
  paired_at: string;
  paired_by: string;
  revoked_at: string | null;
  last_seen_at: string | null;
  app_version: string | null;
  data_at: string | null;
  queued: number;
  offline_today: number;
}

/** A one-time pairing token (shown once, in the console's QR); only its hash is kept. */
export function createPairing(db: Db, p: { tenantId: number; by: string; nowIso: string; expiresAt: string }) {
  const token = crypto.randomBytes(24).toString('base64url');
  db.statement(
    'INSERT INTO handheld_pairings (token_hash, tenant_id, created_by, created_at, expires_at) VALUES (?, ?, ?, ?, ?)',
  ).run(hashKey(token), p.tenantId, p.by, p.nowIso, p.expiresAt);
  return token;
}

export type PairOutcome =
  { kind: 'paired'; device: Device; key: string } | { kind: 'invalid' } | { kind: 'name-taken' };

/** Uses a pairing token once (inside the caller's transaction): the device and its key, shown only now. */
export function pairDevice(db: Db, p: { token: string; name: string; version: string; nowIso: string }): PairOutcome {
  const pairing = db
    .statement('SELECT tenant_id, created_by, expires_at, used_at FROM handheld_pairings WHERE token_hash = ?')
    .get(hashKey(p.token)) as
    { tenant_id: number; created_by: string; expires_at: string; used_at: string | null } | undefined;
  if (!pairing || pairing.used_at !== null || pairing.expires_at <= p.nowIso) return { kind: 'invalid' };
  const taken = db
    .statement('SELECT 1 FROM handheld_devices WHERE tenant_id = ? AND name = ? AND revoked_at IS NULL')
    .get(pairing.tenant_id, p.name);
  if (taken) return { kind: 'name-taken' };
  const { key, keyId, keyHash } = generateKey('hk');
  db.statement('UPDATE handheld_pairings SET used_at = ? WHERE token_hash = ?').run(p.nowIso, hashKey(p.token));
  const { lastInsertRowid } = db
    .statement(
      `INSERT INTO handheld_devices (tenant_id, name, key_id, key_hash, paired_at, paired_by, last_seen_at, app_version)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    )
    .run(pairing.tenant_id, p.name, keyId, keyHash, p.nowIso, pairing.created_by, p.nowIso, p.version);
  return { kind: 'paired', device: { id: Number(lastInsertRowid), tenantId: pairing.tenant_id, name: p.name }, key };
}

export type KeyCheck = { kind: 'ok'; device: Device } | { kind: 'invalid' } | { kind: 'revoked' };

/** The device behind a presented key; the secret is compared in constant time even when the id is unknown. */
export function checkDeviceKey(db: Db, presented: string): KeyCheck {
  const match = KEY_SHAPE.exec(presented);
  const row = match
    ? (db
        .statement('SELECT id, tenant_id, name, key_hash, revoked_at FROM handheld_devices WHERE key_id = ?')
        .get(match[1]!) as
        { id: number; tenant_id: number; name: string; key_hash: Buffer; revoked_at: string | null } | undefined)
    : undefined;
  const equal = crypto.timingSafeEqual(hashKey(presented), row ? row.key_hash : DUMMY_HASH);
  if (!row || !equal) return { kind: 'invalid' };
  if (row.revoked_at !== null) return { kind: 'revoked' };
  return { kind: 'ok', device: { id: row.id, tenantId: row.tenant_id, name: row.name } };
}

/** What a device last told of itself (PUT /api/handheld/estado), and that it was seen. */
export function recordDeviceState(
  db: Db,
  deviceId: number,
  s: { version: string; dataAt: string | null; queued: number; offlineToday: number; nowIso: string },
): void {
  db.statement(
    `UPDATE handheld_devices SET app_version = ?, data_at = ?, queued = ?, offline_today = ?, last_seen_at = ?
      WHERE id = ?`,
  ).run(s.version, s.dataAt, s.queued, s.offlineToday, s.nowIso, deviceId);
}

export const touchDevice = (db: Db, deviceId: number, nowIso: string) =>
  db.statement('UPDATE handheld_devices SET last_seen_at = ? WHERE id = ?').run(nowIso, deviceId);

export const listDevices = (db: Db, tenantId: number): DeviceRow[] =>
  db
    .statement(
      `SELECT id, name, paired_at, paired_by, revoked_at, last_seen_at, app_version, data_at, queued, offline_today
         FROM handheld_devices WHERE tenant_id = ? ORDER BY revoked_at IS NOT NULL, name, id`,
    )
    .all(tenantId) as DeviceRow[];

/** Revokes a device of the tenant; false when there is none (or it was revoked already). */
export const revokeDevice = (db: Db, tenantId: number, id: number, nowIso: string): boolean =>
  db
    .statement('UPDATE handheld_devices SET revoked_at = ? WHERE id = ? AND tenant_id = ? AND revoked_at IS NULL')
    .run(nowIso, id, tenantId).changes === 1;

/** The alarm: an active device that said it holds movements and has not been seen for SILENT_ALARM_MINUTES. */
export const silentWithQueue = (d: Pick<DeviceRow, 'revoked_at' | 'queued' | 'last_seen_at'>, nowMs: number) =>
  d.revoked_at === null &&
  d.queued > 0 &&
  (d.last_seen_at === null || nowMs - Date.parse(d.last_seen_at) > SILENT_ALARM_MINUTES * 60_000);
