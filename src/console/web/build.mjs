// Builds the staff console (browser code) into dist/console: run by `npm run build`.
import { build } from 'esbuild';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const out = path.resolve(here, '../../../dist/console');
fs.mkdirSync(out, { recursive: true });
await build({ entryPoints: [path.join(here, 'main.tsx')], bundle: true, minify: true, format: 'esm', target: 'es2020', outfile: path.join(out, 'app.js'), jsx: 'automatic', jsxImportSource: 'preact', logLevel: 'warning' });
fs.copyFileSync(path.join(here, 'index.html'), path.join(out, 'index.html'));
