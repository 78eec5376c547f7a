import { routeKey, type OperationDocs } from '../http/openapi.js';
import { handheldAnswers } from './handheld.answers.js';
import { qrHash } from './qr-hash.js';

// The handheld endpoints (docs/handheld.md) for the OpenAPI at /docs: the device's, in their routes' schemas, and the
// console's handhelds screen, by `METHOD /path` (buildApp's `routeDocs`, as the console's).

const single = (summary: string, value: unknown) => ({ exemplo: { summary, value: { success: true, data: value } } });
const QR = 'a1b2c3d4-0000-4000-8000-000000000001';
const NUMERO = '20261121-0042';
const NOW = '2026-11-21T13:00:00.000Z';
const SUPERVISOR = 'Só supervisores (PAPEL_INSUFICIENTE para atendentes).';
const session = [{ consoleSession: [] }];
const sessionAndCsrf = [{ consoleSession: [], csrfToken: [] }];

const LOT = 'Qm9hVmlz';
const personRow = [qrHash(QR), NUMERO, LOT, '2026-11-21', 'dayuse', NOW, null];
const lotRow = [LOT, 'Passaporte Dia', 'Adulto'];

export const handheldDocs: Record<'pair' | 'dayData' | 'scan' | 'upload' | 'state', OperationDocs> = {
  pair: {
    description:
      'Pareia um aparelho com o código de uso único que um supervisor gerou no console ("Parear handheld", 10 minutos). Responde a chave do aparelho (`chave`, mostrada só agora; a caixa guarda o SHA-256), que abre só as rotas /api/handheld/*, no cabeçalho X-Handheld-Key. Código desconhecido, usado ou vencido: PAREAMENTO_INVALIDO; outro aparelho ativo com o mesmo nome: NOME_EM_USO.',
    ok: {
      description: 'O aparelho pareado e sua chave (status 201).',
      schema: handheldAnswers.pair,
      examples: single('Pareado', {
        chave: 'hk_0123456789ab_' + 'x'.repeat(43),
        dispositivo: { id: 4, nome: 'coletor-07' },
        tenant: 'parque',
        data_local: '2026-11-21',
      }),
    },
    errors: ['PAREAMENTO_INVALIDO', 'NOME_EM_USO'],
    details: { NOME_EM_USO: [{ details: { nome: 'coletor-07' } }] },
  },
  dayData: {
    description:
      'Os dados do dia para o aparelho decidir offline: os pedidos do tenant com ingresso para hoje (no fuso do parque) ou sem data, com todas as suas pessoas e adicionais, em linhas nas ordens de colunas de docs/handheld.md; `lotes` dá uma vez os nomes de cada tipo de ingresso (tipo e variação, nenhum dado pessoal) que as pessoas nomeiam pela chave. Nenhum QR é enviado: cada código vai como `qrHash` (22 caracteres do SHA-256). Com `desde` (o `cursor` da última resposta), só os pedidos que mudaram desde então (`completo: false`); um cursor de outro dia, ilegível ou antigo demais recebe o dia inteiro.',
    ok: {
      description: 'O dia, inteiro ou o que mudou.',
      schema: handheldAnswers.dayData,
      // Up to tens of thousands of rows: built slice by slice, never checked against the schema on the loop.
      checked: false,
      examples: single('Um pedido', {
        data_local: '2026-11-21',
        gerado_em: NOW,
        cursor: `v1.2026-11-21.1042.${NOW}`,
        completo: true,
        pessoas: [personRow],
        pedidos: [[NUMERO, 'pago', qrHash(NUMERO)]],
        adicionais: [],
        lotes: [lotRow],
      }),
    },
  },
  scan: {
    description:
      'Um check-in decidido pela caixa (aparelho online), pelo mesmo serviço de toda porta: porta `handheld`, terminal = nome do aparelho, operador do turno. `id` é o do movimento, feito pelo aparelho: repetido com o mesmo código (uma nova tentativa depois de um tempo esgotado, ou o mesmo aparelho pareado de novo), responde o primeiro resultado com `ja_recebido: true`. Uma recusa é um resultado (`resultado` = o código da regra), não um erro HTTP. `liberados` são as pessoas que esta leitura deixou entrar (qrHash); `pessoas`, `adicionais`, `pedidos` e `lotes` trazem o estado do pedido agora, para a cópia do aparelho.',
    ok: {
      description: 'O resultado e o estado do pedido.',
      schema: handheldAnswers.scan,
      examples: single('Liberado', {
        id: 'mv-01HZX3',
        resultado: 'ok',
        mensagem: 'Check-in realizado.',
        ja_recebido: false,
        liberados: [qrHash(QR)],
        pessoas: [personRow],
        adicionais: [],
        pedidos: [[NUMERO, 'pago', qrHash(NUMERO)]],
        lotes: [lotRow],
      }),
    },
  },
  upload: {
    description:
      'A fila do aparelho: movimentos decididos nele offline (até 500 por requisição e 1 MB). Cada item é registrado uma vez pelo seu `id`, qualquer que seja a chave que o traga com o mesmo código (o mesmo aparelho pareado de novo responde `ja_recebido`, com a classificação da primeira vez), como fato (o visitante já passou), mesmo que a caixa recusasse agora, e classificado: `duplo_handheld` (o ingresso já tinha entrado aqui; não vai à nuvem), `cancelado_no_handheld`, `desconhecido_handheld` (registrado, não enviado), `relogio_handheld` (relógio do aparelho a mais de 2 minutos do da caixa). Recusas feitas no aparelho também vêm, para o registro de eventos. Um item malformado é `recusado` sozinho (ITEM_INVALIDO); o aparelho só apaga um item depois da resposta dele.',
    ok: {
      description: 'Uma resposta por item, na ordem enviada.',
      schema: handheldAnswers.upload,
      examples: single('Dois itens', {
        itens: [
          { id: 'mv-01HZX3', estado: 'aplicado', classificacao: [] },
          { id: 'mv-01HZX4', estado: 'aplicado', classificacao: ['duplo_handheld'] },
        ],
      }),
    },
    errors: ['MOVIMENTOS_DEMAIS'],
    details: { MOVIMENTOS_DEMAIS: [{ details: { limite: 500, recebidos: 612 } }] },
  },
  state: {
    description:
      'O aparelho diz como está (versão, hora dos seus dados do dia, movimentos na fila, decisões tomadas nele hoje): o que o console lista, e o alarme de um aparelho sem contato há 15 minutos com fila. É também a sonda com que o app volta a ficar online.',
    ok: {
      description: 'O dia e a hora da caixa, e o nome do aparelho.',
      schema: handheldAnswers.state,
      examples: single('Visto', { data_local: '2026-11-21', agora: NOW, nome: 'coletor-07' }),
    },
  },
};

