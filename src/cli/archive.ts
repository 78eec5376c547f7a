import path from 'node:path';
import { archiveOldEvents, ArchiveBusyError } from '../retention/retention.js';
import { configOf, EXIT, parse, printHelp, say, UsageError, withDb, type CliIo } from './common.js';

export const DEFAULT_ARCHIVE_DAYS = 90;

const eventos = (n: number, what = '') => `${n} ${n === 1 ? 'evento' : 'eventos'}${what}`;
const both = (events: number, lane: number) => `${eventos(events)} e ${eventos(lane, ' das pistas')}`;

const wholeDays = (value: string, from: string): number => {
  const days = Number(value);
  if (!/^\d+$/.test(value.trim()) || !Number.isInteger(days) || days < 1 || days > 3650)
    throw new UsageError(`${from} inválido: ${value} (um número inteiro de dias, de 1 a 3650)`);
  return days;
};

/**
 * `gate archive [--days N] [--to DIR] [--dry-run]`: events and lane events older than N days that
 * nothing waits on move into DIR/events-YYYY-MM-DD.sqlite and leave the live tables (docs/operations.md,
 * "Retention"). Runs beside the box.
 */
export async function archiveCommand(args: string[], io: CliIo): Promise<number> {
  const { values, help } = parse(
    args,
    { days: { type: 'string' }, to: { type: 'string' }, 'dry-run': { type: 'boolean' } },
    { min: 0, max: 0, names: '' },
  );
  if (help) return printHelp(io, 'archive');
  const fromEnv = io.env.GATE_ARCHIVE_DAYS;
  const days =
    values.days !== undefined
      ? wholeDays(values.days, '--days')
      : fromEnv !== undefined && fromEnv !== ''
        ? wholeDays(fromEnv, 'GATE_ARCHIVE_DAYS')
        : DEFAULT_ARCHIVE_DAYS;
  const config = configOf(io);
  const dir = path.resolve(values.to ?? path.join(config.dataDir, 'archive'));
  return withDb(config, async ({ db, clock }) => {
    const options = {
      days,
      dir,
      lockFile: path.join(config.dataDir, 'archive.lock'),
      cloudTenants: config.cloud ? [config.cloud.tenant] : [],
      dryRun: values['dry-run'] === true,
    };
    let result;
    try {
      result = await archiveOldEvents(db.sqlite, clock, options);
    } catch (error) {
      if (!(error instanceof ArchiveBusyError)) throw error;
      say(io.stderr, `gate archive: ${error.message}`);
      return EXIT.failure;
    }
    const before = `anteriores a ${result.cutoff.date}`;
    if (result.wouldMove) {
      const w = result.wouldMove;
      for (const file of w.interrupted) say(io.stdout, `arquivamento interrompido em ${file}: será retomado`);
      say(io.stdout, `seriam movidos: ${both(w.events, w.laneEvents)} ${before} (nada foi gravado)`);
    } else if (result.runs.length === 0) {
      say(io.stdout, `nada a arquivar: nenhum evento ${before} que possa sair do banco`);
    }
    for (const run of result.runs) {
      say(io.stdout, `${run.resumed ? 'retomado e concluído' : 'arquivado'}: ${run.file}`);
      say(
        io.stdout,
        `  movidos: ${both(run.events, run.laneEvents)} anteriores a ${run.cutoffDate}; maior transação no banco: ${run.longestMs.toFixed(1)} ms`,
      );
    }
    if (result.waiting > 0)
      say(
        io.stdout,
        `mantidos: ${eventos(result.waiting)} ${before} à espera da nuvem (sem resposta definitiva, ou respondidos há menos de ${days} dias)`,
      );
    return EXIT.ok;
  });
}
