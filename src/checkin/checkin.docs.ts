import { CHECKIN_PERMISSIONS } from '../auth/auth.js';
import { errorCatalogue, type ErrorCode } from '../http/errors.js';
import { DETAILS, WRITE_REFUSED, type OperationDocs } from '../http/openapi.js';
import {
  EXAMPLE_ADDITIONAL_QR,
  EXAMPLE_CHECKIN_AT,
  EXAMPLE_NUMERO,
  EXAMPLE_QRS,
  exampleCheckinPedido,
  exampleComboPedido,
  exampleOrderModePedido,
  exampleReversed,
} from '../orders/order.docs.js';
import { checkinAnswerSchema, reversalAnswerSchema } from './checkin.answers.js';
import { batchMessage } from './checkin.payload.js';
import { MAX_BATCH_CODES } from './rules/index.js';

// The check-in and reversal answers (4.1, 4.2 and docs/api.md) for the OpenAPI at /docs; the shapes
// are checkin.answers.ts's.

const answer = (summary: string, data: unknown) => ({ summary, value: { success: true, data } });
const personAnswer = {
  message: 'Check-in realizado com sucesso.',
  qr_code: EXAMPLE_QRS[0],
  checkin_em: EXAMPLE_CHECKIN_AT,
  pedido: exampleCheckinPedido(1),
};
const reversedAnswer = {
  message: 'Check-in estornado com sucesso.',
  pedido: { numero_pedido: EXAMPLE_NUMERO, pessoa: exampleReversed(0) },
};
const expired = {
  success: false,
  status: errorCatalogue.TICKET_EXPIRED.status,
  error: {
    code: 'TICKET_EXPIRED',
    message: errorCatalogue.TICKET_EXPIRED.message,
    details: { ...DETAILS.TICKET_EXPIRED![0]!.details, qr_code: 'QR-DE-ONTEM' },
  },
};
const notFound = {
  success: false,
  status: errorCatalogue.TICKET_NOT_FOUND.status,
  error: {
    code: 'TICKET_NOT_FOUND',
    message: errorCatalogue.TICKET_NOT_FOUND.message,
    details: { qr_code: 'QR-DESCONHECIDO' },
  },
};

export const checkinExamples = {
  pessoa: answer('QR de pessoa', personAnswer),
  combo: answer('QR de combo (grupo)', {
    message: 'Check-in do combo realizado: 2 de 2 pessoa(s).',
    combo_qr_code: EXAMPLE_NUMERO,
    total_checkins: 2,
    total_pessoas: 2,
    pedido: exampleComboPedido(),
  }),
  pedido: answer('Pedido (numero_pedido)', {
    message: 'Check-in do pedido realizado: 2 de 2 pessoa(s).',
    numero_pedido: EXAMPLE_NUMERO,
    total_checkins: 2,
    total_pessoas: 2,
    pedido: exampleOrderModePedido(),
  }),
  adicional: answer('QR de adicional', {
    message: 'Adicional utilizado: unidade 1 de 2.',
    qr_code: EXAMPLE_ADDITIONAL_QR,
    checkin_em: EXAMPLE_CHECKIN_AT,
    adicional: { nome: 'Refrigerante lata', quantidade: 2, unidades_utilizadas: 1, unidades_restantes: 1 },
    pedido: exampleCheckinPedido(0),
  }),
  lote: answer('Lote de códigos', {
    message: batchMessage(1, 1, 'check-in(s)'),
    total_enviados: 2,
    total_sucesso: 1,
    total_falha: 1,
    resultados: [
      { ...personAnswer, success: true, status: 200 },
      { qr_code: 'QR-DE-ONTEM', ...expired },
    ],
  }),
};

export const reversalExamples = {
  pessoa: answer('QR de pessoa', reversedAnswer),
  combo: answer('QR de combo (grupo)', {
    message: 'Estorno do combo realizado: 2 pessoa(s).',
    combo_qr_code: EXAMPLE_NUMERO,
    total_estornados: 2,
    total_pessoas: 2,
    pedido: { numero_pedido: EXAMPLE_NUMERO, pessoas: [exampleReversed(0), exampleReversed(1)] },
  }),
  pedido: answer('Pedido (numero_pedido)', {
    message: 'Estorno do pedido realizado: 2 pessoa(s).',
    numero_pedido: EXAMPLE_NUMERO,
    total_estornados: 2,
    total_pessoas: 2,
    pedido: { numero_pedido: EXAMPLE_NUMERO, pessoas: [exampleReversed(0), exampleReversed(1)] },
  }),
  adicional: answer('QR de adicional', {
    message: 'Unidade do adicional estornada com sucesso.',
    qr_code: EXAMPLE_ADDITIONAL_QR,
    adicional: { nome: 'Refrigerante lata', quantidade: 2, unidades_utilizadas: 0, unidades_restantes: 2 },
    pedido: {
      numero_pedido: EXAMPLE_NUMERO,
      estornado_em: '2026-11-21T12:45:00.000Z',
      estorno_dispositivo: 'catraca-1',
      estorno_operador: 'Joana',
    },
  }),
  lote: answer('Lote de códigos', {
    message: batchMessage(1, 1, 'estorno(s)'),
    total_enviados: 2,
    total_sucesso: 1,
    total_falha: 1,
    resultados: [
      { ...reversedAnswer, qr_code: EXAMPLE_QRS[0], success: true, status: 200 },
      { qr_code: 'QR-DESCONHECIDO', ...notFound },
    ],
  }),
};

