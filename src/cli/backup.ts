import os from 'node:os';
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
  yieldToTheBox();
  // Opened as the box opens it: a data folder with no database yet gets an empty one (in WAL mode) to copy.
  const db = openDatabase(config.databaseFile);
  try {
    const { file, bytes, removed, copyMs, checkMs } = await backupDatabase(config.databaseFile, dir, new Date(), keep);
    const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
    say(io.stdout, file);
    say(
      io.stderr,
      `cópia verificada (integrity_check ok), ${(bytes / 1024 / 1024).toFixed(1)} MB (cópia ${seconds(copyMs)}, verificação ${seconds(checkMs)})${removed.length ? `; removidas as mais antigas: ${removed.join(', ')}` : ''}`,
    );
    return EXIT.ok;
  } finally {
    db.close();
  }
}

/** The nice value systemd/gate-backup.service runs the nightly copy with. */
export const BACKUP_NICE = 10;

/**
 * The copy runs beside the box and takes a core for seconds (VACUUM INTO, then integrity_check). Typed at a shell it
 * shared the CPU evenly with the box's event loop: in `npm run bench:heavy` (issue 25), same rounds, the probe's p99
 * was 49–58 ms beside it against 28–44 ms beside the nightly unit's run (Nice=10), the box's WAL fsync p99 20–37 ms
 * against 22–24 ms. So it gives up CPU priority as that unit does; never raises it (a lower priority is kept).
 */
function yieldToTheBox(): void {
  try {
    if (os.getPriority() < BACKUP_NICE) os.setPriority(BACKUP_NICE);
  } catch {
    // Not allowed here (a sandbox): the copy goes on at the priority it has.
  }
}
