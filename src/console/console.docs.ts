import { CHECKIN_REFUSALS, REVERSAL_REFUSALS } from '../checkin/checkin.docs.js';
import { routeKey, WRITE_REFUSED, type OperationDocs } from '../http/openapi.js';
import { EXAMPLE_NUMERO, EXAMPLE_QRS, examplePedido } from '../orders/order.docs.js';
import { consoleAnswers } from './console.answers.js';

// The console's API (docs/console.md) for the OpenAPI at /docs, by `METHOD /path`: the console's
// route files carry no docs of their own, so buildApp gets these (box.ts) and /docs shows them.

const session = [{ consoleSession: [] }];
const sessionAndCsrf = [{ consoleSession: [], csrfToken: [] }];
const SUPERVISOR = 'Só supervisores (PAPEL_INSUFICIENTE para atendentes).';

const sessao = {
  operador: { id: 3, nome: 'Joana', papel: 'atendente' },
  tenant: { slug: 'parque', nome: 'Parque Aquático' },
  estacao: 'guiche-2',
  csrf: 'q1w2e3r4t5y6u7i8o9p0a1s2d3f4g5h6',
  expira_apos_min: 720,
};

const leitura = {
  resultado: 'liberado',
  acao: 'checkin',
  codigo: EXAMPLE_QRS[0],
  em: '2026-11-21T12:31:07.000Z',
  porta: 'console',
  terminal: 'guiche-2',
  operador: 'Joana',
  titulo: 'LIBERADO',
  mensagem: 'Maria Silva',
  pessoas: [{ nome: 'Maria Silva', qr_code: EXAMPLE_QRS[0] }],
  numero_pedido: EXAMPLE_NUMERO,
  lote: { nome_ingresso: 'Passaporte Dia', nome_lote: 'Adulto', data_uso: '2026-11-21' },
  erro: null,
};

const person = (i: 0 | 1, checkin: string | null) => ({
  qr_code: EXAMPLE_QRS[i],
  nome: examplePedido.lotes[0]!.dados[i]!.Nome,
  lote: 'Passaporte Dia · Adulto',
  data_uso: '2026-11-21',
  checkin_em: checkin,
  checkin_terminal: checkin ? 'guiche-2' : null,
  checkin_operador: checkin ? 'Joana' : null,
  estornado_em: null,
  estorno_terminal: null,
  estorno_operador: null,
});
const pedidoView = {
  pedido: examplePedido,
  pessoas: [person(0, '2026-11-21T12:31:07.000Z'), person(1, null)],
  combo_qr_code: null,
};

const alarme = {
  id: 7,
  tipo: 'carona',
  pista: 'entrada-1',
  em: '2026-11-21T12:40:00.000Z',
  detalhes: null,
  reconhecido_por: 'Carla',
  reconhecido_em: '2026-11-21T12:41:00.000Z',
};
const REFUSED_WORDS =
  'Uma recusa vem no envelope de erro com o código do catálogo e, em `message`, a frase que a tela mostra à equipe (por exemplo "Ingresso já utilizado às 09:31 no terminal catraca-1").';

const single = (summary: string, value: unknown) => ({ exemplo: { summary, value: { success: true, data: value } } });

