import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The box's version: package.json's, read once (from src/ in the tests, from dist/src/ in production). */
function readVersion(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 4; i++, dir = path.dirname(dir)) {
    const file = path.join(dir, 'package.json');
    if (!fs.existsSync(file)) continue;
    const pkg = JSON.parse(fs.readFileSync(file, 'utf8')) as { name?: string; version?: string };
    if (pkg.name === 'gate-appliance' && pkg.version) return pkg.version;
  }
  return 'desconhecida';
}

export const VERSION = readVersion();
