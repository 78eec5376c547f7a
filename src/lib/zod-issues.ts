import type { z } from 'zod';

// How the box words a bad field, wherever one is found: the import's report, the lanes file, a
// cloud page or envelope that does not match its schema.

/** `['pedidos', 12, 'lotes', 0, 'data_uso']` → `pedidos[12].lotes[0].data_uso`. */
export const formatPath = (parts: readonly PropertyKey[]): string =>
  parts
    .map((k) => (typeof k === 'number' ? `[${k}]` : `.${String(k)}`))
    .join('')
    .replace(/^\./, '');

/** Formats a zod error as lines naming the path of each bad field. */
export function describeIssues(error: z.ZodError, prefix: (string | number)[] = []): string[] {
  return error.issues.map((i) => `${formatPath([...prefix, ...i.path]) || '(raiz)'}: ${i.message}`);
}