/** The console's docs by `METHOD /path` (buildApp's `routeDocs`). */
export const consoleDocs: Record<string, OperationDocs> = {
  [routeKey('POST', '/api/console/entrar')]: {
    description:
      'Entra no console com o nome do operador e seu PIN ou senha, e cria a sessão: o cookie `gate_console` (HttpOnly, SameSite=Strict) e o `csrf` da resposta, a enviar em X-CSRF-Token. `tenant` (o slug) só é necessário quando a caixa tem mais de um. Senha errada conta tentativas (`details.tentativas_restantes`); depois de 5 a conta fica bloqueada por 5 minutos (CONTA_BLOQUEADA). Um nome desconhecido responde como senha errada.',
    ok: {
      description: 'Sessão criada.',
      schema: consoleAnswers.sessao,
      examples: single('Sessão', sessao),
      headers: {
        'Set-Cookie': 'gate_console=<token>; Path=/; HttpOnly; SameSite=Strict (e Secure quando servido em HTTPS)',
      },
    },
    errors: ['CREDENCIAIS_INVALIDAS', 'CONTA_BLOQUEADA'],
    details: { VALIDATION_ERROR: [{ details: { campos: [{ campo: 'body.tenant', mensagem: 'informe o tenant' }] } }] },
  },
  [routeKey('GET', '/api/console/sessao')]: {
    security: session,
    description:
      'A sessão do cookie: operador, papel, tenant, estação e o `csrf`. Uma sessão termina após o tempo sem uso indicado em `expira_apos_min`.',
    ok: { description: 'A sessão.', schema: consoleAnswers.sessao, examples: single('Sessão', sessao) },
  },
  [routeKey('POST', '/api/console/sair')]: {
    security: sessionAndCsrf,
    description:
      'Encerra a sessão do cookie: o token deixa de valer no servidor e a resposta apaga o cookie do navegador.',
    ok: { description: 'Sessão encerrada.', schema: consoleAnswers.saiu, examples: single('Saiu', {}) },
  },
  [routeKey('POST', '/api/console/leitura')]: {
    security: sessionAndCsrf,
    description:
      'Uma leitura da estação de escaneamento: o check-in do código lido (pessoa, combo ou adicional; nunca um lote). Liberado ou recusado, a resposta é 200 com a leitura pronta para a tela (`resultado`, `titulo`, `mensagem`).',
    ok: { description: 'A leitura.', schema: consoleAnswers.leitura, examples: single('Liberado', leitura) },
    details: { SERVICE_UNAVAILABLE: WRITE_REFUSED },
  },
  [routeKey('GET', '/api/console/busca')]: {
    security: session,
    description:
      'Busca pedidos do tenant da sessão por número do pedido, QR code, nome (de quem comprou ou de uma pessoa), CPF ou e-mail; até 20 resultados, com o que foi encontrado.',
    ok: {
      description: 'Os pedidos encontrados.',
      schema: consoleAnswers.busca,
      examples: single('Um pedido', {
        resultados: [
          {
            numero_pedido: EXAMPLE_NUMERO,
            status: 'pago',
            cliente_nome: 'Maria Silva',
            cliente_email: 'maria@example.com',
            total_pessoas: 2,
            checkins: 1,
            data_uso: '2026-11-21',
            encontrado: 'CPF',
          },
        ],
      }),
    },
  },
  [routeKey('GET', '/api/console/pedidos/:numero')]: {
    security: session,
    description:
      'Um pedido do tenant da sessão no formato da listagem de vouchers, com o estado de check-in e estorno de cada pessoa.',
    ok: { description: 'O pedido.', schema: consoleAnswers.pedido, examples: single('Pedido', pedidoView) },
    errors: ['ORDER_NOT_FOUND'],
  },
  [routeKey('POST', '/api/console/checkin')]: {
    security: sessionAndCsrf,
    description: `Check-in pelo balcão: de uma pessoa, de um grupo ou adicional (\`qr_code\`, um código) ou de um pedido inteiro (\`numero_pedido\`), com as regras do check-in da API. Responde a leitura e o pedido atualizado. ${REFUSED_WORDS}`,
    ok: {
      description: 'Check-in feito.',
      schema: consoleAnswers.checkin,
      examples: single('Liberado', { leitura, pedido: pedidoView }),
    },
    errors: CHECKIN_REFUSALS,
    details: { SERVICE_UNAVAILABLE: WRITE_REFUSED },
  },
  [routeKey('POST', '/api/console/estorno')]: {
    security: sessionAndCsrf,
    description: `Estorno no mesmo dia, com \`motivo\` (3 a 200 caracteres, guardado no evento), de uma pessoa, grupo, adicional ou pedido, com as regras do estorno da API. ${SUPERVISOR} ${REFUSED_WORDS}`,
    ok: {
      description: 'Estorno feito.',
      schema: consoleAnswers.estorno,
      examples: single('Estornado', { mensagem: 'Check-in estornado: 1 pessoa(s).', pedido: pedidoView }),
    },
    errors: [...REVERSAL_REFUSALS, 'PAPEL_INSUFICIENTE'],
    details: { SERVICE_UNAVAILABLE: WRITE_REFUSED },
  },
  [routeKey('GET', '/api/console/pistas')]: {
    security: session,
    description: `O painel das pistas: cada pista como em GET /api/local/gates, as entradas de hoje, as 20 últimas leituras de todas as portas e os alarmes (carona, incêndio, dispositivo offline), os abertos primeiro. ${SUPERVISOR}`,
    ok: {
      description: 'O painel.',
      schema: consoleAnswers.pistas,
      examples: single('Sem pistas', {
        configurado: false,
        alarme_incendio: null,
        pistas: [],
        entradas_hoje: 412,
        ultimas_leituras: [leitura],
        alarmes: [alarme],
      }),
    },
    errors: ['PAPEL_INSUFICIENTE'],
  },
  [routeKey('POST', '/api/console/alarmes/:id/reconhecer')]: {
    security: sessionAndCsrf,
    description: `Reconhece um alarme do tenant, registrando quem e quando. Um id que não é de um alarme do tenant: NOT_FOUND, com a mensagem "Alarme não encontrado.". ${SUPERVISOR}`,
    ok: {
      description: 'O alarme reconhecido.',
      schema: consoleAnswers.alarme,
      examples: single('Reconhecido', alarme),
    },
    errors: ['NOT_FOUND', 'PAPEL_INSUFICIENTE'],
    details: { NOT_FOUND: [{ details: { id: 7 } }] },
  },
  [routeKey('GET', '/api/console/sync')]: {
    security: session,
    description: `A sincronização com a nuvem em resumo: configurada, online, último pull e push, último erro, eventos pendentes (e, deles, os retidos por um movimento de outra caixa do site, com quando a espera termina) e total de conflitos. ${SUPERVISOR}`,
    ok: {
      description: 'O resumo.',
      schema: consoleAnswers.sync,
      examples: single('Online', {
        configurado: true,
        online: true,
        ultimo_pull_em: '2026-11-21T12:59:30.000Z',
        ultimo_push_em: '2026-11-21T12:59:31.000Z',
        ultimo_erro: null,
        eventos_pendentes: 0,
        aguardando_outra_caixa: { eventos: 0, ate: null },
        conflitos_total: 3,
        certificado: null,
      }),
    },
    errors: ['PAPEL_INSUFICIENTE'],
  },
  [routeKey('GET', '/api/console/conflitos')]: {
    security: session,
    description: `Os eventos que a nuvem não aceitou, como em GET /api/local/conflicts (filtro por \`tipo\`), em JSON ou, com \`formato=csv\`, em CSV. ${SUPERVISOR}`,
    ok: {
      checked: false,
      description: 'Os conflitos, em JSON ou CSV.',
      schema: consoleAnswers.conflitos,
      examples: single('Nenhum', { conflitos: [], total: 0 }),
      other: {
        'text/csv': {
          example:
            'evento_id,ocorrido_em,data_local,acao,modo,codigo,qr_code,numero_pedido,terminal,operador,chave_api,tipo,codigo_nuvem,mensagem_nuvem,em_nuvem,enviado_em,resolvido_em,tentativas\n',
        },
      },
    },
    errors: ['PAPEL_INSUFICIENTE'],
  },
  [routeKey('GET', '/api/console/operadores')]: {
    security: session,
    description: `Os operadores do tenant, com papel, se estão ativos e se estão bloqueados por senhas erradas. ${SUPERVISOR}`,
    ok: {
      description: 'Os operadores.',
      schema: consoleAnswers.operadores,
      examples: single('Um operador', {
        operadores: [
          {
            id: 3,
            nome: 'Joana',
            papel: 'atendente',
            ativo: true,
            bloqueado_ate: null,
            criado_em: '2026-11-01T10:00:00.000Z',
          },
        ],
      }),
    },
    errors: ['PAPEL_INSUFICIENTE'],
  },
  [routeKey('POST', '/api/console/operadores')]: {
    security: sessionAndCsrf,
    description: `Cria um operador e responde o seu PIN, mostrado só desta vez. Um nome já usado no tenant é VALIDATION_ERROR em \`body.nome\`. ${SUPERVISOR}`,
    ok: {
      description: 'Operador criado.',
      schema: consoleAnswers.operadorCriado,
      examples: single('Criado', { operador: { id: 9, nome: 'Pedro', papel: 'atendente' }, pin: '482913' }),
    },
    errors: ['PAPEL_INSUFICIENTE'],
    details: {
      VALIDATION_ERROR: [
        {
          details: { campos: [{ campo: 'body.nome', mensagem: 'já existe um operador chamado "Pedro" neste tenant' }] },
        },
      ],
    },
  },
  [routeKey('POST', '/api/console/operadores/:id/desativar')]: {
    security: sessionAndCsrf,
    description: `Desativa um operador do tenant e encerra as suas sessões. Um id que não é de um operador do tenant: NOT_FOUND, com a mensagem "Operador não encontrado.". ${SUPERVISOR}`,
    ok: {
      description: 'Operador desativado.',
      schema: consoleAnswers.operadorDesativado,
      examples: single('Desativado', { id: 9, ativo: false }),
    },
    errors: ['NOT_FOUND', 'PAPEL_INSUFICIENTE'],
    details: { NOT_FOUND: [{ details: { id: 9 } }] },
  },
  [routeKey('GET', '/api/console/relatorio')]: {
    security: session,
    description: `O relatório de um dia (\`data\`, padrão hoje no fuso do parque): entradas por hora e terminal e recusas por motivo, em JSON ou, com \`formato=csv\`, em CSV. ${SUPERVISOR}`,
    ok: {
      description: 'O relatório, em JSON ou CSV.',
      schema: consoleAnswers.relatorio,
      examples: single('Um dia', {
        data: '2026-11-21',
        total_entradas: 412,
        total_recusas: 5,
        por_hora: [{ hora: 9, terminal: 'catraca-1', entradas: 120 }],
        recusas: [{ code: 'TICKET_ALREADY_USED', titulo: 'JÁ UTILIZADO', total: 5 }],
      }),
      other: {
        'text/csv': {
          example: 'secao,hora,terminal,codigo,total\nentradas,9,catraca-1,,120\nrecusas,,,TICKET_ALREADY_USED,5\n',
        },
      },
    },
    errors: ['PAPEL_INSUFICIENTE'],
  },
  [routeKey('GET', '/api/console/eventos')]: {
    security: session,
    description:
      'Eventos ao vivo para o tenant da sessão (server-sent events): `pronto` ao conectar, `leitura` a cada resultado de qualquer porta e, para supervisores, `pistas`, `alarme`, `alarme_reconhecido` e `sync` quando mudam. Um comentário `: ping` a cada 15 s; o fluxo termina quando a sessão termina.',
    ok: {
      description: 'O fluxo de eventos.',
      other: { 'text/event-stream': { example: 'event: pronto\ndata: {"operador":"Joana","papel":"atendente"}\n\n' } },
    },
  },
};
