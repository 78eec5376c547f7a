import type { Writable } from 'node:stream';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { createClock, type Clock } from '../clock.js';
import { loadConfig, type Config } from '../config.js';
import { migrateToLatest, openDatabase, type Db } from '../db/open.js';
import { resolveTenant, TENANT_SLUG } from '../tenants/tenants.repo.js';
import { commandUsage, type CommandName } from './usage.js';

export interface CliIo {
  stdout: Writable;
  stderr: Writable;
  env: NodeJS.ProcessEnv;
  stdoutIsTTY?: boolean;
  stderrIsTTY?: boolean;
  /** Where a secret is read from (`operators add --password`); process.stdin for the real command. */
  stdin?: NodeJS.ReadableStream;
}

/** A mistake in how the command was called: usage on stderr, exit code 2. */
export class UsageError extends Error {}

export const EXIT = { ok: 0, failure: 1, usage: 2 } as const;

type Options = NonNullable<ParseArgsConfig['options']>;

/** util.parseArgs with its errors turned into UsageErrors in Portuguese. */
export function parse<O extends Options>(
  args: string[],
  options: O,
  positionals: { min: number; max: number; names: string },
) {
  let parsed;
  try {
    parsed = parseArgs({
      args,
      options: { ...options, help: { type: 'boolean', short: 'h' } },
      allowPositionals: true,
      strict: true,
    });
  } catch (error) {
    throw new UsageError(translateParseError(error as NodeJS.ErrnoException));
  }
  const help = (parsed.values as { help?: boolean }).help === true;
  if (!help) {
    const n = parsed.positionals.length;
    if (n < positionals.min) throw new UsageError(`falta ${positionals.names}`);
    if (n > positionals.max) throw new UsageError(`argumento inesperado: ${parsed.positionals[positionals.max]}`);
  }
  return {
    values: parsed.values as { [K in keyof O]?: O[K]['type'] extends 'boolean' ? boolean : string },
    positionals: parsed.positionals,
    help,
  };
}

function translateParseError(error: NodeJS.ErrnoException): string {
  const name = /'([^']+)'/.exec(error.message)?.[1] ?? '';
  switch (error.code) {
    case 'ERR_PARSE_ARGS_UNKNOWN_OPTION':
      return `opção desconhecida: ${name}`;
    case 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE':
      return `a opção ${name.split(' ')[0]} precisa de um valor`;
    case 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL':
      return `argumento inesperado: ${name}`;
    default:
      return error.message;
  }
}

/** A usage error unless `slug` can be a tenant's slug. */
export function checkSlug(slug: string): string {
  if (!TENANT_SLUG.test(slug))
    throw new UsageError(
      `tenant inválido: "${slug}" (use letras minúsculas sem acento, dígitos e hífens, começando por letra ou dígito; até 63 caracteres)`,
    );
  return slug;
}

/** The tenant named by --tenant, else GATE_TENANT; a usage error when neither is given. */
export function tenantSlug(flag: string | undefined, config: Config): string {
  const slug = flag ?? config.tenant;
  if (!slug) throw new UsageError('informe --tenant SLUG (ou defina GATE_TENANT)');
  return checkSlug(slug);
}

/** The existing tenant with this slug; an unknown one fails (exit 1) naming the known ones. Never creates. */
export const requireTenant = (db: Db, slug: string) => resolveTenant(db, slug);

export interface Session {
  config: Config;
  db: Db;
  clock: Clock;
}

/** Opens the box's database (migrated, so a fresh data dir just works) for the length of `fn`. */
export async function withDb<T>(config: Config, fn: (s: Session) => Promise<T> | T): Promise<T> {
  const db = openDatabase(config.databaseFile);
  try {
    await migrateToLatest(db);
    return await fn({ config, db, clock: createClock(config.timeZone) });
  } finally {
    db.close();
  }
}

export const say = (out: Writable, text = '') => out.write(`${text}\n`);

export function printHelp(io: CliIo, name: CommandName): number {
  io.stdout.write(commandUsage(name));
  return EXIT.ok;
}

export const configOf = (io: CliIo): Config => loadConfig(io.env);

/** Timestamps as the park reads them: `2026-11-21 10:02` in its time zone. */
export const localTime = (timeZone: string) => {
  const fmt = new Intl.DateTimeFormat('sv-SE', {
    timeZone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
  });
  return (iso: string) => fmt.format(new Date(iso));
};

/** Columns padded to their widest cell; the last one is not padded. */
export function formatTable(header: string[], rows: string[][]): string[] {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]!))).join('  ');
  return [line(header), ...rows.map(line)];
}
