import path from 'node:path';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

// The console's browser code imports the server's answer schemas for their types only (eslint.config.js):
// a value import would bundle zod and the schemas into the console's app.js.
const eslint = new ESLint({ cwd: path.resolve(import.meta.dirname, '../..') });

async function restricted(file: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(`${code}\nexport { x };\n`, {
    filePath: path.resolve(import.meta.dirname, '../..', file),
  });
  return result!.messages.filter((m) => m.ruleId === '@typescript-eslint/no-restricted-imports').map((m) => m.message);
}

describe('the browser code takes the answers as types', () => {
  it.each([
    ['src/console/web/example.ts', "import { leituraSchema as x } from '../console.answers';"],
    ['src/console/web/scan/Example.tsx', "import { consoleAnswers as x } from '../../console.answers';"],
    ['src/console/web/example.ts', "import { z as x } from 'zod';"],
    ['src/handheld/web/example.ts', "import { dayData as x } from '../handheld.schemas.js';"],
  ])('%s: %s is refused', async (file, code) => {
    expect(await restricted(file, code)).toEqual([expect.stringMatching(/types only/)]);
  });

  it.each([
    ['src/console/web/example.ts', "import type { Leitura as x } from '../console.answers';"],
    ['src/console/web/scan/Example.tsx', "import type { Sessao as x } from '../../console.answers';"],
    ['src/console/console.routes.ts', "import { consoleAnswers as x } from './console.answers.js';"],
    ['src/handheld/web/example.ts', "import type { DayData as x } from '../handheld.schemas.js';"],
  ])('%s: %s is allowed', async (file, code) => {
    expect(await restricted(file, code)).toEqual([]);
  });
});
