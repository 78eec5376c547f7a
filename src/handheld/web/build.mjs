// Builds the handheld app (browser code) into dist/handheld: run by `npm run build`. Assets are named by their
// content's hash (the box serves them with a long cache); index.html, sw.js, the manifest and config stay put.
// Prints the gzipped size of what the first load fetches and fails past the budget (the camera's decoder, loaded
// only when a phone opens the camera, is outside it).
import { build } from 'esbuild';
import crypto from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const JS_BUDGET_BYTES = 150 * 1024;

const here = path.dirname(fileURLToPath(import.meta.url));
const out = path.resolve(here, '../../../dist/handheld');
fs.rmSync(out, { recursive: true, force: true });
fs.mkdirSync(out, { recursive: true });

const hashOf = (body) => crypto.createHash('sha256').update(body).digest('hex').slice(0, 10);
/** Writes `body` as name.<hash>.ext and returns that name. */
const hashed = (name, body) => {
  const ext = path.extname(name);
  const file = `${path.basename(name, ext)}.${hashOf(body)}${ext}`;
  fs.writeFileSync(path.join(out, file), body);
  return file;
};

const common = {
  bundle: true,
  minify: true,
  target: 'es2020',
  legalComments: 'none',
  logLevel: 'warning',
  write: false,
};

// The decoder's wasm, from the package (never its CDN), then the worker that loads it from the box.
const require = createRequire(import.meta.url);
const wasm = hashed('zxing_reader.wasm', fs.readFileSync(require.resolve('zxing-wasm/reader/zxing_reader.wasm')));
const worker = await build({
  ...common,
  entryPoints: [path.join(here, 'decoder.worker.ts')],
  format: 'esm',
  outfile: 'decoder.js',
  define: { WASM_URL: JSON.stringify(`/m/${wasm}`) },
});
// A fixed name: the page makes the worker by URL (Camera.tsx); the service worker's version changes with its body.
fs.writeFileSync(path.join(out, 'decoder.js'), worker.outputFiles[0].contents);

const app = await build({
  ...common,
  entryPoints: [path.join(here, 'main.tsx')],
  format: 'esm',
  outdir: out,
  jsx: 'automatic',
  jsxImportSource: 'preact',
});
const js = hashed('app.js', app.outputFiles.find((f) => f.path.endsWith('.js')).contents);
const css = hashed('app.css', app.outputFiles.find((f) => f.path.endsWith('.css')).contents);
fs.writeFileSync(
  path.join(out, 'index.html'),
  fs.readFileSync(path.join(here, 'index.html'), 'utf8').replace('__JS__', js).replace('__CSS__', css),
);

// Icons: a tiny SVG (and the manifest names it for every size).
const icon =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 96 96"><rect width="96" height="96" rx="16" fill="#000"/>' +
  '<path d="M18 18h24v24H18zM54 18h24v24H54zM18 54h24v24H18zM58 58h8v8h-8zM70 70h8v8h-8zM70 54h8v8h-8zM54 70h8v8h-8z" fill="#ffd600"/></svg>';
fs.writeFileSync(path.join(out, 'icon.svg'), icon);
const manifest = {
  name: 'Leitor da portaria',
  short_name: 'Leitor',
  start_url: '/m/',
  scope: '/m/',
  display: 'standalone',
  orientation: 'portrait',
  background_color: '#000000',
  theme_color: '#000000',
  lang: 'pt-BR',
  icons: [{ src: '/m/icon.svg', sizes: 'any', type: 'image/svg+xml', purpose: 'any maskable' }],
};
fs.writeFileSync(path.join(out, 'manifest.webmanifest'), JSON.stringify(manifest, null, 2));

// The service worker precaches everything above; its version is the hash of all of it.
const files = fs.readdirSync(out).sort();
const version = hashOf(Buffer.concat(files.map((f) => fs.readFileSync(path.join(out, f)))));
const precache = ['/m/', ...files.filter((f) => f !== 'index.html').map((f) => `/m/${f}`)];
const sw = await build({
  ...common,
  entryPoints: [path.join(here, 'sw.ts')],
  format: 'iife',
  outfile: 'sw.js',
  define: { PRECACHE: JSON.stringify(precache), VERSION: JSON.stringify(version) },
});
fs.writeFileSync(path.join(out, 'sw.js'), sw.outputFiles[0].contents);

const gz = (file) => gzipSync(fs.readFileSync(path.join(out, file)), { level: 9 }).length;
const kb = (n) => `${(n / 1024).toFixed(1)} KB`;
const first = gz(js);
console.log(
  `handheld: ${js} ${kb(first)} gzipped (budget ${kb(JS_BUDGET_BYTES)}), ${css} ${kb(gz(css))}, decoder ${kb(gz('decoder.js') + gz(wasm))} (outside the budget)`,
);
if (first > JS_BUDGET_BYTES) {
  console.error(`handheld: ${js} is over the first-load budget by ${kb(first - JS_BUDGET_BYTES)}`);
  process.exit(1);
}
