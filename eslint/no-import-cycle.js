// @ts-check
// ESLint rule: a module of src/ must not reach itself again through its imports (docs/architecture.md, "Imports
// flow one way"). `import type` counts too: a type circle is a design circle, and a browser bundle of the pure rules
// must not drag a room in through a type. The graph is read from the files' import lines, once per lint run.
import fs from 'node:fs';
import path from 'node:path';

const IMPORT =
  /(?:^|[\n;])\s*(?:import|export)\s[^'";]*?\sfrom\s*['"](\.{1,2}\/[^'"]+)['"]|import\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*\)/g;

/** @type {Map<string, string[]>} */
const importsOf = new Map();

/** @param {string} from @param {string} spec */
function resolve(from, spec) {
  const base = path.resolve(path.dirname(from), spec.replace(/\.js$/, ''));
  for (const candidate of [`${base}.ts`, `${base}.tsx`, path.join(base, 'index.ts')])
    if (fs.existsSync(candidate)) return candidate;
  return undefined;
}

/** @param {string} file @param {string} [text] */
function edges(file, text) {
  if (text === undefined && importsOf.has(file)) return /** @type {string[]} */ (importsOf.get(file));
  let source = text;
  if (source === undefined) {
    try {
      source = fs.readFileSync(file, 'utf8');
    } catch {
      source = '';
    }
  }
  const found = [];
  for (const m of source.matchAll(IMPORT)) {
    const target = resolve(file, m[1] ?? m[2] ?? '');
    if (target) found.push(target);
  }
  importsOf.set(file, found);
  return found;
}

/** The shortest way from `start`'s imports back to `start`, or undefined. */
function cycleThrough(/** @type {string} */ start) {
  /** @type {Map<string, string | null>} */
  const cameFrom = new Map([[start, null]]);
  const queue = [start];
  while (queue.length > 0) {
    const at = /** @type {string} */ (queue.shift());
    for (const next of edges(at)) {
      if (next === start) {
        const way = [start];
        for (let step = at; step !== start; step = /** @type {string} */ (cameFrom.get(step))) way.splice(1, 0, step);
        return [...way, start];
      }
      if (!cameFrom.has(next)) {
        cameFrom.set(next, at);
        queue.push(next);
      }
    }
  }
  return undefined;
}

/** @type {import('eslint').Rule.RuleModule} */
export const noImportCycle = {
  meta: {
    type: 'problem',
    docs: { description: 'A module must not import itself back through other modules (type imports included).' },
    schema: [],
    messages: { cycle: 'Import cycle: {{way}}. Move the shared part down into a module both can import.' },
  },
  create(context) {
    const file = context.filename;
    return {
      Program(node) {
        edges(file, context.sourceCode.text);
        const way = cycleThrough(file);
        if (!way) return;
        const root = path.dirname(file);
        context.report({
          node,
          messageId: 'cycle',
          data: { way: way.map((f) => path.relative(root, f) || path.basename(f)).join(' → ') },
        });
      },
    };
  },
};

export default { rules: { 'no-import-cycle': noImportCycle } };
