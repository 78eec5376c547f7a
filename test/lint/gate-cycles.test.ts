import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

// No import cycle in src/gate, `import type` and `export … from` included (docs/lanes.md, "Rooms
// of src/gate"): each room imports only the rooms below it, and inside a room the contract files
// (relays/relay.ts, relays/osdp/osdp-types.ts, lanes/lane-types.ts) sit under what uses them.
const root = path.resolve(import.meta.dirname, '../..');

function gateImports(dir: string): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const entry of fs.readdirSync(dir, { recursive: true, encoding: 'utf8' })) {
    if (!entry.endsWith('.ts')) continue;
    const file = path.join(dir, entry);
    const { importedFiles } = ts.preProcessFile(fs.readFileSync(file, 'utf8'), true, true);
    const local = importedFiles
      .map((i) => i.fileName)
      .filter((name) => name.startsWith('.'))
      .map((name) => path.resolve(path.dirname(file), name.replace(/\.js$/, '.ts')))
      .filter((target) => target.startsWith(dir));
    graph.set(path.relative(root, file), [...new Set(local.map((t) => path.relative(root, t)))]);
  }
  return graph;
}

/** Each cycle once, as the files around it (depth-first, the usual three colours). */
export function cycles(graph: Map<string, string[]>): string[][] {
  const found: string[][] = [];
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (file: string) => {
    state.set(file, 'open');
    stack.push(file);
    for (const next of graph.get(file) ?? []) {
      if (state.get(next) === 'open') found.push(stack.slice(stack.indexOf(next)));
      else if (!state.has(next)) visit(next);
    }
    stack.pop();
    state.set(file, 'done');
  };
  for (const file of [...graph.keys()].sort()) if (!state.has(file)) visit(file);
  return found;
}

describe('src/gate has no import cycle', () => {
  it('finds a cycle when there is one (the OSDP circle the gate had: bus → pd → relay → bus)', () => {
    const graph = new Map([
      ['osdp-bus.ts', ['osdp-pd.ts', 'osdp-relay.ts']],
      ['osdp-pd.ts', ['osdp-relay.ts']],
      ['osdp-relay.ts', ['osdp-bus.ts']],
    ]);
    expect(cycles(graph)).toEqual([['osdp-bus.ts', 'osdp-pd.ts', 'osdp-relay.ts']]);
  });

  it('none in src/gate, type imports included', () => {
    const graph = gateImports(path.join(root, 'src/gate'));
    expect(graph.size).toBeGreaterThan(30);
    expect(cycles(graph)).toEqual([]);
    expect(graph.get('src/gate/lanes/lane.ts')).toContain('src/gate/relays/relay.ts');
  });
});
