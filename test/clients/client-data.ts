import { clienteRecordSchema, type ClienteRecordInput } from '../../src/clients/client.schemas.js';
import { upsertClient } from '../../src/clients/clients.repo.js';
import type { TestBox } from '../support/box.js';

export function makeClient(id: string, over: Partial<ClienteRecordInput> = {}): ClienteRecordInput {
  return {
    id,
    nome: 'Cliente',
    sobrenome: id,
    email: `${id}@example.com`,
    cpf: '12345678909',
    data_nascimento: '1990-05-01',
    telefone: '(11) 99999-0000',
    whatsapp: '11999990000',
    endereco: {
      cep: '01001000',
      rua: 'Praça da Sé',
      numero: '1',
      complemento: '',
      bairro: 'Sé',
      cidade: 'São Paulo',
      estado: 'SP',
    },
    created_at: '2026-11-01T12:00:00.000Z',
    ultimo_login: null,
    ...over,
  };
}

/**
 * Four clients of tenant `parque` around the São Paulo midnight that starts 2026-11-20
 * (03:00 UTC), plus one client of the other tenant.
 */
export const family = {
  ana: makeClient('c-ana', {
    nome: 'Ana',
    sobrenome: 'Souza',
    email: 'ana@example.com',
    cpf: '111.111.111-11',
    created_at: '2026-11-01T12:00:00.000Z',
    ultimo_login: '2026-11-20T10:00:00.000Z',
  }),
  bruno: makeClient('c-bruno', {
    nome: 'bruno',
    sobrenome: 'Lima',
    email: 'BRUNO_x@Mail.com',
    cpf: '22222222222',
    created_at: '2026-11-20T02:59:59.000Z',
    ultimo_login: null,
  }),
  carla: makeClient('c-carla', {
    nome: 'Carla',
    sobrenome: 'Dias',
    email: 'carla@exemplo.com.br',
    cpf: '33333333333',
    created_at: '2026-11-20T03:00:00.000Z',
    ultimo_login: '2026-11-21T09:00:00.000Z',
  }),
  daniel: makeClient('c-daniel', {
    nome: 'Daniel',
    sobrenome: 'Reis',
    email: 'daniel.oox@example.com',
    cpf: '44444444444',
    created_at: '2026-11-21T12:00:00.000Z',
    ultimo_login: '2026-11-01T08:00:00.000Z',
  }),
};
export const outsider = makeClient('c-eva', { nome: 'Eva', email: 'eva@example.com', cpf: '55555555555' });

/** Stores clients as `gate import` would: parsed by the shared schema, upserted in one transaction. */
export function seedClients(box: TestBox, clients: ClienteRecordInput[], tenantId = box.tenantId) {
  const { sqlite } = box.db;
  sqlite.transaction(() =>
    clients.forEach((c) => upsertClient(box.db, tenantId, clienteRecordSchema.parse(c), box.clock.nowIso())),
  )();
}

export function seedFamily(box: TestBox) {
  seedClients(box, Object.values(family));
  seedClients(box, [outsider], box.otherTenantId);
}

export const clientPaths = ['/api/v1/api-clientes', '/v1/api-clientes'] as const;
export const ids = (body: { data: { clientes: { id: string }[] } }) => body.data.clientes.map((c) => c.id);
