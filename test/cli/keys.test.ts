import fs from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createKeyVerifier } from '../../src/auth/api-keys.js';
import { gate, openData } from './run.js';
import { tempDir } from '../support/box.js';

let dir: string;
beforeEach(async () => {
  dir = tempDir('gate-keys-');
  for (const slug of ['parque', 'lagoa', 'outro']) expect((await gate(dir, ['tenants', 'create', slug])).code).toBe(0);
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

const create = (...extra: string[]) =>
  gate(dir, ['keys', 'create', '--tenant', 'parque', '--permissions', 'vouchers:checkin,vouchers:read', ...extra]);

function verify(key: string) {
  const db = openData(dir);
  try {
    return createKeyVerifier(db)(key, new Date().toISOString());
  } finally {
    db.close();
  }
}

describe('gate keys', () => {
  it('create prints only the new key on stdout, and the key works for its tenant', async () => {
    const res = await create('--name', 'catraca-norte');

    expect(res.code).toBe(0);
    expect(res.stdout).toMatch(/^gk_[0-9a-f]{12}_[A-Za-z0-9_-]{43}\n$/);
    expect(res.stderr).not.toContain(res.stdout.trim());
    expect(verify(res.stdout.trim())).toMatchObject({
      tenantSlug: 'parque',
      keyName: 'catraca-norte',
      permissions: ['vouchers:checkin', 'vouchers:read'],
    });
  });

  it('create takes the tenant from GATE_TENANT when --tenant is absent', async () => {
    const res = await gate(dir, ['keys', 'create', '--permissions', 'all'], { env: { GATE_TENANT: 'lagoa' } });
    expect(res.code).toBe(0);
    expect(verify(res.stdout.trim())?.tenantSlug).toBe('lagoa');
  });

  it('create with --expires gives a key that stops working at that time', async () => {
    const res = await create('--expires', '2999-01-01T00:00:00Z');
    expect(res.code).toBe(0);
    const db = openData(dir);
    try {
      const key = res.stdout.trim();
      expect(createKeyVerifier(db)(key, '2998-12-31T23:59:59.000Z')).not.toBeNull();
      expect(createKeyVerifier(db)(key, '2999-01-01T00:00:00.000Z')).toBeNull();
    } finally {
      db.close();
    }
  });

  it('one verifier remembers a verified key, yet refuses it once expired, refuses a wrong secret of the same id, and forgets it when the CLI revokes it', async () => {
    const res = await create('--expires', '2999-01-01T00:00:00Z', '--name', 'lembrada');
    const key = res.stdout.trim();
    const db = openData(dir);
    try {
      const verifyOnce = createKeyVerifier(db);
      const tick = () => new Promise((r) => setImmediate(r)); // data_version is asked once per turn
      expect(verifyOnce(key, '2998-12-31T23:59:59.000Z')?.keyName).toBe('lembrada');
      expect(verifyOnce(key, '2998-12-31T23:59:59.500Z')?.keyName).toBe('lembrada');
      expect(verifyOnce(key, '2999-01-01T00:00:00.000Z')).toBeNull();
      const wrong = `${key.slice(0, -1)}${key.endsWith('A') ? 'B' : 'A'}`;
      expect(verifyOnce(wrong, '2998-12-31T23:59:59.000Z')).toBeNull();
      const id = key.split('_')[1]!;
      expect((await gate(dir, ['keys', 'revoke', id])).code).toBe(0);
      await tick();
      expect(verifyOnce(key, '2998-12-31T23:59:59.000Z')).toBeNull();
    } finally {
      db.close();
    }
  });

  it('create refuses unknown permissions, a past expiry and a missing tenant, with exit code 2 and no key', async () => {
    const unknown = await gate(dir, [
      'keys',
      'create',
      '--tenant',
      'parque',
      '--permissions',
      'vouchers:checkin,admin',
    ]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('permissões desconhecidas: admin');
    expect(unknown.stdout).toBe('');

    const past = await create('--expires', '2020-01-01');
    expect(past.code).toBe(2);
    expect(past.stderr).toContain('--expires já passou');

    const noTenant = await gate(dir, ['keys', 'create', '--permissions', 'all']);
    expect(noTenant.code).toBe(2);
    expect(noTenant.stderr).toContain('informe --tenant SLUG');
  });

  it('create never makes a tenant: an unknown one exits 1 naming the known ones, and no key is made', async () => {
    const res = await gate(dir, ['keys', 'create', '--tenant', 'parqe', '--permissions', 'all']);
    expect(res.code).toBe(1);
    expect(res.stdout).toBe('');
    expect(res.stderr).toContain(
      'tenant "parqe" não existe; conhecidos: lagoa, outro, parque. Crie com: gate tenants create parqe',
    );
    expect((await gate(dir, ['keys', 'list'])).stdout).toBe('nenhuma chave\n');
  });

  it('list shows id, tenant, name, permissions and dates, but never a key or its hash', async () => {
    const a = (await create('--name', 'catraca-1')).stdout.trim();
    const b = (
      await gate(dir, [
        'keys',
        'create',
        '--tenant',
        'outro',
        '--permissions',
        'integration:combos:read',
        '--name',
        'loja',
      ])
    ).stdout.trim();

    const all = await gate(dir, ['keys', 'list']);
    expect(all.code).toBe(0);
    const [header, ...rows] = all.stdout.trim().split('\n');
    expect(header).toMatch(/^ID\s+TENANT\s+NOME\s+PERMISSÕES\s+CRIADA\s+EXPIRA\s+REVOGADA$/);
    expect(rows).toHaveLength(2);
    expect(rows.find((r) => r.includes('catraca-1'))).toMatch(
      new RegExp(
        `^${a.slice(3, 15)}\\s+parque\\s+catraca-1\\s+vouchers:checkin,vouchers:read\\s+\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}\\s+-\\s+-$`,
      ),
    );
    for (const key of [a, b]) {
      expect(all.stdout).not.toContain(key);
      expect(all.stdout).not.toContain(key.slice(16, 30));
    }

    const one = await gate(dir, ['keys', 'list', '--tenant', 'outro']);
    expect(one.stdout).toContain('loja');
    expect(one.stdout).not.toContain('catraca-1');
  });

  it('revoke by id makes the key rejected and the list shows when', async () => {
    const key = (await create()).stdout.trim();
    const keyId = key.slice(3, 15);
    expect(verify(key)).not.toBeNull();

    const res = await gate(dir, ['keys', 'revoke', keyId]);
    expect(res.code).toBe(0);
    expect(res.stdout).toContain(`chave ${keyId} (tenant parque) revogada`);
    expect(verify(key)).toBeNull();
    expect((await gate(dir, ['keys', 'list'])).stdout).toMatch(new RegExp(`^${keyId}.*\\d{2}:\\d{2}$`, 'm'));

    const again = await gate(dir, ['keys', 'revoke', keyId]);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('já estava revogada');
  });

  it('revoke accepts the whole key, and an unknown id is an error', async () => {
    const key = (await create()).stdout.trim();
    expect((await gate(dir, ['keys', 'revoke', key])).code).toBe(0);
    expect(verify(key)).toBeNull();

    const unknown = await gate(dir, ['keys', 'revoke', '0123456789ab']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('chave 0123456789ab não encontrada');

    const malformed = await gate(dir, ['keys', 'revoke', 'nao-e-um-id']);
    expect(malformed.code).toBe(2);
  });
});
