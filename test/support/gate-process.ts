import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

// The real `gate` as a user runs it: node bin/gate.js on the compiled code in dist/.

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const BIN = path.join(ROOT, 'bin/gate.js');

/** Builds dist/ when it is missing or older than the sources (npm test builds first anyway). */
export function ensureBuilt(): void {
  const built = path.join(ROOT, 'dist/src/cli.js');
  const newest = (dir: string): number =>
    fs.readdirSync(dir, { withFileTypes: true }).reduce((m, e) => {
      const p = path.join(dir, e.name);
      return Math.max(m, e.isDirectory() ? newest(p) : fs.statSync(p).mtimeMs);
    }, 0);
  if (
    fs.existsSync(built) &&
    fs.statSync(built).mtimeMs >= Math.max(newest(path.join(ROOT, 'src')), newest(path.join(ROOT, 'migrations')))
  )
    return;
  // Type errors elsewhere in the tree still emit JavaScript; only a missing CLI is fatal here.
  spawnSync(process.execPath, [path.join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json'], {
    cwd: ROOT,
    stdio: 'ignore',
  });
  if (!fs.existsSync(built)) throw new Error('npm run build did not produce dist/src/cli.js');
}

export interface Served {
  child: ChildProcess;
  url: string;
  /** Everything the process wrote to stdout so far (its JSON log lines). */
  output(): string;
}

/** Starts `gate serve` and resolves with its URL once it listens (read from its JSON log line). */
export function serveGate(env: NodeJS.ProcessEnv, cwd: string, children: ChildProcess[]): Promise<Served> {
  const child = spawn(process.execPath, [BIN, 'serve'], { env, cwd });
  children.push(child);
  let out = '';
  return new Promise((resolve, reject) => {
    child.stdout.on('data', (c) => {
      out += c;
      const url = /"url":"(https?:[^"]+)".*"gate appliance listening"/.exec(out)?.[1];
      if (url) resolve({ child, url, output: () => out });
    });
    child.on('exit', (code) => reject(new Error(`gate serve exited with ${code}: ${out}`)));
  });
}
