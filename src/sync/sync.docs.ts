import type { OperationDocs } from '../http/openapi.js';
import { CONFLICT_COLUMNS } from './conflicts.payload.js';
import { conflictsAnswerSchema, eventsAnswerSchema, syncStatusAnswerSchema } from './sync.answers.js';

const PERMISSIONS = ['local:read'];

// The central office's routes (docs/sync.md) for the OpenAPI at /docs; shapes of sync.routes.ts.

/** The status of a box whose cloud answers: every example below is this one with a few fields changed. */
const onlineStatus = {
  nuvem_configurada: true,
  online: true,
  ultima_comunicacao_em: '2026-11-21T12:59:30.000Z',
  ultimo_pull_ok_em: '2026-11-21T12:59:30.000Z',
  ultimo_push_ok_em: '2026-11-21T12:59:31.000Z',
  ultima_atualizacao_em: '2026-11-21T12:00:00.000Z',
  ultima_atualizacao_completa_em: '2026-11-21T06:00:00.000Z',
  ultimo_erro: null,
  fila: {
    pendentes: 0,
    em_nova_tentativa: 0,
    evento_mais_antigo_em: null,
    proxima_tentativa_em: null,
    aguardando_outra_caixa: 0,
    aguardando_outra_caixa_ate: null,
  },
  resultados: { aceito: 1210, ja_utilizado_na_nuvem: 2, fora_do_prazo: 0, cancelado_na_nuvem: 1, outro: 0 },
  registros_rejeitados: { total: 0, recentes: [] },
};

export const syncStatusDocs: OperationDocs = {
  description:
    'O estado da sincronização desta caixa com a nuvem para o tenant da chave: última comunicação, último pull e push bem-sucedidos, o último erro, a fila de eventos a enviar, os eventos por resultado na nuvem e os registros que a nuvem mandou e a caixa rejeitou. Sem nuvem configurada a caixa segue funcionando e o estado diz isso.',
  permissions: PERMISSIONS,
  ok: {
    description: 'O estado da sincronização.',
    schema: syncStatusAnswerSchema,
    examples: {
      online: { summary: 'Nuvem respondendo', value: { success: true, data: onlineStatus } },
      aguardandoOutraCaixa: {
        summary: 'Um estorno retido até a nuvem confirmar o check-in feito em outra caixa do site',
        value: {
          success: true,
          data: {
            ...onlineStatus,
            fila: {
              pendentes: 1,
              em_nova_tentativa: 0,
              evento_mais_antigo_em: '2026-11-21T12:40:00.000Z',
              proxima_tentativa_em: '2026-11-22T12:38:12.000Z',
              aguardando_outra_caixa: 1,
              aguardando_outra_caixa_ate: '2026-11-22T12:38:12.000Z',
            },
            resultados: { aceito: 1210, ja_utilizado_na_nuvem: 0, fora_do_prazo: 0, cancelado_na_nuvem: 0, outro: 0 },
          },
        },
      },
    },
  },
};

const conflict = {
  evento_id: 912,
  ocorrido_em: '2026-11-21T12:31:07.000Z',
  data_local: '2026-11-21',
  acao: 'checkin',
  modo: 'qr',
  codigo: 'a1b2c3d4-0000-4000-8000-000000000001',
  qr_code: 'a1b2c3d4-0000-4000-8000-000000000001',
  numero_pedido: '20261121-0042',
  terminal: 'catraca-1',
  operador: 'Joana',
  chave_api: 'catraca-1',
  tipo: 'ja_utilizado_na_nuvem',
  codigo_nuvem: 'TICKET_ALREADY_USED',
  mensagem_nuvem: 'Ingresso já utilizado.',
  em_nuvem: '2026-11-21T12:30:55.000Z',
  enviado_em: '2026-11-21T12:31:09.000Z',
  resolvido_em: '2026-11-21T12:31:09.000Z',
  tentativas: 1,
};

