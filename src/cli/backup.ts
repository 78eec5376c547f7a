import path from 'node:path';
import { backupDatabase } from '../db/backup.js';
import { openDatabase } from '../db/open.js';
import { configOf, EXIT, parse, printHelp, say, UsageError, type CliIo } from './common.js';

/** `gate backup [--to DIR] [--keep N]`: an online, verified copy of the live database (docs/operations.md). */
export async function backupCommand(args: string[], io: CliIo): Promise<number> {
  const { values, help } = parse(
    args,
    { to: { type: 'string' }, keep: { type: 'string' } },
    { min: 0, max: 0, names: '' },
  );
  if (help) return printHelp(io, 'backup');
  const keep = values.keep === undefined ? 7 : Number(values.keep);
  if (!Number.isInteger(keep) || keep < 1)
    throw new UsageError(`--keep inválido: ${values.keep} (um número inteiro a partir de 1)`);
  const config = configOf(io);
  const dir = path.resolve(values.to ?? path.join(config.dataDir, 'backups'));
  const db = openDatabase(config.databaseFile);
  try {
    const { file, bytes, removed } = backupDatabase(db.sqlite, dir, new Date(), keep);
    say(io.stdout, file);
    say(
      io.stderr,
      `cópia verificada (integrity_check ok), ${(bytes / 1024 / 1024).toFixed(1)} MB${removed.length ? `; removidas as mais antigas: ${removed.join(', ')}` : ''}`,
    );
    return EXIT.ok;
  } finally {
    db.close();
  }
}
