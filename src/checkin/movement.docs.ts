import { CHECKIN_PERMISSIONS } from '../auth/auth.js';
import { WRITE_REFUSED, type OperationDocs } from '../http/openapi.js';
import { EXAMPLE_NUMERO, EXAMPLE_QRS } from '../orders/order.docs.js';
import { exitAnswerSchema, occupancyAnswerSchema } from './movement.answers.js';

// The box's movement doors (docs/api.md, "Movements") for the OpenAPI at /docs.

export const exitDocs: OperationDocs = {
  description: `Registra a saída de uma pessoa (QR de pessoa) ou de um grupo (QR de combo) de uma área, para quem opera com um coletor de mão; nunca faz check-in. As entradas de um coletor são o check-in (POST /api/v1/api-qrcode-checkin). Quem não está dentro segue a política \`saidaSemEntrada\` do tenant (do arquivo de pistas; padrão \`liberar\`, registrada como saída sem entrada); com \`negar\` a resposta é SEM_ENTRADA. \`area\` padrão: \`parque\`.`,
  permissions: CHECKIN_PERMISSIONS,
  ok: {
    description: 'Saída registrada.',
    schema: exitAnswerSchema,
    examples: {
      saida: {
        summary: 'Uma pessoa saiu',
        value: {
          success: true,
          data: {
            message: 'Saída registrada: 1 pessoa(s).',
            movimento: 'saida',
            sem_entrada: false,
            area: 'parque',
            em: '2026-11-21T17:02:00.000Z',
            numero_pedido: EXAMPLE_NUMERO,
            pessoas: [{ qr_code: EXAMPLE_QRS[0], nome: 'Maria Silva' }],
          },
        },
      },
      sem_entrada: {
        summary: 'Saída sem entrada, liberada pela política',
        value: {
          success: true,
          data: {
            message: 'Saída liberada sem entrada registrada hoje.',
            movimento: 'saida',
            sem_entrada: true,
            area: 'parque',
            em: '2026-11-21T17:02:00.000Z',
            numero_pedido: null,
            pessoas: [],
          },
        },
      },
    },
  },
  errors: ['SEM_ENTRADA'],
  details: { SERVICE_UNAVAILABLE: WRITE_REFUSED },
};

export const occupancyDocs: OperationDocs = {
  description:
    'Quantas pessoas estão dentro de cada área agora, com a capacidade e as vagas livres. O parque e toda área do arquivo de pistas aparecem sempre, mesmo vazios.',
  permissions: ['local:read'],
  ok: {
    description: 'As áreas.',
    schema: occupancyAnswerSchema,
    examples: {
      areas: {
        summary: 'Parque e uma área com capacidade',
        value: {
          success: true,
          data: {
            areas: [
              { area: 'parque', dentro: 312, capacidade: null, livres: null },
              { area: 'piscina', dentro: 80, capacidade: 120, livres: 40 },
            ],
          },
        },
      },
    },
  },
};
