import type { OperationDocs } from '../http/openapi.js';
import { healthAnswerSchema, liveAnswerSchema, readyAnswerSchema } from './status.answers.js';

// Health and metrics (docs/operations.md) for the OpenAPI at /docs; shapes of health.routes.ts and metrics.ts.

const NO_KEY = 'Não exige chave e não expõe dados.';

export const healthDocs: OperationDocs = {
  description: `O banco de dados pode ser lido e gravado. Sem banco, ou sem poder gravar (disco cheio, arquivo somente leitura), a resposta é SERVICE_UNAVAILABLE com \`details.banco\` (\`indisponivel\` ou \`sem_gravacao\`, com o \`motivo\`) e uma mensagem que diz isso. ${NO_KEY}`,
  ok: {
    description: 'A caixa grava.',
    schema: healthAnswerSchema,
    examples: {
      ok: {
        summary: 'Tudo certo',
        value: {
          success: true,
          data: {
            status: 'ok',
            banco: 'ok',
            versao: '0.1.0',
            agora: '2026-11-21T13:00:00.000Z',
            fuso_horario: 'America/Sao_Paulo',
          },
        },
      },
    },
  },
  details: {
    SERVICE_UNAVAILABLE: [
      { label: 'sem banco', details: { banco: 'indisponivel' } },
      { label: 'sem gravação', details: { banco: 'sem_gravacao', motivo: 'SQLITE_FULL' } },
    ],
  },
};

export const liveDocs: OperationDocs = {
  description: `O processo responde: para reiniciar um processo travado, sem olhar banco ou pistas. ${NO_KEY}`,
  ok: {
    description: 'O processo responde.',
    schema: liveAnswerSchema,
    examples: { ok: { summary: 'Vivo', value: { success: true, data: { status: 'ok', versao: '0.1.0' } } } },
  },
};

export const readyDocs: OperationDocs = {
  description: `A caixa está pronta para a portaria: banco gravável, migrações em dia, todos os relés e leitores das pistas online e a sincronização andando (nuvem inacessível não conta: a caixa segue registrando e envia depois; conta a nuvem respondendo com eventos parados há mais de uma hora). O relógio é informado em \`partes.relogio\` e \`avisos\`, sem tirar a caixa do ar. Quando uma parte falha, SERVICE_UNAVAILABLE com \`details.partes\` e a mensagem nomeando cada parte. ${NO_KEY}`,
  ok: {
    description: 'Pronta.',
    schema: readyAnswerSchema,
    examples: {
      pronta: {
        summary: 'Tudo certo',
        value: {
          success: true,
          data: {
            status: 'ok',
            versao: '0.1.0',
            partes: { banco: { ok: true }, migracoes: { ok: true }, pistas: { ok: true }, sincronizacao: { ok: true } },
          },
        },
      },
    },
  },
  details: {
    SERVICE_UNAVAILABLE: [
      {
        label: 'não pronta',
        details: {
          partes: {
            banco: { ok: true },
            migracoes: { ok: true },
            pistas: { ok: false, motivo: 'entrada-1: relé /dev/ttyUSB0 offline' },
          },
        },
      },
      { label: 'encerrando' },
    ],
  },
};

export const metricsDocs: OperationDocs = {
  description:
    'As métricas da caixa no formato de texto do Prometheus: leituras por porta e resultado e sua latência, a fila de gravação, o processo e o event loop, as pistas e dispositivos, o relógio e a sincronização. Aberta à própria caixa (loopback); de outro endereço, uma chave com local:read em `X-API-Key` ou como `Authorization: Bearer`.',
  permissions: ['local:read'],
  ok: {
    description: 'Uma coleta.',
    other: {
      'text/plain': {
        example:
          '# HELP gate_scans_total Check-ins, reversals and movements by door and result (ok or the error code)\n# TYPE gate_scans_total counter\ngate_scans_total{porta="api",acao="checkin",resultado="ok"} 812\n',
      },
    },
  },
};
