import { randomBytes, randomInt, scrypt, timingSafeEqual } from 'node:crypto';
import type { Db } from '../db/open.js';

// Local operator accounts of the staff console (docs/console.md). Secrets (a one-time PIN printed at
// creation, or a password) are kept as scrypt hashes; scrypt runs on libuv's thread pool, never on
// the event loop.

export type Papel = 'atendente' | 'supervisor';
export const PAPEIS = ['atendente', 'supervisor'] as const satisfies readonly Papel[];

/** Wrong secrets in a row that lock an account, and for how long. */
export const MAX_ATTEMPTS = 5;
export const LOCK_MS = 5 * 60_000;

const SCRYPT = { N: 16_384, r: 8, p: 1, maxmem: 64 * 1024 * 1024 };
const KEY_LENGTH = 32;

function derive(secret: string, salt: Buffer): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scrypt(secret.normalize('NFKC'), salt, KEY_LENGTH, SCRYPT, (err, key) => (err ? reject(err) : resolve(key))),
  );
}

export async function hashSecret(secret: string): Promise<string> {
  const salt = randomBytes(16);
  return `scrypt$${SCRYPT.N}$${SCRYPT.r}$${SCRYPT.p}$${salt.toString('base64')}$${(await derive(secret, salt)).toString('base64')}`;
}

/** Compares in constant time; a malformed hash never matches. */
export async function verifySecret(secret: string, stored: string): Promise<boolean> {
  const [kind, , , , salt, hash] = stored.split('$');
  if (kind !== 'scrypt' || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64');
  const actual = await derive(secret, Buffer.from(salt, 'base64'));
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}

/** A hash nobody's secret matches: an unknown name costs the same scrypt as a known one. */
export const UNKNOWN_OPERATOR_HASH = `scrypt$${SCRYPT.N}$${SCRYPT.r}$${SCRYPT.p}$${randomBytes(16).toString('base64')}$${randomBytes(KEY_LENGTH).toString('base64')}`;

/** Six digits, from a CSPRNG. */
export const newPin = () => String(randomInt(0, 1_000_000)).padStart(6, '0');

export interface OperatorRow {
  id: number;
  tenant_id: number;
  nome: string;
  papel: Papel;
  secret_hash: string;
  failed_attempts: number;
  locked_until: string | null;
  disabled_at: string | null;
  created_at: string;
}

/**
 * Creates an operator with the secret given, or a new one-time PIN (returned once, never stored in
 * clear). A name already used in the tenant (case ignored) is an error with a Portuguese message.
 */
export async function createOperator(
  db: Db,
  opts: { tenantId: number; nome: string; papel: Papel; segredo?: string | undefined; nowIso: string },
): Promise<{ id: number; pin: string | null }> {
  const nome = opts.nome.trim();
  if (nome === '' || nome.length > 80) throw new Error('nome do operador: de 1 a 80 caracteres');
  if (opts.segredo !== undefined && opts.segredo.length < 4)
    throw new Error('a senha precisa de pelo menos 4 caracteres');
  const pin = opts.segredo === undefined ? newPin() : null;
  const secretHash = await hashSecret(opts.segredo ?? pin!);
  if (operatorByName(db, opts.tenantId, nome)) throw new Error(`já existe um operador chamado "${nome}" neste tenant`);
  const res = db
    .statement('INSERT INTO operators (tenant_id, nome, papel, secret_hash, created_at) VALUES (?, ?, ?, ?, ?)')
    .run(opts.tenantId, nome, opts.papel, secretHash, opts.nowIso);
  return { id: Number(res.lastInsertRowid), pin };
}

export function operatorByName(db: Db, tenantId: number, nome: string): OperatorRow | undefined {
  return db
    .statement('SELECT * FROM operators WHERE tenant_id = ? AND nome = ? COLLATE NOCASE')
    .get(tenantId, nome.trim()) as OperatorRow | undefined;
}

export function operatorById(db: Db, id: number): OperatorRow | undefined {
  return db.statement('SELECT * FROM operators WHERE id = ?').get(id) as OperatorRow | undefined;
}

export function listOperators(db: Db, tenantId: number): OperatorRow[] {
  return db
    .statement('SELECT * FROM operators WHERE tenant_id = ? ORDER BY nome COLLATE NOCASE')
    .all(tenantId) as OperatorRow[];
}

/**
 * A wrong secret: counts it, and locks the account at the MAX_ATTEMPTS-th in a row. Returns the lock's end, if locked.
 */
export function recordFailure(db: Db, id: number, now: Date): string | null {
  const row = operatorById(db, id);
  if (!row) return null;
  const attempts = row.failed_attempts + 1;
  const lockedUntil = attempts >= MAX_ATTEMPTS ? new Date(now.getTime() + LOCK_MS).toISOString() : null;
  db.statement('UPDATE operators SET failed_attempts = ?, locked_until = ? WHERE id = ?').run(
    lockedUntil ? 0 : attempts,
    lockedUntil,
    id,
  );
  return lockedUntil;
}

export function recordSuccess(db: Db, id: number): void {
  db.statement('UPDATE operators SET failed_attempts = 0, locked_until = NULL WHERE id = ?').run(id);
}

/** Disables an operator of the tenant and ends their sessions; false when there is none. */
export function disableOperator(db: Db, tenantId: number, id: number, nowIso: string): boolean {
  return db.sqlite.transaction(() => {
    const res = db
      .statement('UPDATE operators SET disabled_at = coalesce(disabled_at, ?) WHERE id = ? AND tenant_id = ?')
      .run(nowIso, id, tenantId);
    db.statement('DELETE FROM console_sessions WHERE operator_id = ?').run(id);
    return res.changes > 0;
  })();
}