/** The refusals of a check-in (7.1) and of a reversal (7.2), whatever the door: the API's and the console's docs. */
export const CHECKIN_REFUSALS: ErrorCode[] = [
  'TICKET_NOT_FOUND',
  'TICKET_ALREADY_USED',
  'TICKET_EXPIRED',
  'TICKET_NOT_VALID_YET',
  'TICKET_CANCELLED',
  'ORDER_NOT_FOUND',
  'ORDER_NOT_PAID',
  'NO_PEOPLE',
  'AMBIGUOUS_INPUT',
  'MISSING_FIELD',
];
export const REVERSAL_REFUSALS: ErrorCode[] = [
  'ESTORNO_NAO_PERMITIDO',
  'SEM_CHECKIN',
  'JA_ESTORNADO',
  'TICKET_NOT_FOUND',
  'ORDER_NOT_FOUND',
  'AMBIGUOUS_INPUT',
  'MISSING_FIELD',
  'TENANT_MISMATCH',
];

const BODY = `Envie exatamente um de \`qr_code\` ou \`numero_pedido\`: os dois juntos dão AMBIGUOUS_INPUT, nenhum dá MISSING_FIELD. \`terminal\` e \`operador\` são opcionais e ficam registrados com o evento. Se o banco não pode ser gravado (disco cheio, somente leitura), nada é feito pela metade: SERVICE_UNAVAILABLE com \`details.motivo\` e uma mensagem que pede o procedimento manual da portaria.`;
const BATCH = `Vários códigos separados por vírgula formam um lote (até ${MAX_BATCH_CODES} distintos): repetidos contam uma vez, são processados em ordem, um erro não interrompe os demais, e a resposta é sempre 200 com um item por código em \`resultados[]\` (o \`data\` do código único mais \`qr_code\`, \`success\` e \`status\`, ou o \`error\` do código). Com um só código distinto a resposta é a do código único, com o status do seu resultado.`;

export const checkinDocs: OperationDocs = {
  description: `Faz o check-in e devolve o pedido completo no mesmo formato e com os mesmos nomes da listagem de vouchers (pedido, lotes, pessoas), para que um só parser sirva aos dois. ${BODY}

- \`qr_code\` de pessoa: o check-in dessa pessoa.
- \`qr_code\` de combo (o número do pedido, \`YYYYMMDD-NNNN\`): entram juntos todos os participantes pendentes com ingresso válido hoje; a resposta traz \`lotes[].pessoas[]\` e \`adicionais[]\`. Todos já com check-in: TICKET_ALREADY_USED.
- \`qr_code\` de adicional (14 caracteres): cada leitura usa uma unidade, até a quantidade comprada.
- \`numero_pedido\`: o check-in de todas as pessoas pendentes do pedido, que precisa estar pago (ORDER_NOT_PAID) e ser do tenant da chave (ORDER_NOT_FOUND). Adicionais não entram: têm seus próprios QR codes.

${BATCH}

Um ingresso vale só na sua data de uso, no fuso do parque: antes dela TICKET_NOT_VALID_YET, depois TICKET_EXPIRED (\`dayuse_sem_data\` não tem data). Um ingresso já usado é TICKET_ALREADY_USED; de pedido cancelado ou reembolsado, TICKET_CANCELLED.`,
  permissions: CHECKIN_PERMISSIONS,
  ok: {
    description: 'Check-in feito: um dos cinco formatos de `data` (pessoa, combo, pedido, adicional ou lote).',
    schema: checkinAnswerSchema,
    examples: checkinExamples,
  },
  errors: CHECKIN_REFUSALS,
  details: {
    SERVICE_UNAVAILABLE: WRITE_REFUSED,
    NO_PEOPLE: [
      { details: { numero_pedido: EXAMPLE_NUMERO } },
      { label: 'combo', details: { combo_qr_code: EXAMPLE_NUMERO } },
    ],
    VALIDATION_ERROR: [
      {
        details: {
          campos: [
            { campo: 'body.qr_code', mensagem: `no máximo ${MAX_BATCH_CODES} códigos por requisição (recebidos 1200)` },
          ],
        },
      },
    ],
  },
};

export const reversalDocs: OperationDocs = {
  description: `Estorna um check-in, só no mesmo dia do check-in (no fuso do parque). ${BODY}

- \`qr_code\` de pessoa: o estorno dessa pessoa.
- \`qr_code\` de combo: o estorno de todos os participantes com check-in ativo feito hoje; a resposta lista os estornados.
- \`qr_code\` de adicional: o estorno da unidade usada mais recente.
- \`numero_pedido\`: o estorno de todas as pessoas do pedido com check-in ativo feito hoje.

${BATCH}

Sem nenhum check-in: SEM_CHECKIN. Todos já estornados: JA_ESTORNADO (o único código com status 423, com os dados do estorno original). Check-in de outro dia: ESTORNO_NAO_PERMITIDO. Um ingresso que existe só em outro tenant: TENANT_MISMATCH. Uma pessoa estornada pode fazer check-in de novo.`,
  permissions: CHECKIN_PERMISSIONS,
  ok: {
    description: 'Estorno feito: um dos cinco formatos de `data` (pessoa, combo, pedido, adicional ou lote).',
    schema: reversalAnswerSchema,
    examples: reversalExamples,
  },
  errors: REVERSAL_REFUSALS,
  details: { SERVICE_UNAVAILABLE: WRITE_REFUSED },
};
