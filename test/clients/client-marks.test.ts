import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/auth/api-keys.js';
import { listClients, markClients } from '../../src/clients/clients.repo.js';
import { createTestBox, type TestBox } from '../support/box.js';
import { clientPaths, ids, makeClient, seedClients, seedFamily } from './client-data.js';

let box: TestBox;
beforeEach(async () => {
  box = await createTestBox();
  seedFamily(box);
});
afterEach(async () => {
  await box.close();
});

const call = async (url: string, key = box.keys.clientes) =>
  (await box.app.inject({ method: 'GET', url, headers: { 'x-api-key': key } })).json();
const T0 = '2026-11-21T13:00:00.000Z';

describe.each(clientPaths)('per-key synchronisation at %s (3.4)', (base) => {
  it('marks the returned clients by default, and a later sincronizado=false call no longer returns them', async () => {
    const first = await call(`${base}?sincronizado=false`);
    expect(ids(first)).toEqual(['c-ana', 'c-bruno', 'c-carla', 'c-daniel']);
    expect(
      first.data.clientes.every(
        (c: { sincronizado: boolean; sincronizado_em: string }) => c.sincronizado && c.sincronizado_em === T0,
      ),
    ).toBe(true);

    const again = await call(`${base}?sincronizado=false`);
    expect(again).toEqual({
      success: true,
      data: { clientes: [], total: 0, mensagem: 'Nenhum cliente pendente de sincronização para esta chave de API.' },
    });
    expect(ids(await call(`${base}?sincronizado=true`))).toEqual(['c-ana', 'c-bruno', 'c-carla', 'c-daniel']);
  });

  it('marks only the page it returns', async () => {
    expect(ids(await call(`${base}?sincronizado=false&limit=3`))).toEqual(['c-ana', 'c-bruno', 'c-carla']);
    expect(ids(await call(`${base}?sincronizado=false&marcar_sincronizado=false`))).toEqual(['c-daniel']);
    expect(ids(await call(`${base}?sincronizado=true&marcar_sincronizado=false`))).toEqual([
      'c-ana',
      'c-bruno',
      'c-carla',
    ]);
  });

  it('only reads with marcar_sincronizado=false', async () => {
    const read = await call(`${base}?marcar_sincronizado=false`);
    expect(
      read.data.clientes.map((c: { sincronizado: boolean; sincronizado_em: null }) => [
        c.sincronizado,
        c.sincronizado_em,
      ]),
    ).toEqual(Array(4).fill([false, null]));
    expect(ids(await call(`${base}?sincronizado=false`))).toHaveLength(4);
  });

  it('keeps the time of the first marking', async () => {
    await call(`${base}?cpf=11111111111`);
    box.clock.advance(3_600_000);
    const later = await call(base);
    const ana = later.data.clientes.find((c: { id: string }) => c.id === 'c-ana');
    const bruno = later.data.clientes.find((c: { id: string }) => c.id === 'c-bruno');
    expect(ana).toMatchObject({ sincronizado: true, sincronizado_em: T0 });
    expect(bruno).toMatchObject({ sincronizado: true, sincronizado_em: '2026-11-21T14:00:00.000Z' });
  });

  it('keeps marks apart between API keys', async () => {
    const nowIso = box.clock.nowIso();
    const second = box.db.sqlite.transaction(
      () => createApiKey(box.db, { tenantId: box.tenantId, name: 'crm-2', permissions: ['clientes:read'], nowIso }).key,
    )();
    await call(`${base}?sincronizado=false`);
    const other = await call(`${base}?sincronizado=false&marcar_sincronizado=false`, second);
    expect(ids(other)).toEqual(['c-ana', 'c-bruno', 'c-carla', 'c-daniel']);
    expect(other.data.clientes.every((c: { sincronizado: boolean }) => !c.sincronizado)).toBe(true);

    await call(`${base}?sincronizado=false&limit=1`, second);
    expect(ids(await call(`${base}?sincronizado=true&marcar_sincronizado=false`, second))).toEqual(['c-ana']);
    expect(ids(await call(`${base}?sincronizado=true&marcar_sincronizado=false`))).toHaveLength(4);
  });

  it('keeps a mark when the client is updated from the cloud, and shows the new client as pending', async () => {
    await call(base);
    seedClients(box, [
      makeClient('c-ana', { nome: 'Ana Maria', email: 'ana@example.com' }),
      makeClient('c-novo', { created_at: '2026-11-21T12:30:00.000Z' }),
    ]);
    const pending = await call(`${base}?sincronizado=false&marcar_sincronizado=false`);
    expect(ids(pending)).toEqual(['c-novo']);
    const ana = (await call(`${base}?cpf=12345678909&order_by=nome&marcar_sincronizado=false`)).data.clientes[0];
    expect(ana).toMatchObject({ id: 'c-ana', nome: 'Ana Maria', sincronizado: true, sincronizado_em: T0 });
  });
});

describe('markClients', () => {
  it('never moves a mark once made, even when asked to mark again', () => {
    const { sqlite } = box.db;
    const apiKeyId = 1; // any existing key: marks are per key id
    const read = () =>
      listClients(box.db, {
        tenantId: box.tenantId,
        apiKeyId,
        orderBy: 'created_at',
        order: 'asc',
        limit: 10,
        offset: 0,
      }).map((r) => r.sincronizado_em);
    const pks = listClients(box.db, {
      tenantId: box.tenantId,
      apiKeyId,
      orderBy: 'created_at',
      order: 'asc',
      limit: 10,
      offset: 0,
    }).map((r) => r.id);
    sqlite.transaction(() => markClients(box.db, apiKeyId, pks.slice(0, 2), T0))();
    sqlite.transaction(() => markClients(box.db, apiKeyId, pks, '2026-11-22T00:00:00.000Z'))();
    expect(read()).toEqual([T0, T0, '2026-11-22T00:00:00.000Z', '2026-11-22T00:00:00.000Z']);
  });
});

describe('client marks over a real socket', () => {
  it('lists and marks through fetch', async () => {
    const url = await box.app.listen({ port: 0, host: '127.0.0.1' });
    const headers = { 'X-API-Key': box.keys.clientes };
    const first = await fetch(`${url}/v1/api-clientes?sincronizado=false`, { headers });
    expect(first.status).toBe(200);
    expect(((await first.json()) as any).data.total).toBe(4);
    const second = await fetch(`${url}/api/v1/api-clientes?sincronizado=false`, { headers });
    expect(((await second.json()) as any).data).toMatchObject({ clientes: [], total: 0, mensagem: expect.any(String) });
    const missing = await fetch(`${url}/api/v1/api-clientes`);
    expect(missing.status).toBe(401);
    expect(((await missing.json()) as any).error.code).toBe('MISSING_API_KEY');
  });
});
