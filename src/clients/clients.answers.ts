import { z } from 'zod';
import { timestamp } from '../lib/wire.js';
import { clienteRecordSchema } from './client.schemas.js';

// GET /api/v1/api-clientes (record and envelope: docs/api-listings.md): the one description of what
// clients.routes.ts builds, read by its types, the route's response schema and /docs.

/** A client as served (clients.routes.ts clientPayload): the import record plus this key's marks. */
export const servedClienteSchema = clienteRecordSchema.extend({
  id: z.string().describe('Id do cliente na nuvem, sempre texto'),
  cpf: z.string().describe('Só dígitos'),
  telefone: z.string().describe('Só dígitos'),
  whatsapp: z.string().describe('Só dígitos'),
  created_at: timestamp,
  ultimo_login: timestamp.nullable(),
  sincronizado: z.boolean().describe('Marcado para a chave que chama'),
  sincronizado_em: timestamp.nullable().describe('Primeira marcação para a chave que chama'),
});

export const clientsAnswerSchema = z.strictObject({
  success: z.literal(true),
  data: z.strictObject({
    clientes: z.array(servedClienteSchema),
    total: z.number().int().min(0).describe('Clientes nesta página'),
    mensagem: z.string().optional().describe('Só numa página vazia: por que ela está vazia'),
  }),
});

export type ServedCliente = z.output<typeof servedClienteSchema>;