/** The entry this box applied from the box `sul`, after its own at `norte` while the hub was away. */
const siteConflict = {
  ...conflict,
  evento_id: 915,
  ocorrido_em: '2026-11-21T12:31:02.000Z',
  terminal: 'sul-2',
  operador: 'Bia',
  chave_api: null,
  tipo: 'duplo_no_site',
  codigo_nuvem: null,
  mensagem_nuvem: null,
  em_nuvem: null,
  enviado_em: null,
  resolvido_em: null,
  tentativas: 0,
  caixa: 'sul',
  outro_evento_id: 912,
  outro_ocorrido_em: '2026-11-21T12:31:07.000Z',
  outro_caixa: 'norte',
  outro_terminal: 'catraca-1',
  outro_operador: 'Joana',
};

export const conflictsDocs: OperationDocs = {
  description:
    'Os eventos que a nuvem não aceitou (já usado na nuvem, fora do prazo, cancelado na nuvem, outro) e, numa caixa de um site, as segundas entradas de um mesmo ingresso em duas caixas que decidiram sem o hub (`duplo_no_site`, com a outra entrada em `outro_evento_id`, `outro_ocorrido_em`, `outro_caixa`, `outro_terminal`, `outro_operador`), na ordem dos eventos, para a central resolver. Filtros por dia local (`desde`, `ate`, inclusive) e por `tipo`. Em CSV com `format=csv` ou `Accept: text/csv` (com `X-Total-Count`), uma linha por conflito com as mesmas colunas do JSON (as do site no fim, vazias num conflito com a nuvem). `ate` antes de `desde` é VALIDATION_ERROR.',
  permissions: PERMISSIONS,
  ok: {
    checked: false,
    description: 'Os conflitos, em JSON ou CSV.',
    schema: conflictsAnswerSchema,
    examples: {
      conflitos: { summary: 'Um conflito', value: { success: true, data: { conflitos: [conflict], total: 1 } } },
      site: {
        summary: 'Uma segunda entrada no site (duplo_no_site)',
        value: { success: true, data: { conflitos: [siteConflict], total: 1 } },
      },
    },
    other: {
      'text/csv': {
        example: `${CONFLICT_COLUMNS.join(',')}\n${CONFLICT_COLUMNS.map((c) => conflict[c as keyof typeof conflict] ?? '').join(',')}\n`,
      },
    },
    headers: { 'X-Total-Count': 'Só em CSV: conflitos que atendem aos filtros' },
  },
  details: {
    VALIDATION_ERROR: [
      { details: { campos: [{ campo: 'querystring.ate', mensagem: 'deve ser igual ou posterior a desde' }] } },
    ],
  },
};

export const eventsDocs: OperationDocs = {
  description:
    'O log de eventos da caixa (check-ins, estornos, movimentos e recusas, de todas as portas), cada um com a sua situação na nuvem, e com marcação por chave como nas listagens: por padrão a página devolvida é marcada para a chave que chama; `sincronizado=false` traz só o que esta chave ainda não recebeu; `marcar_sincronizado=false` apenas lê. Página: `limit` padrão 100, no máximo 1000.',
  permissions: PERMISSIONS,
  ok: {
    checked: false,
    description: 'Uma página de eventos.',
    schema: eventsAnswerSchema,
    examples: {
      pagina: {
        summary: 'Um evento',
        value: {
          success: true,
          data: {
            eventos: [
              {
                id: 912,
                ocorrido_em: '2026-11-21T12:31:07.000Z',
                acao: 'checkin',
                modo: 'qr',
                codigo: 'a1b2c3d4-0000-4000-8000-000000000001',
                qr_code: 'a1b2c3d4-0000-4000-8000-000000000001',
                numero_pedido: '20261121-0042',
                resultado: 'ok',
                chave_api: 'catraca-1',
                terminal: 'catraca-1',
                operador: 'Joana',
                origem: 'api',
                detalhes: null,
                relogio_suspeito: null,
                nuvem: {
                  situacao: 'aceito',
                  tentativas: 1,
                  enviado_em: '2026-11-21T12:31:09.000Z',
                  resolvido_em: '2026-11-21T12:31:09.000Z',
                  codigo: null,
                  mensagem: null,
                  em: null,
                },
                sincronizado: true,
                sincronizado_em: '2026-11-21T13:00:00.000Z',
              },
            ],
            total: 1,
          },
        },
      },
    },
  },
};
