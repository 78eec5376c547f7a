import { describe, expect, it } from 'vitest';
import { clienteRecordSchema } from '../../src/clients/client.schemas.js';

describe('clienteRecordSchema', () => {
  it('tolerates missing and null strings as empty, keeps digits only and numeric ids as text', () => {
    const c = clienteRecordSchema.parse({
      id: 4521,
      nome: 'José',
      sobrenome: null,
      email: ' jose@example.com ',
      cpf: '123.456.789-09',
      telefone: '(11) 98888-7777',
      whatsapp: null,
      endereco: null,
      created_at: '2026-11-20T09:15:00-03:00',
    });
    expect(c).toEqual({
      id: '4521',
      nome: 'José',
      sobrenome: '',
      email: 'jose@example.com',
      cpf: '12345678909',
      data_nascimento: '',
      telefone: '11988887777',
      whatsapp: '',
      endereco: { cep: '', rua: '', numero: '', complemento: '', bairro: '', cidade: '', estado: '' },
      created_at: '2026-11-20T12:15:00.000Z',
      ultimo_login: null,
    });
  });

  it('cuts a birthday sent as a timestamp to its date and refuses an impossible date', () => {
    expect(clienteRecordSchema.parse({ id: 'a', data_nascimento: '1990-05-01T00:00:00.000Z' }).data_nascimento).toBe(
      '1990-05-01',
    );
    const bad = clienteRecordSchema.safeParse({ id: 'a', data_nascimento: '1990-02-30' });
    expect(bad.success).toBe(false);
    expect(bad.error?.issues[0]?.path).toEqual(['data_nascimento']);
  });

  it('refuses a record without id and a malformed timestamp', () => {
    expect(clienteRecordSchema.safeParse({ nome: 'Sem id' }).success).toBe(false);
    expect(clienteRecordSchema.safeParse({ id: 'a', ultimo_login: 'ontem' }).error?.issues[0]?.path).toEqual([
      'ultimo_login',
    ]);
  });
});
