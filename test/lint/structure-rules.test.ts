import fs from 'node:fs';
import path from 'node:path';
import { ESLint } from 'eslint';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from '../support/temp.js';

// The lint step's size and shape rules (eslint.config.js; docs/architecture.md, "Size and shape"), run on the real
// config: files of at most 300 lines, functions of at most 120, and no import cycle in src/, type imports included.
const repo = path.resolve(import.meta.dirname, '../..');
const config = path.join(repo, 'eslint.config.js');

async function problems(root: string, file: string, code?: string): Promise<{ rule: string | null; text: string }[]> {
  const eslint = new ESLint({ cwd: root, overrideConfigFile: config });
  const filePath = path.join(root, file);
  const [result] = code === undefined ? await eslint.lintFiles([filePath]) : await eslint.lintText(code, { filePath });
  return result!.messages.map((m) => ({ rule: m.ruleId, text: m.message }));
}

const lines = (n: number, line: (i: number) => string) => Array.from({ length: n }, (_, i) => line(i)).join('\n');
const fileOf = (n: number) => `${lines(n - 1, (i) => `export const value${i} = ${i};`)}\nexport {};\n`;
const functionOf = (n: number) =>
  `export function long(): number {\n${lines(n - 3, (i) => `  void ${i};`)}\n  return 0;\n}\n`;

describe('size rules', () => {
  it('a file of 301 lines is refused, one of 300 is not', async () => {
    expect(await problems(repo, 'src/lib/example.ts', fileOf(301))).toEqual([
      { rule: 'max-lines', text: expect.stringMatching(/Maximum allowed is 300/) },
    ]);
    expect(await problems(repo, 'src/lib/example.ts', fileOf(300))).toEqual([]);
  });

  it('a function of 121 lines is refused, one of 120 is not', async () => {
    expect(await problems(repo, 'src/lib/example.ts', functionOf(121))).toEqual([
      { rule: 'max-lines-per-function', text: expect.stringMatching(/too many lines \(121\)/) },
    ]);
    expect(await problems(repo, 'src/lib/example.ts', functionOf(120))).toEqual([]);
  });
});

describe('no import cycle', () => {
  const root = tempDir('lint-cycle-');
  afterAll(() => fs.rmSync(root, { recursive: true, force: true }));
  const write = (file: string, text: string) => {
    fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    fs.writeFileSync(path.join(root, file), text);
  };
  write('src/room/a.ts', "import { b } from './b.js';\nexport const a = () => b;\n");
  write('src/room/b.ts', "import type { C } from '../other/c.js';\nexport const b: C = 1;\n");
  write('src/other/c.ts', "import { a } from '../room/a.js';\nexport type C = number;\nvoid a;\n");
  write('src/other/d.ts', "import { b } from '../room/b.js';\nexport const d = b;\n");

  it('each module on a circle is refused, naming the way round (an `import type` closes it too)', async () => {
    expect(await problems(root, 'src/room/a.ts')).toEqual([
      { rule: 'structure/no-import-cycle', text: expect.stringContaining('a.ts → b.ts → ../other/c.ts → a.ts') },
    ]);
    expect(await problems(root, 'src/other/c.ts')).toEqual([
      { rule: 'structure/no-import-cycle', text: expect.stringContaining('c.ts → ../room/a.ts → ../room/b.ts → c.ts') },
    ]);
  });

  it('a module that only leans on the circle is not', async () => {
    expect(await problems(root, 'src/other/d.ts')).toEqual([]);
  });
});
