import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { RouteRegistrar } from '../app.js';
import { AppError } from '../http/errors.js';

// The console's page and assets, built by `npm run build` into dist/console (src/console/web). Served
// from memory: a handful of small files, read once at start.

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.png': 'image/png',
  '.svg': 'image/svg+xml',
};

/** dist/console beside this module, whether it runs from dist/ (production) or from src/ (the tests). */
export function consoleAssetsDir(): string {
  const here = path.dirname(fileURLToPath(import.meta.url));
  const at = here.lastIndexOf(`${path.sep}src${path.sep}`);
  return path.join(
    at >= 0 && !here.includes(`${path.sep}dist${path.sep}`) ? here.slice(0, at) : path.resolve(here, '../../..'),
    'dist',
    'console',
  );
}

export const staticRoutes =
  (dir = consoleAssetsDir()): RouteRegistrar =>
  (app) => {
    const files = new Map<string, { type: string; body: Buffer }>();
    if (fs.existsSync(dir))
      for (const name of fs.readdirSync(dir)) {
        const type = TYPES[path.extname(name)];
        if (type && fs.statSync(path.join(dir, name)).isFile())
          files.set(name, { type, body: fs.readFileSync(path.join(dir, name)) });
      }
    const page = files.get('index.html');
    const headers = {
      'cache-control': 'no-cache',
      'x-content-type-options': 'nosniff',
      'content-security-policy':
        "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; frame-ancestors 'none'",
    };

    const sendPage = () => {
      if (!page) throw new AppError('SERVICE_UNAVAILABLE', undefined, 'Console não compilado: rode npm run build.');
      return page;
    };
    app.get('/console', { schema: { hide: true } }, async (_request, reply) =>
      reply.headers(headers).type(sendPage().type).send(sendPage().body),
    );
    app.get('/console/*', { schema: { hide: true } }, async (request, reply) => {
      const name = (request.params as { '*': string })['*'];
      // Any other path under /console is the single page (its own routing is in the URL's hash).
      const file = files.get(name) ?? sendPage();
      return reply.headers(headers).type(file.type).send(file.body);
    });
  };
