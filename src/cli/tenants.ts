import { createTenant, DEMO_TENANT_SLUG, findTenant, listTenants, TenantExistsError } from '../tenants/tenants.repo.js';
import {
  checkSlug,
  configOf,
  EXIT,
  formatTable,
  localTime,
  parse,
  printHelp,
  say,
  UsageError,
  withDb,
  type CliIo,
} from './common.js';

/** `gate tenants list|create`: tenants are made explicitly, never by a typo in --tenant or GATE_TENANT. */
export async function tenantsCommand(args: string[], io: CliIo): Promise<number> {
  const [sub, ...rest] = args;
  switch (sub) {
    case 'list':
      return list(rest, io);
    case 'create':
      return create(rest, io);
    default:
      throw new UsageError(
        sub === undefined ? 'falta o subcomando: list ou create' : `subcomando desconhecido: tenants ${sub}`,
      );
  }
}

async function create(args: string[], io: CliIo): Promise<number> {
  const { values, positionals, help } = parse(
    args,
    { name: { type: 'string' } },
    { min: 1, max: 1, names: 'o SLUG do tenant' },
  );
  if (help) return printHelp(io, 'tenants create');
  const slug = checkSlug(positionals[0]!);
  if (slug === DEMO_TENANT_SLUG)
    throw new UsageError(`o slug "${DEMO_TENANT_SLUG}" é reservado ao parque de demonstração (gate demo)`);
  const nome = values.name?.trim() || slug;
  return withDb(configOf(io), ({ db, clock }) => {
    try {
      createTenant(db, { slug, nome, nowIso: clock.nowIso() });
    } catch (error) {
      if (!(error instanceof TenantExistsError)) throw error;
      say(io.stderr, `gate tenants create: ${error.message}`);
      return EXIT.failure;
    }
    say(io.stdout, `tenant ${slug} ("${nome}") criado`);
    if (findTenant(db, DEMO_TENANT_SLUG))
      say(
        io.stderr,
        `o tenant de demonstração "${DEMO_TENANT_SLUG}" continua neste banco: suas chaves passam a ser recusadas. Remova-o com: gate demo --remove`,
      );
    say(
      io.stderr,
      `próximos passos: gate import --tenant ${slug} ARQUIVO.json; gate keys create --tenant ${slug} --permissions ...; GATE_TENANT=${slug} no ambiente do serviço`,
    );
    return EXIT.ok;
  });
}

async function list(args: string[], io: CliIo): Promise<number> {
  if (parse(args, {}, { min: 0, max: 0, names: '' }).help) return printHelp(io, 'tenants list');
  return withDb(configOf(io), ({ db, clock }) => {
    const tenants = listTenants(db, clock.nowIso());
    if (tenants.length === 0) return (say(io.stdout, 'nenhum tenant; crie um com: gate tenants create SLUG'), EXIT.ok);
    const when = localTime(clock.timeZone);
    const hasPark = tenants.some((t) => t.slug !== DEMO_TENANT_SLUG);
    const note = (slug: string) =>
      slug !== DEMO_TENANT_SLUG ? '' : hasPark ? 'demonstração: chaves recusadas (gate demo --remove)' : 'demonstração';
    const rows = tenants.map((t) => [
      t.slug,
      t.nome,
      when(t.created_at),
      String(t.pedidos),
      String(t.chaves),
      String(t.operadores),
      note(t.slug),
    ]);
    for (const line of formatTable(['SLUG', 'NOME', 'CRIADO', 'PEDIDOS', 'CHAVES', 'OPERADORES', 'OBS'], rows))
      say(io.stdout, line.trimEnd());
    return EXIT.ok;
  });
}
