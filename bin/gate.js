#!/usr/bin/env node
// The `gate` command: runs the compiled CLI in dist/ (built by `npm install` or `npm run build`).
import { existsSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';

const cli = fileURLToPath(new URL('../dist/src/cli.js', import.meta.url));
if (!existsSync(cli)) {
  process.stderr.write(`gate: ${cli} não existe; compile o projeto antes: npm run build (ou npm install)\n`);
  process.exit(1);
}
const { runFromProcess } = await import(pathToFileURL(cli).href);
process.exitCode = await runFromProcess();
