import fs from 'node:fs';
import path from 'node:path';
import type { BoxRoutes } from '../app.js';
import { fileURLToPath } from 'node:url';
import { AppError } from '../http/errors.js';

// The handheld app at /m/ (docs/handheld.md), built by `npm run build` into dist/handheld (src/handheld/web), served
// from memory like the console's page. Content-hashed assets are cached for a year; the page, the service worker,
// the manifest and the decoder's worker are revalidated on every load, so a new build reaches the devices.

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.wasm': 'application/wasm',
  '.webmanifest': 'application/manifest+json',
};
const HASHED = /\.[0-9a-f]{10}\.[a-z]+$/;

export interface HandheldAppOptions {
  /** GATE_HANDHELD_TIMEOUT_MS, given to the app in /m/config.json: the bound of a whole scan (web/budget.ts). */
  timeoutMs: number;
  /** GATE_HANDHELD_NOMES. */
  names: boolean;
  /** The park's IANA time zone: "today" for the device's offline decisions. */
  timeZone: string;
  dir?: string;
}

/** dist/handheld of the project, whether this module runs from dist/ (production) or from src/ (the tests). */
export function handheldAssetsDir(): string {
  const here = path.dirname(fileURLToPath(import.meta.url));
  const fromDist = here.includes(`${path.sep}dist${path.sep}`);
  return path.resolve(here, fromDist ? '../../..' : '../..', 'dist', 'handheld');
}

export function handheldAppRoutes(opts: HandheldAppOptions): BoxRoutes {
  const dir = opts.dir ?? handheldAssetsDir();
  const config = JSON.stringify({ timeoutMs: opts.timeoutMs, nomes: opts.names, fusoHorario: opts.timeZone });
  return {
    local: [
      (app) => {
        const files = new Map<string, { type: string; body: Buffer }>();
        if (fs.existsSync(dir))
          for (const name of fs.readdirSync(dir)) {
            const type = TYPES[path.extname(name)];
            if (type && fs.statSync(path.join(dir, name)).isFile())
              files.set(name, { type, body: fs.readFileSync(path.join(dir, name)) });
          }
        const security = {
          'x-content-type-options': 'nosniff',
          // The decoder compiles WebAssembly; the camera and the service worker are the page's own.
          'content-security-policy':
            "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; img-src 'self' data: blob:; media-src 'self' blob:; style-src 'self' 'unsafe-inline'; frame-ancestors 'none'",
        };
        const page = () => {
          const file = files.get('index.html');
          if (!file)
            throw new AppError(
              'SERVICE_UNAVAILABLE',
              undefined,
              'App dos handhelds não compilado: rode npm run build.',
            );
          return file;
        };

        // /m and /m/ are one route here (the box ignores a trailing slash): both get the page.
        app.get('/m', { schema: { hide: true } }, async (_request, reply) =>
          reply
            .headers({ ...security, 'cache-control': 'no-cache' })
            .type(page().type)
            .send(page().body),
        );
        app.get('/m/config.json', { schema: { hide: true } }, async (_request, reply) =>
          reply.headers({ 'cache-control': 'no-store' }).type('application/json').send(config),
        );
        app.get('/m/*', { schema: { hide: true } }, async (request, reply) => {
          const name = (request.params as { '*': string })['*'];
          // Any other path under /m/ is the page (its state is in the URL's fragment).
          const file = files.get(name) ?? page();
          const headers: Record<string, string> = {
            ...security,
            'cache-control': HASHED.test(name) && files.has(name) ? 'public, max-age=31536000, immutable' : 'no-cache',
          };
          if (name === 'sw.js') headers['service-worker-allowed'] = '/m/';
          return reply.headers(headers).type(file.type).send(file.body);
        });
      },
    ],
  };
}
