import type { OperationDocs } from '../http/openapi.js';
import { gatesAnswerSchema, laneEventsAnswerSchema } from './gates.answers.js';

// The lanes as the gate technician sees them (docs/lanes.md), for the OpenAPI at /docs; shapes of
// gates.routes.ts.

const exampleLane = {
  nome: 'entrada-1',
  direcao: 'entrada',
  area: 'parque',
  operador: 'pista entrada-1',
  sensor_passagem: true,
  falha_segura: true,
  rele: {
    driver: 'bridge',
    porta: '/dev/ttyUSB0',
    online: true,
    passagem_livre: false,
    visto_em: '2026-11-21T12:59:59.000Z',
    problema: null,
    dispositivo: { firmware: '1.4.0' },
  },
  leitores: [
    { porta: '/dev/ttyACM0', conectado: true, desde: '2026-11-21T08:00:02.000Z', reconexoes: 0, ultimo_erro: null },
  ],
  ultima_leitura: { codigo: 'a1b2c3d4-0000-4000-8000-000000000001', em: '2026-11-21T12:31:07.000Z' },
  ultimo_resultado: {
    tipo: 'passagem',
    em: '2026-11-21T12:31:09.000Z',
    codigo: 'a1b2c3d4-0000-4000-8000-000000000001',
    detalhes: null,
  },
  liberacoes_aguardando_passagem: 0,
  contadores: {
    leituras: 812,
    ignoradas: 3,
    liberadas: 790,
    negadas: 19,
    passagens: 788,
    nao_passaram: 2,
    caronas: 1,
    erros: 0,
  },
};

export const gatesDocs: OperationDocs = {
  description:
    'As pistas desta caixa para o tenant da chave: cada relé e leitor com seu estado (online, conectado, último problema), a última leitura e o último resultado, os contadores, a ocupação das áreas e o alarme de incêndio. Sem pistas configuradas para o tenant, `configurado` é false e a lista vem vazia.',
  permissions: ['local:read'],
  ok: {
    description: 'As pistas.',
    schema: gatesAnswerSchema,
    examples: {
      pistas: {
        summary: 'Uma pista',
        value: {
          success: true,
          data: {
            configurado: true,
            alarme_incendio: { ativo: false, desde: null, origens: [] },
            ocupacao: [{ area: 'parque', dentro: 312, capacidade: null, livres: null }],
            pistas: [exampleLane],
          },
        },
      },
      sem_pistas: {
        summary: 'Nenhuma pista configurada',
        value: {
          success: true,
          data: {
            configurado: false,
            alarme_incendio: null,
            pistas: [],
            mensagem: 'Nenhuma pista configurada (GATE_CONFIG) para este tenant.',
          },
        },
      },
    },
  },
};

export const laneEventsDocs: OperationDocs = {
  description:
    'Os eventos das pistas (liberada, negada, passagem, não passou, carona, início e fim de incêndio, dispositivo offline e online), em ordem de id. Para acompanhar, envie `apos_id` com o último id recebido; filtros por `pista` e `tipo`. Página: `limit` padrão 100, no máximo 1000.',
  permissions: ['local:read'],
  ok: {
    checked: false,
    description: 'Uma página de eventos de pista.',
    schema: laneEventsAnswerSchema,
    examples: {
      eventos: {
        summary: 'Uma passagem',
        value: {
          success: true,
          data: {
            eventos: [
              {
                id: 5012,
                ocorrido_em: '2026-11-21T12:31:09.000Z',
                pista: 'entrada-1',
                tipo: 'passagem',
                codigo: 'a1b2c3d4-0000-4000-8000-000000000001',
                detalhes: null,
              },
            ],
            total: 1,
          },
        },
      },
    },
  },
};
