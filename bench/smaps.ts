import fs from 'node:fs';

// A process's resident memory by what it maps (/proc/<pid>/smaps): anonymous memory (the V8 heaps of every
// thread, malloc's arenas, shared array buffers), the brk heap (malloc), the WAL index (<db>-shm), the node
// binary and the shared libraries (code), and other files.

export interface MapParts {
  anonymous: number;
  brkHeap: number;
  walIndex: number;
  nodeBinary: number;
  libraries: number;
  otherFiles: number;
  stacks: number;
}

export function mapParts(pid: number): MapParts {
  const parts: MapParts = {
    anonymous: 0,
    brkHeap: 0,
    walIndex: 0,
    nodeBinary: 0,
    libraries: 0,
    otherFiles: 0,
    stacks: 0,
  };
  let into: keyof MapParts = 'anonymous';
  for (const line of fs.readFileSync(`/proc/${pid}/smaps`, 'utf8').split('\n')) {
    const head = /^[0-9a-f]+-[0-9a-f]+ \S+ \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (head) {
      into = kindOf(head[1]!);
      continue;
    }
    const rss = /^Rss:\s+(\d+) kB/.exec(line);
    if (rss) parts[into] += Number(rss[1]) * 1024;
  }
  return parts;
}

function kindOf(name: string): keyof MapParts {
  if (name === '') return 'anonymous';
  if (name === '[heap]') return 'brkHeap';
  if (name === '[stack]' || name.startsWith('[stack')) return 'stacks';
  if (name.endsWith('-shm')) return 'walIndex';
  if (name.startsWith('[')) return 'anonymous';
  if (/\/node$/.test(name)) return 'nodeBinary';
  if (/\.so(\.|$)|\.node$/.test(name)) return 'libraries';
  return 'otherFiles';
}
