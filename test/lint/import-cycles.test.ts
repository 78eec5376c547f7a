import fs from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';

// No import cycle in src/ (issue 22), `import type` and re-exports counted: a cycle makes two modules one in
// all but name, and the order they load in decides what the other sees.
const root = path.resolve(import.meta.dirname, '../..');
const SPECIFIER = /^\s*(?:import|export)\s[^'"]*?from\s+['"](\.[^'"]+)['"]|^\s*import\s+['"](\.[^'"]+)['"]/gm;

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return e.name === 'node_modules' || e.name === 'dist' ? [] : sourceFiles(full);
    return /\.tsx?$/.test(e.name) && !e.name.endsWith('.d.ts') ? [full] : [];
  });
}

/** The relative imports of a file, as the .ts files they name. */
function importsOf(file: string, text: string): string[] {
  return [...text.matchAll(SPECIFIER)]
    .map((m) => path.resolve(path.dirname(file), (m[1] ?? m[2])!))
    .map((target) => target.replace(/\.js$/, ''))
    .flatMap((base) => [`${base}.ts`, `${base}.tsx`, path.join(base, 'index.ts')].filter((f) => fs.existsSync(f)));
}

/** Every cycle found by a depth-first walk, each as the files around it. */
function findCycles(graph: Map<string, string[]>): string[][] {
  const cycles: string[][] = [];
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (file: string) => {
    state.set(file, 'open');
    stack.push(file);
    for (const next of graph.get(file) ?? []) {
      if (state.get(next) === 'open') cycles.push(stack.slice(stack.indexOf(next)));
      else if (!state.has(next)) visit(next);
    }
    stack.pop();
    state.set(file, 'done');
  };
  for (const file of graph.keys()) if (!state.has(file)) visit(file);
  return cycles;
}

it('src/ has no import cycle (import type counted)', () => {
  const files = sourceFiles(path.join(root, 'src'));
  const graph = new Map(files.map((f) => [f, importsOf(f, fs.readFileSync(f, 'utf8'))]));
  const cycles = findCycles(graph).map((c) => c.map((f) => path.relative(root, f)).join(' → '));
  expect(cycles).toEqual([]);
});

it('the walk finds a cycle through an import type', () => {
  const graph = new Map([
    ['a', ['b']],
    ['b', ['c']],
    ['c', ['a']],
    ['d', ['a']],
  ]);
  expect(findCycles(graph)).toEqual([['a', 'b', 'c']]);
});
