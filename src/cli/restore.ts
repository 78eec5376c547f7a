import fs from 'node:fs';
import path from 'node:path';
import { consolidatedCopy, contentsOf, restoreDatabase, type Contents } from '../db/backup.js';
import { DatabaseInUseError, takeDatabaseExclusively } from '../db/holder.js';
import { configOf, EXIT, formatTable, localTime, parse, printHelp, say, type CliIo } from './common.js';

const number = new Intl.NumberFormat('pt-BR');

/** Where the copy holds less than the current database; empty when it holds at least as much. */
export function whatLacks(copy: Contents, current: Contents | null): string[] {
  if (current === null) return [];
  const lacks = (['orders', 'people', 'events'] as const)
    .filter((k) => copy[k] < current[k])
    .map((k) => `${LABEL[k]}: ${number.format(copy[k])} na cópia, ${number.format(current[k])} no banco atual`);
  if (current.newestEvent !== null && (copy.newestEvent ?? '') < current.newestEvent)
    lacks.push('o evento mais recente da cópia é anterior ao do banco atual');
  return lacks;
}

const LABEL = { orders: 'pedidos', people: 'pessoas', events: 'eventos' } as const;

function contentsTable(rows: [string, Contents | null][], timeZone: string): string[] {
  const when = localTime(timeZone);
  return formatTable(
    ['', 'pedidos', 'pessoas', 'eventos', 'evento mais recente'],
    rows.map(([name, c]) =>
      c === null
        ? [name, '-', '-', '-', '(não existe)']
        : [
            name,
            number.format(c.orders),
            number.format(c.people),
            number.format(c.events),
            c.newestEvent ? when(c.newestEvent) : '(nenhum)',
          ],
    ),
  );
}

/**
 * `gate restore [--force] ARQUIVO`: a backup (or a rescued gate.db with its WAL) in place of the
 * database, the current one kept beside it. Refused while a box holds the database, and, unless
 * --force, when the copy holds less than the current database; says what each holds.
 */
export async function restoreCommand(args: string[], io: CliIo): Promise<number> {
  const { values, positionals, help } = parse(
    args,
    { force: { type: 'boolean' } },
    { min: 1, max: 1, names: 'ARQUIVO' },
  );
  if (help) return printHelp(io, 'restore');
  const config = configOf(io);
  const target = config.databaseFile;
  let hold;
  try {
    hold = takeDatabaseExclusively(target);
  } catch (error) {
    if (!(error instanceof DatabaseInUseError)) throw error;
    say(io.stderr, `gate restore: ${error.message}; nada foi alterado`);
    return EXIT.failure;
  }
  const copy = `${target}.restaurando`;
  try {
    await consolidatedCopy(path.resolve(positionals[0]!), copy);
    const incoming = contentsOf(copy);
    const current = fs.existsSync(target) ? contentsOf(target) : null;
    for (const line of contentsTable(
      [
        ['cópia', incoming],
        ['banco atual', current],
      ],
      config.timeZone,
    ))
      say(io.stdout, line);
    const lacks = whatLacks(incoming, current);
    if (lacks.length > 0 && values.force !== true) {
      say(io.stderr, `gate restore: a cópia tem menos que o banco atual (${lacks.join('; ')}); nada foi alterado.`);
      say(io.stderr, 'Confira se é o arquivo certo; para restaurar assim mesmo: gate restore --force ARQUIVO');
      return EXIT.failure;
    }
    if (incoming.orders === 0 && incoming.events === 0)
      say(io.stderr, 'atenção: a cópia não tem pedidos nem eventos; confira se é o arquivo certo');
    const { keptAs } = restoreDatabase(copy, target, new Date());
    say(io.stderr, `restaurado em ${target}${keptAs ? `; o banco anterior ficou em ${keptAs}` : ''}`);
    return EXIT.ok;
  } finally {
    fs.rmSync(copy, { force: true });
    hold.release();
  }
}
