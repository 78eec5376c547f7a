import { createApiKey, PERMISSIONS } from '../auth/api-keys.js';
import { createClock, type Clock } from '../clock.js';
import { all, first, run } from '../db/query.js';
import { dateString, timestamp } from '../lib/wire.js';
import { DEMO_TENANT_SLUG, realTenantSlugs } from '../tenants/tenants.repo.js';
import {
  configOf,
  EXIT,
  formatTable,
  localTime,
  parse,
  printHelp,
  requireTenant,
  say,
  tenantSlug,
  UsageError,
  withDb,
  type CliIo,
} from './common.js';

export async function keysCommand(args: string[], io: CliIo): Promise<number> {
  const [sub, ...rest] = args;
  switch (sub) {
    case 'create':
      return create(rest, io);
    case 'list':
      return list(rest, io);
    case 'revoke':
      return revoke(rest, io);
    default:
      throw new UsageError(
        sub === undefined ? 'falta o subcomando: create, list ou revoke' : `subcomando desconhecido: keys ${sub}`,
      );
  }
}

async function create(args: string[], io: CliIo): Promise<number> {
  const { values, help } = parse(
    args,
    {
      tenant: { type: 'string' },
      permissions: { type: 'string' },
      name: { type: 'string' },
      expires: { type: 'string' },
    },
    { min: 0, max: 0, names: '' },
  );
  if (help) return printHelp(io, 'keys create');
  if (!values.permissions) throw new UsageError(`informe --permissions (${PERMISSIONS.join(', ')})`);
  const permissions = values.permissions
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean);
  const unknown = permissions.filter((p) => !(PERMISSIONS as readonly string[]).includes(p));
  if (unknown.length > 0 || permissions.length === 0)
    throw new UsageError(
      `permissões desconhecidas: ${unknown.join(', ') || '(nenhuma)'}; use ${PERMISSIONS.join(', ')}`,
    );
  const name = values.name?.trim() || 'cli';
  const config = configOf(io);
  const slug = tenantSlug(values.tenant, config);
  const expiresAt = values.expires === undefined ? null : expiry(values.expires, createClock(config.timeZone));

  return withDb(config, ({ db, clock }) => {
    const nowIso = clock.nowIso();
    const tenant = requireTenant(db, slug);
    const parks = slug === DEMO_TENANT_SLUG ? realTenantSlugs(db) : [];
    if (parks.length > 0) {
      say(
        io.stderr,
        `gate keys create: o tenant ${slug} é o de demonstração e este banco tem um parque real (${parks.join(', ')}): suas chaves são recusadas. Remova-o com: gate demo --remove`,
      );
      return EXIT.failure;
    }
    const created = db.sqlite
      .transaction(() => createApiKey(db, { tenantId: tenant.id, name, permissions, nowIso, expiresAt }))
      .immediate();
    // The key itself is the only thing on stdout, so `KEY=$(gate keys create ...)` just works.
    say(io.stdout, created.key);
    say(
      io.stderr,
      `chave ${created.keyId} ("${name}") criada para o tenant ${slug}: ${permissions.join(', ')}${expiresAt ? `; expira em ${expiresAt}` : ''}`,
    );
    say(io.stderr, 'guarde-a agora: ela não poderá ser exibida de novo');
    return EXIT.ok;
  });
}

/** --expires: an ISO timestamp, or a date meaning the start of that day in the park's time zone. */
function expiry(value: string, clock: Clock): string {
  let at: Date;
  if (dateString.safeParse(value).success) at = clock.startOfLocalDate(value);
  else if (timestamp.safeParse(value).success) at = new Date(value);
  else throw new UsageError(`--expires inválido: "${value}" (use YYYY-MM-DD ou um timestamp ISO 8601)`);
  if (at.getTime() <= clock.now().getTime()) throw new UsageError(`--expires já passou: ${at.toISOString()}`);
  return at.toISOString();
}

async function list(args: string[], io: CliIo): Promise<number> {
  const { values, help } = parse(args, { tenant: { type: 'string' } }, { min: 0, max: 0, names: '' });
  if (help) return printHelp(io, 'keys list');
  const config = configOf(io);
  const slug = values.tenant === undefined ? undefined : tenantSlug(values.tenant, config);
  return withDb(config, ({ db, clock }) => {
    const k = db.kysely;
    let q = k
      .selectFrom('api_keys')
      .innerJoin('tenants', 'tenants.id', 'api_keys.tenant_id')
      // Never the hash: the listing has no column that could leak the key.
      .select([
        'api_keys.key_id',
        'tenants.slug',
        'api_keys.name',
        'api_keys.permissions',
        'api_keys.created_at',
        'api_keys.expires_at',
        'api_keys.revoked_at',
      ])
      .orderBy('tenants.slug')
      .orderBy('api_keys.id');
    if (slug !== undefined) q = q.where('tenants.id', '=', requireTenant(db, slug).id);
    const rows = all(db, q);
    if (rows.length === 0) return (say(io.stdout, 'nenhuma chave'), EXIT.ok);
    const when = localTime(clock.timeZone);
    const nowIso = clock.nowIso();
    const table = rows.map((r) => [
      r.key_id,
      r.slug,
      r.name,
      (JSON.parse(r.permissions) as string[]).join(','),
      when(r.created_at),
      r.expires_at ? `${when(r.expires_at)}${r.expires_at <= nowIso ? ' (expirada)' : ''}` : '-',
      r.revoked_at ? when(r.revoked_at) : '-',
    ]);
    for (const line of formatTable(['ID', 'TENANT', 'NOME', 'PERMISSÕES', 'CRIADA', 'EXPIRA', 'REVOGADA'], table))
      say(io.stdout, line);
    return EXIT.ok;
  });
}

async function revoke(args: string[], io: CliIo): Promise<number> {
  const { positionals, help } = parse(
    args,
    {},
    { min: 1, max: 1, names: 'KEY_ID (o id de 12 hex mostrado por gate keys list)' },
  );
  if (help) return printHelp(io, 'keys revoke');
  const given = positionals[0]!.trim();
  const keyId = /^[0-9a-f]{12}$/.exec(given)?.[0] ?? /^gk_([0-9a-f]{12})_/.exec(given)?.[1];
  if (!keyId)
    throw new UsageError('KEY_ID deve ser o id de 12 caracteres hexadecimais (veja gate keys list) ou a chave inteira');
  return withDb(configOf(io), ({ db, clock }) => {
    const k = db.kysely;
    const row = first(
      db,
      k
        .selectFrom('api_keys')
        .innerJoin('tenants', 'tenants.id', 'api_keys.tenant_id')
        .select(['api_keys.id', 'api_keys.revoked_at', 'tenants.slug'])
        .where('key_id', '=', keyId),
    );
    if (!row) {
      say(io.stderr, `gate: chave ${keyId} não encontrada`);
      return EXIT.failure;
    }
    if (row.revoked_at) {
      say(io.stdout, `chave ${keyId} (tenant ${row.slug}) já estava revogada desde ${row.revoked_at}`);
      return EXIT.ok;
    }
    run(
      db,
      k
        .updateTable('api_keys')
        .set({ revoked_at: clock.nowIso() })
        .where('id', '=', row.id)
        .where('revoked_at', 'is', null),
    );
    say(io.stdout, `chave ${keyId} (tenant ${row.slug}) revogada`);
    return EXIT.ok;
  });
}
