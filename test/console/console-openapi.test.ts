import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestBox, type TestBox } from '../support/box.js';

let box: TestBox;
beforeAll(async () => {
  box = await createTestBox();
});
afterAll(() => box.close());

it('documents every console endpoint in the OpenAPI description at /docs, under the console tag', async () => {
  const spec = (await box.app.inject({ method: 'GET', url: '/docs/json' })).json() as {
    paths: Record<string, Record<string, { tags?: string[] }>>;
  };
  const consolePaths = Object.keys(spec.paths).filter((p) => p.startsWith('/api/console/'));
  expect(consolePaths).toEqual(
    expect.arrayContaining([
      '/api/console/entrar',
      '/api/console/leitura',
      '/api/console/busca',
      '/api/console/pedidos/{numero}',
      '/api/console/eventos',
      '/api/console/relatorio',
    ]),
  );
  for (const p of consolePaths) for (const op of Object.values(spec.paths[p]!)) expect(op.tags).toEqual(['console']);
  // The page itself is not an API.
  expect(Object.keys(spec.paths).some((p) => p.startsWith('/console'))).toBe(false);
});
