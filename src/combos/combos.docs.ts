import type { Answer, OperationDocs } from '../http/openapi.js';
import { availabilityAnswerSchema, comboAnswerSchema, comboListAnswerSchema } from './combo.answers.js';

// The combo routes for the OpenAPI at /docs (envelopes, defaults and limits: docs/api-listings.md).

const ITEM = {
  tipo_ingresso_id: '0f6c7d3a-1b2e-4c5d-8e9f-a0b1c2d3e401',
  tipo_ingresso_nome: 'Passaporte Dia',
  categoria_lote_id: 'a1d2e3f4-5a6b-4c7d-8e9f-0a1b2c3d4e01',
};
const exampleCombo = {
  id: '5b1f0c2e-8a4d-4f6b-9c3e-2d7a1e0b4c01',
  nome: 'Combo Família',
  slug: 'combo-familia',
  descricao: '<p>Dois adultos e duas crianças, com desconto.</p>',
  preco_combo: 259.9,
  preco_original: 299.6,
  economia: { valor: 39.7, percentual: 13.25 },
  tipo_desconto: 'preco_fixo',
  modo_qrcode: 'unico',
  requer_data: true,
  destaque: true,
  max_por_pedido: 4,
  total_ingressos: 4,
  itens_resumo: '2x Passaporte Dia (Adulto) + 2x Passaporte Dia (Infantil)',
  itens: [
    { ...ITEM, lote_nome: 'Adulto', quantidade: 2, preco_unitario: 89.9 },
    {
      ...ITEM,
      lote_nome: 'Infantil',
      categoria_lote_id: 'a1d2e3f4-5a6b-4c7d-8e9f-0a1b2c3d4e02',
      quantidade: 2,
      preco_unitario: 59.9,
    },
  ],
};

const RATE_HEADERS = {
  'X-RateLimit-Limit': 'Requisições permitidas por janela de 60 segundos para a chave (100)',
  'X-RateLimit-Remaining': 'Requisições que ainda cabem na janela atual',
  'X-RateLimit-Reset': 'Segundos até a janela recomeçar',
};
const AUTH = `Chave em \`X-Integration-Key\` com a permissão integration:combos:read (ou all); qualquer falha de autenticação é AUTH_ERROR. Limite de 100 requisições GET por minuto por chave, somado entre as três rotas de combos (RATE_LIMITED ao passar, com \`Retry-After\`). Um erro ao ler os dados é QUERY_ERROR.`;
const ok = (a: Answer): Answer => ({ ...a, headers: RATE_HEADERS });
const comboErrors = ['RATE_LIMITED', 'QUERY_ERROR'] as const;

export const comboListDocs: OperationDocs = {
  description: `Lista os combos ativos do tenant da chave, com itens, preços e economia. \`destaque=true\` traz só os destacados (false, só os outros); \`slug\` é exato. Página: \`limit\` padrão e máximo 100 (um valor maior é servido como 100), ordem: destacados primeiro, depois por nome. \`total\` conta todos os combos que atendem aos filtros.

${AUTH}`,
  ok: ok({
    description: 'Uma página de combos.',
    schema: comboListAnswerSchema,
    examples: {
      pagina: {
        summary: 'Uma página',
        value: { success: true, data: { combos: [exampleCombo], total: 1, limit: 100, offset: 0 } },
      },
    },
  }),
  errors: comboErrors,
};

export const comboDocs: OperationDocs = {
  description: `Um combo pelo seu id (uuid) ou pelo slug, procurado nessa ordem entre os combos ativos do tenant da chave. Nenhum: COMBO_NOT_FOUND, só com \`code\` e \`message\`.

${AUTH}`,
  ok: ok({
    description: 'O combo.',
    schema: comboAnswerSchema,
    examples: { combo: { summary: 'Um combo', value: { success: true, data: exampleCombo } } },
  }),
  errors: [...comboErrors, 'COMBO_NOT_FOUND'],
};

const stock = (estoqueAdulto: number, estoqueInfantil: number) => [
  {
    tipo_ingresso_nome: 'Passaporte Dia',
    lote_nome: 'Adulto',
    quantidade_necessaria: 2,
    estoque_disponivel: estoqueAdulto,
  },
  {
    tipo_ingresso_nome: 'Passaporte Dia',
    lote_nome: 'Infantil',
    quantidade_necessaria: 2,
    estoque_disponivel: estoqueInfantil,
  },
];

export const availabilityDocs: OperationDocs = {
  description: `As datas de um combo (id ou slug) e se cada uma está disponível. O estoque é compartilhado: uma data só está disponível quando todos os itens têm estoque, e \`min_stock\` diz quantos combos ainda cabem, limitado pelo item mais escasso (um item sem estoque registrado na data conta como 0). Período: \`date_from\` padrão hoje (fuso do parque), \`date_to\` padrão \`date_from\` + 30 dias, no máximo 366 dias; uma entrada por dia, em ordem. \`date_to\` antes de \`date_from\` é VALIDATION_ERROR.

${AUTH}`,
  ok: ok({
    description: 'As datas do período.',
    schema: availabilityAnswerSchema,
    examples: {
      datas: {
        summary: 'Dois dias',
        value: {
          success: true,
          data: {
            combo_id: exampleCombo.id,
            combo_nome: exampleCombo.nome,
            modo_qrcode: 'unico',
            total_ingressos: 4,
            requer_data: true,
            dates: [
              { date: '2026-12-05', available: true, min_stock: 48, items_availability: stock(180, 96) },
              { date: '2026-12-06', available: false, min_stock: 0, items_availability: stock(40, 1) },
            ],
          },
          timestamp: '2026-11-21T13:00:00.000Z',
        },
      },
    },
  }),
  errors: [...comboErrors, 'COMBO_NOT_FOUND'],
  details: {
    VALIDATION_ERROR: [
      {
        details: {
          campos: [{ campo: 'querystring.date_to', mensagem: 'deve ser igual ou posterior a date_from (2026-12-05)' }],
        },
      },
    ],
  },
};
