import { createOperator, disableOperator, listOperators, PAPEIS, type Papel } from '../operators/operators.repo.js';
import {
  configOf,
  EXIT,
  parse,
  printHelp,
  requireTenant,
  say,
  tenantSlug,
  UsageError,
  withDb,
  type CliIo,
} from './common.js';

/** `gate operators add|list|disable`: the staff console's local accounts (docs/console.md). */
export async function operatorsCommand(args: string[], io: CliIo): Promise<number> {
  const [sub, ...rest] = args;
  switch (sub) {
    case 'add':
      return add(rest, io);
    case 'list':
      return list(rest, io);
    case 'disable':
      return disable(rest, io);
    default:
      throw new UsageError(
        sub === undefined ? 'falta o subcomando: add, list ou disable' : `subcomando desconhecido: operators ${sub}`,
      );
  }
}

async function add(args: string[], io: CliIo): Promise<number> {
  const { values, help } = parse(
    args,
    { tenant: { type: 'string' }, name: { type: 'string' }, role: { type: 'string' }, password: { type: 'boolean' } },
    { min: 0, max: 0, names: '' },
  );
  if (help) return printHelp(io, 'operators add');
  const name = values.name?.trim();
  if (!name) throw new UsageError('informe --name "NOME"');
  if (!(PAPEIS as readonly string[]).includes(values.role ?? ''))
    throw new UsageError(`informe --role ${PAPEIS.join('|')}`);
  // A password is read from standard input (never from the command line, which `ps` shows).
  const password = values.password ? (await readAll(io.stdin)).replace(/\r?\n$/, '') : undefined;
  if (values.password && (password ?? '').length < 4)
    throw new UsageError('a senha (na entrada padrão) precisa de pelo menos 4 caracteres');
  const config = configOf(io);
  const slug = tenantSlug(values.tenant, config);
  return withDb(config, async ({ db, clock }) => {
    const tenant = requireTenant(db, slug);
    const { id, pin } = await createOperator(db, {
      tenantId: tenant.id,
      nome: name,
      papel: values.role as Papel,
      segredo: password,
      nowIso: clock.nowIso(),
    });
    if (pin) say(io.stdout, pin);
    say(
      io.stderr,
      `operador ${id} ("${name}", ${values.role}) criado no tenant ${slug}${pin ? ': o PIN acima é de uso pessoal e não será exibido de novo' : ' com a senha informada'}`,
    );
    return EXIT.ok;
  });
}

async function list(args: string[], io: CliIo): Promise<number> {
  const { values, help } = parse(args, { tenant: { type: 'string' } }, { min: 0, max: 0, names: '' });
  if (help) return printHelp(io, 'operators list');
  const config = configOf(io);
  const slug = tenantSlug(values.tenant, config);
  return withDb(config, ({ db, clock }) => {
    const tenant = requireTenant(db, slug);
    const now = clock.now().getTime();
    for (const o of listOperators(db, tenant.id)) {
      const state = o.disabled_at
        ? `desativado em ${o.disabled_at}`
        : o.locked_until && Date.parse(o.locked_until) > now
          ? `bloqueado até ${o.locked_until}`
          : 'ativo';
      say(io.stdout, `${o.id}\t${o.nome}\t${o.papel}\t${state}`);
    }
    return EXIT.ok;
  });
}

async function disable(args: string[], io: CliIo): Promise<number> {
  const { values, positionals, help } = parse(args, { tenant: { type: 'string' } }, { min: 1, max: 1, names: 'ID' });
  if (help) return printHelp(io, 'operators disable');
  const id = Number(positionals[0]);
  if (!Number.isInteger(id) || id < 1) throw new UsageError(`id inválido: ${positionals[0]}`);
  const config = configOf(io);
  const slug = tenantSlug(values.tenant, config);
  return withDb(config, ({ db, clock }) => {
    const tenant = requireTenant(db, slug);
    if (!disableOperator(db, tenant.id, id, clock.nowIso())) {
      say(io.stderr, `operador ${id} não existe no tenant ${slug}`);
      return EXIT.failure;
    }
    say(io.stderr, `operador ${id} desativado; suas sessões foram encerradas`);
    return EXIT.ok;
  });
}

async function readAll(stream: NodeJS.ReadableStream | undefined): Promise<string> {
  if (!stream) return '';
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk as Buffer));
  return Buffer.concat(chunks).toString('utf8');
}
