import type { OperationDocs } from '../http/openapi.js';
import { exampleCliente } from '../orders/order.docs.js';
import { clientsAnswerSchema } from './clients.answers.js';

// GET /api/v1/api-clientes for the OpenAPI at /docs (record and envelope: docs/api-listings.md).

const example = {
  id: 'c-1042',
  ...exampleCliente,
  created_at: '2026-10-02T14:10:00.000Z',
  ultimo_login: '2026-11-18T15:02:00.000Z',
  sincronizado: true,
  sincronizado_em: '2026-11-21T12:00:00.000Z',
};

export const clientsDocs: OperationDocs = {
  description: `Lista os clientes do tenant da chave, com a marcação de sincronização da chave que chama. O registro é o \`cliente\` do pedido mais \`id\`, \`created_at\`, \`ultimo_login\`, \`sincronizado\` e \`sincronizado_em\`.

Marcação: por padrão a página devolvida, e só ela, é marcada como sincronizada para a chave que chama, na mesma transação em que é lida; \`marcar_sincronizado=false\` apenas lê. Outras chaves não são afetadas.

Filtros: \`email\` por trecho, sem diferenciar maiúsculas; \`cpf\` exato, só dígitos (a pontuação de um CPF formatado é ignorada); \`desde\` a partir do início desse dia no fuso do parque. Página: \`limit\` padrão 100, no máximo 500 (um valor maior é servido como 500); ordem padrão \`created_at\` crescente. \`total\` conta os clientes desta página, e uma página vazia traz \`mensagem\` com o motivo.`,
  permissions: ['clientes:read'],
  ok: {
    checked: false,
    description: 'Uma página de clientes.',
    schema: clientsAnswerSchema,
    examples: {
      pagina: { summary: 'Uma página', value: { success: true, data: { clientes: [example], total: 1 } } },
      vazia: {
        summary: 'Nada pendente para esta chave',
        value: {
          success: true,
          data: {
            clientes: [],
            total: 0,
            mensagem: 'Nenhum cliente pendente de sincronização para esta chave de API.',
          },
        },
      },
    },
  },
  details: {
    VALIDATION_ERROR: [{ details: { campos: [{ campo: 'querystring.cpf', mensagem: 'use apenas dígitos' }] } }],
  },
};
