import fs from 'node:fs';
import type { Clock } from '../clock.js';
import type { Db } from '../db/open.js';
import { describeSyntaxError, isSyntaxError, locateSyntaxError } from './locate.js';
import { silentProgress, type Progress } from './progress.js';
import { ImportFileError } from './records.js';
import { validateFile, type IssueList } from './validate.js';
import { planReads, writeFile, type WriteCounts } from './write.js';

export type Phase = 'validando' | 'gravando';

export interface ImportOptions {
  file: string;
  /** An existing tenant (resolveTenant): an import never creates one. */
  tenantId: number;
  /** Validate and count what would change, and write nothing. */
  dryRun?: boolean;
  db: Db;
  clock: Clock;
  progress?: (phase: Phase, totalBytes: number) => Progress;
  batchSize?: number;
}

export type ImportResult =
  | { ok: true; dryRun: boolean; counts: WriteCounts; records: number; bytes: number; ms: number }
  | { ok: false; issues: IssueList; records: number };

/**
 * Imports a file of cloud data into one tenant, in two passes over the file: the first validates
 * everything and writes nothing, the second writes in short transactions so that a server running on
 * the same database keeps answering check-ins. Throws ImportFileError when the file cannot be read
 * as an import file at all.
 *
 * A dry run is the first pass alone, which also looks up each record in the database to tell what
 * the second pass would report. It takes no write lock, so it can run beside a busy gate; a file
 * that passes validation repeats no id, so each record meets the database as it is now and the
 * counts are the ones a real run reports (unless the database changes in between).
 */
export async function importFile(opts: ImportOptions): Promise<ImportResult> {
  const { db, clock } = opts;
  const started = Date.now();
  const size = fileSize(opts.file);
  const progress = opts.progress ?? (() => silentProgress);
  const { tenantId } = opts;
  const dryRun = opts.dryRun ?? false;

  const validation = await readable(opts.file, () =>
    validateFile(opts.file, { db, tenantId, predict: dryRun }, progress('validando', size)),
  );
  const records = Object.values(validation.counts).reduce((a, b) => a + b, 0);
  if (validation.issues.count > 0) return { ok: false, issues: validation.issues, records };
  if (dryRun) return { ok: true, dryRun, counts: validation.predicted, records, bytes: size, ms: Date.now() - started };

  const nowIso = clock.nowIso();
  const plan = planReads(validation.keyOrder);
  const ctx = { db, tenantId, nowIso, ...(opts.batchSize ? { batchSize: opts.batchSize } : {}) };
  const counts = await readable(opts.file, () =>
    writeFile(opts.file, plan, ctx, progress('gravando', size * plan.length)),
  );
  return { ok: true, dryRun, counts, records, bytes: size, ms: Date.now() - started };
}

function fileSize(file: string): number {
  try {
    const stat = fs.statSync(file);
    if (!stat.isFile()) throw new ImportFileError(`${file} não é um arquivo`);
    return stat.size;
  } catch (error) {
    if (error instanceof ImportFileError) throw error;
    throw new ImportFileError(
      `não foi possível ler ${file}: ${(error as NodeJS.ErrnoException).code === 'ENOENT' ? 'arquivo não encontrado' : (error as Error).message}`,
    );
  }
}

/** Runs a pass and turns a JSON syntax error into one that says where it is. */
async function readable<T>(file: string, pass: () => Promise<T>): Promise<T> {
  try {
    return await pass();
  } catch (error) {
    if (!isSyntaxError(error)) throw error;
    const at = await locateSyntaxError(file).catch(() => null);
    if (at && at.byte >= fs.statSync(file).size)
      throw new ImportFileError(
        `JSON incompleto: o arquivo acaba na linha ${at.line}, coluna ${at.column} (byte ${at.byte}) sem fechar o JSON`,
      );
    const where = at ? ` na linha ${at.line}, coluna ${at.column} (byte ${at.byte})` : '';
    throw new ImportFileError(`JSON malformado${where}: ${describeSyntaxError(error.message)}`);
  }
}
