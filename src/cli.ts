import { ConfigError } from './config.js';
import path from 'node:path';
import { backupDatabase } from './db/backup.js';
import { migrateToLatest, migrationState, openDatabase } from './db/open.js';
import { configOf, EXIT, parse, printHelp, say, UsageError, type CliIo } from './cli/common.js';
import { archiveCommand } from './cli/archive.js';
import { backupCommand } from './cli/backup.js';
import { restoreCommand } from './cli/restore.js';
import { demoCommand } from './cli/demo.js';
import { importCommand } from './cli/import.js';
import { keysCommand } from './cli/keys.js';
import { operatorsCommand } from './cli/operators.js';
import { osdpCommand } from './cli/osdp.js';
import { serveCommand } from './cli/serve.js';
import { siteCommand } from './cli/site.js';
import { tenantsCommand } from './cli/tenants.js';
import { tlsCommand } from './cli/tls.js';
import { USAGE } from './cli/usage.js';
import { VERSION } from './version.js';

export type { CliIo } from './cli/common.js';

/** The `gate` command. Returns the exit code; tests call it in-process with their own streams. */
export async function runCli(argv: string[], io: CliIo): Promise<number> {
  const [command, ...args] = argv;
  try {
    switch (command) {
      case 'help':
      case '--help':
      case '-h':
        io.stdout.write(USAGE);
        return EXIT.ok;
      case '--version':
      case 'version':
        io.stdout.write(`gate ${VERSION}\n`);
        return EXIT.ok;
      case 'serve':
        return await serveCommand(args, io);
      case 'migrate':
        return await migrateCommand(args, io);
      case 'backup':
        return await backupCommand(args, io);
      case 'archive':
        return await archiveCommand(args, io);
      case 'restore':
        return await restoreCommand(args, io);
      case 'import':
        return await importCommand(args, io);
      case 'tenants':
        return await tenantsCommand(args, io);
      case 'keys':
        return await keysCommand(args, io);
      case 'operators':
        return await operatorsCommand(args, io);
      case 'demo':
        return await demoCommand(args, io);
      case 'osdp':
        return await osdpCommand(args, io);
      case 'site':
        return await siteCommand(args, io);
      case 'tls':
        return await tlsCommand(args, io);
      case undefined:
        io.stderr.write(USAGE);
        return EXIT.usage;
      default:
        say(io.stderr, `gate: comando desconhecido: ${command}\n`);
        io.stderr.write(USAGE);
        return EXIT.usage;
    }
  } catch (error) {
    if (error instanceof UsageError) {
      say(io.stderr, `gate ${command}: ${error.message}`);
      say(io.stderr, 'veja: gate help');
      return EXIT.usage;
    }
    if (error instanceof ConfigError) {
      say(io.stderr, error.message);
      return EXIT.usage;
    }
    say(io.stderr, `gate ${command}: erro: ${error instanceof Error ? error.message : String(error)}`);
    return EXIT.failure;
  }
}

async function migrateCommand(args: string[], io: CliIo): Promise<number> {
  if (parse(args, {}, { min: 0, max: 0, names: '' }).help) return printHelp(io, 'migrate');
  const config = configOf(io);
  // Not withDb: that migrates silently, and this command is about saying what it applied.
  const db = openDatabase(config.databaseFile);
  try {
    // A database with data and migrations to apply is copied first: an upgrade can be rolled back.
    const before = migrationState(db.sqlite);
    if (before.applied > 0 && before.pending.length > 0) {
      const { file } = await backupDatabase(config.databaseFile, path.join(config.dataDir, 'backups'), new Date(), 7);
      say(io.stderr, `cópia antes de migrar: ${file} (para voltar: gate restore ${file}, com a versão anterior)`);
    }
    const applied = await migrateToLatest(db);
    if (applied.length === 0) say(io.stdout, `banco ${config.databaseFile} já está atualizado`);
    else for (const name of applied) say(io.stdout, `aplicada: ${name}`);
    return EXIT.ok;
  } finally {
    db.close();
  }
}

/** The entry of bin/gate.js: the real process's streams and environment. */
export async function runFromProcess(): Promise<number> {
  return runCli(process.argv.slice(2), {
    stdout: process.stdout,
    stderr: process.stderr,
    env: process.env,
    stdoutIsTTY: process.stdout.isTTY === true,
    stderrIsTTY: process.stderr.isTTY === true,
    stdin: process.stdin,
  });
}
