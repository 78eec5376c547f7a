import type { OperationDocs } from '../http/openapi.js';
import { vouchersAnswerSchema } from './order.answers.js';
import { examplePedido } from './order.docs.js';

// GET /api/v1/api-vouchers for the OpenAPI at /docs (envelope: docs/api.md, "Listings").

export const vouchersDocs: OperationDocs = {
  description: `Lista pedidos com seus vouchers, agrupados por comprador e lote, com o detalhamento de valores e a marcação de sincronização da chave que chama. Pedidos \`cancelado\` e \`reembolsado\` vêm junto com os pagos, com o status atual.

Marcação: por padrão cada chamada marca como sincronizados, só para a chave que chama, os vouchers que devolve; \`marcar_sincronizado=false\` apenas lê. O ciclo típico é chamar com \`sincronizado=false\`, processar e repetir: cada chamada traz só o que ainda não foi entregue a esta chave, e outra chave continua vendo tudo como não sincronizado. Um pedido cancelado ou reembolsado volta a aparecer como não sincronizado para todas as chaves. \`sincronizado_em\` guarda a primeira marcação.

Página: \`limit\` padrão 100, no máximo 1000 (um valor maior é servido como 1000), \`offset\` padrão 0, ordem padrão \`created_at\` crescente. Não há bloco de paginação: \`total\` conta os pedidos desta página, e uma página vazia traz \`mensagem\` com o motivo.`,
  permissions: ['vouchers:read'],
  ok: {
    description: 'Uma página de pedidos.',
    schema: vouchersAnswerSchema,
    examples: {
      pagina: { summary: 'Uma página', value: { success: true, data: { pedidos: [examplePedido], total: 1 } } },
      vazia: {
        summary: 'Nada novo para esta chave',
        value: {
          success: true,
          data: { pedidos: [], total: 0, mensagem: 'Nenhum voucher novo para sincronizar com esta chave.' },
        },
      },
    },
  },
};
