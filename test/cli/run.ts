import fs from 'node:fs';
import path from 'node:path';
import { Readable, Writable } from 'node:stream';
import { runCli } from '../../src/cli.js';
import { openDatabase, type Db } from '../../src/db/open.js';

/** Collects what is written to it, as text. */
export class Capture extends Writable {
  text = '';
  override _write(chunk: Buffer | string, _enc: BufferEncoding, done: () => void) {
    this.text += chunk.toString();
    done();
  }
}

/** Runs `gate ...argv` in-process against the data dir, the way a user would from a shell. */
export async function gate(
  dataDir: string,
  argv: string[],
  opts: { env?: NodeJS.ProcessEnv; tty?: boolean; stdin?: string } = {},
) {
  const stdout = new Capture();
  const stderr = new Capture();
  const code = await runCli(argv, {
    stdout,
    stderr,
    env: { GATE_DATA_DIR: dataDir, GATE_TIMEZONE: 'America/Sao_Paulo', ...opts.env },
    stdoutIsTTY: opts.tty ?? false,
    stderrIsTTY: opts.tty ?? false,
    ...(opts.stdin !== undefined ? { stdin: Readable.from([opts.stdin]) } : {}),
  });
  return { code, stdout: stdout.text, stderr: stderr.text };
}

/** Writes an import file and returns its path. */
export function writeImportFile(dir: string, content: unknown, name = 'import.json'): string {
  const file = path.join(dir, name);
  fs.writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content, null, 2));
  return file;
}

/** Opens the data dir's database for a look at what the CLI left there. */
export function openData(dataDir: string): Db {
  return openDatabase(path.join(dataDir, 'gate.db'));
}

export const count = (db: Db, table: string): number =>
  (db.sqlite.prepare(`select count(*) as n from ${table}`).get() as { n: number }).n;
