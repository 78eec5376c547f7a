// Builds the staff console (browser code) into dist/console: run by `npm run build`.
// Prints the gzipped size of what the first load fetches and fails past the budget.
import { build } from 'esbuild';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const JS_BUDGET_BYTES = 250 * 1024;

const here = path.dirname(fileURLToPath(import.meta.url));
const out = path.resolve(here, '../../../dist/console');
fs.mkdirSync(out, { recursive: true });
await build({
  entryPoints: [path.join(here, 'main.tsx')],
  bundle: true,
  minify: true,
  format: 'esm',
  target: 'es2020',
  outfile: path.join(out, 'app.js'),
  jsx: 'automatic',
  jsxImportSource: 'preact',
  legalComments: 'none',
  logLevel: 'warning',
});
fs.copyFileSync(path.join(here, 'index.html'), path.join(out, 'index.html'));

const gz = (file) => gzipSync(fs.readFileSync(path.join(out, file)), { level: 9 }).length;
const kb = (n) => `${(n / 1024).toFixed(1)} KB`;
const js = gz('app.js');
const css = gz('app.css');
console.log(`console: app.js ${kb(js)} gzipped (budget ${kb(JS_BUDGET_BYTES)}), app.css ${kb(css)} gzipped`);
if (js > JS_BUDGET_BYTES) {
  console.error(`console: app.js is over the first-load budget by ${kb(js - JS_BUDGET_BYTES)}`);
  process.exit(1);
}