const device = {
  id: 4,
  nome: 'coletor-07',
  pareado_em: '2026-11-21T11:02:00.000Z',
  pareado_por: 'Sara',
  visto_em: NOW,
  versao_app: '1.0.0',
  dados_em: '2026-11-21T12:59:55.000Z',
  fila: 0,
  decisoes_offline_hoje: 12,
  revogado_em: null,
  alarme: false,
};

/** The console's handhelds screen, by `METHOD /path`. */
export const handheldConsoleDocs: Record<string, OperationDocs> = {
  [routeKey('POST', '/api/console/handhelds/pareamento')]: {
    security: sessionAndCsrf,
    description: `Gera um código de pareamento de uso único (10 minutos) e o QR do endereço \`/m/#parear=<código>\` na origem em que o console foi aberto, para o aparelho abrir. ${SUPERVISOR}`,
    ok: {
      description: 'O código, o endereço, a validade e o QR em SVG.',
      schema: handheldAnswers.pairing,
      examples: single('Código', {
        token: 'qxB0X1Vy7ctUegtZculXIcfneUIVihiF',
        url: 'https://box.lan/m/#parear=qxB0X1Vy7ctUegtZculXIcfneUIVihiF',
        expira_em: '2026-11-21T13:10:00.000Z',
        qr_svg: '<svg …>…</svg>',
      }),
    },
    errors: ['PAPEL_INSUFICIENTE'],
  },
  [routeKey('GET', '/api/console/handhelds')]: {
    security: session,
    description: `Os aparelhos pareados do tenant: visto por último, versão do app, hora dos dados do dia, fila, decisões tomadas no aparelho hoje, revogação, e \`alarme\` quando um aparelho com fila está sem contato há 15 minutos. ${SUPERVISOR}`,
    ok: {
      description: 'Os aparelhos e quantos estão em alarme.',
      schema: handheldAnswers.devices,
      examples: single('Um aparelho', { aparelhos: [device], alarmes: 0 }),
    },
    errors: ['PAPEL_INSUFICIENTE'],
  },
  [routeKey('POST', '/api/console/handhelds/:id/revogar')]: {
    security: sessionAndCsrf,
    description: `Revoga a chave de um aparelho do tenant: ele passa a receber DISPOSITIVO_REVOGADO e guarda a fila até ser pareado de novo. Um id que não é de um aparelho ativo do tenant: NOT_FOUND. ${SUPERVISOR}`,
    ok: {
      description: 'O aparelho revogado.',
      schema: handheldAnswers.revoked,
      examples: single('Revogado', { id: 4, revogado: true }),
    },
    errors: ['NOT_FOUND', 'PAPEL_INSUFICIENTE'],
    details: { NOT_FOUND: [{ details: { id: 4 } }] },
  },
};
