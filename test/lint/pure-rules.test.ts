import fs from 'node:fs';
import path from 'node:path';
import vm from 'node:vm';
import { build } from 'esbuild';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

// The check-in decision rules (src/checkin/rules/) are pure, so a browser bundle can carry them:
// the lint step refuses in them any import but their own folder and src/lib, any Node global, and
// reading a clock or randomness. Checked here on the real config (eslint.config.js).
const root = path.resolve(import.meta.dirname, '../..');
const eslint = new ESLint({ cwd: root });
const PURITY_RULES = [
  'no-restricted-imports',
  'no-restricted-globals',
  'no-restricted-properties',
  'no-restricted-syntax',
];

async function refusals(file: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: path.resolve(root, file) });
  return result!.messages.filter((m) => PURITY_RULES.includes(m.ruleId ?? '')).map((m) => m.message);
}

const RULE_FILE = 'src/checkin/rules/example.ts';

describe('the check-in rules stay pure', () => {
  it.each([
    "import fs from 'node:fs';",
    "import { createHash } from 'crypto';",
    "import { z } from 'zod';",
    "import { AppError } from '../../http/errors.js';",
    "import type { ErrorCode } from '../../http/errors.js';",
    "import type { Flow } from '../flow.js';",
    "import { createCheckinRepo } from '../checkin.repo.js';",
    "import type { Clock } from '../../clock.js';",
    "import type { Db } from '../../db/open.js';",
    "export { PARK_AREA } from '../movement.settings.js';",
  ])('refuses %s', async (code) => {
    expect(await refusals(RULE_FILE, `${code}\nexport {};\n`)).toEqual([expect.stringMatching(/rules are pure/)]);
  });

  it.each([
    'export const env = () => process.env.TZ;',
    "export const bytes = () => Buffer.from('x');",
    'export const later = () => setTimeout(() => undefined, 1);',
    'export const now = () => Date.now();',
    'export const now = () => new Date();',
    'export const pick = () => Math.random();',
    "export const load = () => import('node:fs');",
  ])('refuses %s', async (code) => {
    expect(await refusals(RULE_FILE, `${code}\n`)).toHaveLength(1);
  });

  it.each([
    "import type { Refusal } from './refusal.js';",
    "import { isToday } from './calendar.js';",
    "import { codeHash } from '../../lib/code-hash.js';",
    'export const day = (iso: string) => new Date(iso).toISOString().slice(0, 10);',
  ])('allows %s', async (code) => {
    expect(await refusals(RULE_FILE, `${code}\nexport {};\n`)).toEqual([]);
  });

  it('holds for the rules as they are, and only for them', async () => {
    const dir = path.join(root, 'src/checkin/rules');
    const files = fs.readdirSync(dir).filter((f) => f.endsWith('.ts'));
    expect(files.length).toBeGreaterThan(3);
    for (const f of files) {
      const [result] = await eslint.lintFiles([path.join(dir, f)]);
      expect(result!.messages.map((m) => `${f}: ${m.ruleId} ${m.message}`)).toEqual([]);
    }
    // The flows around them do I/O on purpose: the rule is not theirs.
    expect(await refusals('src/checkin/example.ts', "import type { Db } from '../db/open.js';\nexport {};\n")).toEqual(
      [],
    );
  });
});

describe('the check-in rules in a browser bundle', () => {
  it('bundle for the browser alone and run with nothing of Node around them', async () => {
    const out = await build({
      entryPoints: [path.join(root, 'src/checkin/rules/index.ts')],
      bundle: true,
      platform: 'browser',
      format: 'iife',
      globalName: 'rules',
      write: false,
      logLevel: 'silent',
    });
    const code = out.outputFiles[0]!.text;
    expect(code).not.toMatch(/require\(|node:/);
    // A context with only the language's own globals: no process, Buffer, require, timers.
    const context = vm.createContext({});
    vm.runInContext(code, context);
    const refusal = vm.runInContext(
      `rules.personCheckin({ qr_code: 'Q', tipo_ingresso: 'dayuse', data_uso: '2026-11-19', status: 'pago',
        checkin_em: null, estornado_em: null, estorno_operador: null, estorno_dispositivo: null }, '2026-11-20', 'Q')`,
      context,
    );
    expect(JSON.parse(JSON.stringify(refusal))).toEqual({
      code: 'TICKET_EXPIRED',
      details: { data_ingresso: '2026-11-19', data_atual: '2026-11-20', qr_code: 'Q' },
    });
    expect(vm.runInContext('typeof process + typeof Buffer + typeof require', context)).toBe(
      'undefinedundefinedundefined',
    );
  });
});
