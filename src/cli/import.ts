import { importFile, type ImportResult, type Phase } from '../import/import.js';
import { createProgressBar, formatCount, formatMb, formatSeconds, silentProgress } from '../import/progress.js';
import { ImportFileError, KINDS, type Kind } from '../import/records.js';
import { ImportWriteError, type KindCounts } from '../import/write.js';
import { configOf, EXIT, parse, printHelp, requireTenant, say, tenantSlug, withDb, type CliIo } from './common.js';

export async function importCommand(args: string[], io: CliIo): Promise<number> {
  const { values, positionals, help } = parse(
    args,
    { tenant: { type: 'string' }, 'dry-run': { type: 'boolean' } },
    { min: 1, max: 1, names: 'o ARQUIVO a importar' },
  );
  if (help) return printHelp(io, 'import');
  const config = configOf(io);
  const slug = tenantSlug(values.tenant, config);
  const dryRun = values['dry-run'] === true;
  const file = positionals[0]!;
  const progress = (phase: Phase, total: number) =>
    io.stderrIsTTY ? createProgressBar(io.stderr, phase.padEnd(9), total) : silentProgress;
  const command = dryRun ? 'gate import --dry-run' : 'gate import';
  const nothing = dryRun ? 'a importação seria recusada e nada seria gravado' : 'nada foi gravado';

  return withDb(config, async ({ db, clock }) => {
    const tenant = requireTenant(db, slug);
    let result: ImportResult;
    try {
      result = await importFile({ file, tenantId: tenant.id, dryRun, db, clock, progress });
    } catch (error) {
      if (error instanceof ImportFileError) {
        say(io.stderr, `${command}: ${error.message}`);
        say(io.stderr, nothing);
        return EXIT.failure;
      }
      if (error instanceof ImportWriteError) {
        say(io.stderr, `gate import: falha ao gravar: ${error.message}`);
        say(
          io.stderr,
          `${formatCount(error.committed)} registros gravados antes da falha permanecem; corrija e importe de novo (reimportar é seguro)`,
        );
        return EXIT.failure;
      }
      throw error;
    }

    if (!result.ok) {
      const { issues } = result;
      say(
        io.stderr,
        `${command}: ${formatCount(issues.count)} ${issues.count === 1 ? 'erro' : 'erros'} em ${file}; ${nothing}`,
      );
      for (const line of issues.lines) say(io.stderr, `  ${line}`);
      const hidden = issues.count - issues.lines.length;
      if (hidden > 0) say(io.stderr, `  ... e mais ${formatCount(hidden)} ${hidden === 1 ? 'erro' : 'erros'}`);
      return EXIT.failure;
    }

    if (!io.stderrIsTTY)
      say(
        io.stderr,
        `${dryRun ? 'validação concluída' : 'importação concluída'}: ${formatCount(result.records)} registros, ${formatMb(result.bytes)} MB em ${formatSeconds(result.ms)} s`,
      );
    // A dry run prints the very lines a real run would, under a header that says nothing was written.
    say(io.stdout, dryRun ? `tenant ${slug} (simulação: nada foi gravado; a importação faria):` : `tenant ${slug}:`);
    const present = KINDS.filter((k) => result.counts[k].created + result.counts[k].updated > 0);
    if (present.length === 0) say(io.stdout, '  nenhum registro no arquivo');
    for (const kind of present) say(io.stdout, `  ${summary(kind, result.counts[kind])}`);
    return EXIT.ok;
  });
}

const plural = (n: number, one: string, many: string) => `${formatCount(n)} ${n === 1 ? one : many}`;

function summary(kind: Kind, c: KindCounts): string {
  switch (kind) {
    case 'disponibilidade':
      return `disponibilidade: ${plural(c.created + c.updated, 'combo', 'combos')}, ${plural(c.dates, 'data', 'datas')}`;
    case 'pedidos': {
      const status = c.statusChanged > 0 ? ` (${plural(c.statusChanged, 'com novo status', 'com novo status')})` : '';
      return `pedidos: ${plural(c.created, 'criado', 'criados')}, ${plural(c.updated, 'atualizado', 'atualizados')}${status}`;
    }
    default:
      return `${kind}: ${plural(c.created, 'criado', 'criados')}, ${plural(c.updated, 'atualizado', 'atualizados')}`;
  }
}
