import type { Conflict } from './sync.answers.js';
import type { ConflictRow } from './sync.repo.js';

// A conflict with the cloud as GET /api/local/conflicts and the console's supervisor screen show it
// (docs/sync.md, "Conflicts"), and its columns in the CSV.

export const conflictPayload = (r: ConflictRow, localDate: (iso: string) => string): Conflict => ({
  evento_id: r.id,
  ocorrido_em: r.occurred_at,
  data_local: localDate(r.occurred_at),
  acao: r.action,
  modo: r.mode,
  codigo: r.code,
  qr_code: r.qr_code,
  numero_pedido: r.numero_pedido,
  terminal: r.terminal,
  operador: r.operador,
  chave_api: r.key_name,
  tipo: r.tipo,
  codigo_nuvem: r.cloud_code,
  mensagem_nuvem: r.cloud_message,
  em_nuvem: r.cloud_em,
  enviado_em: r.first_sent_at,
  resolvido_em: r.settled_at,
  tentativas: r.attempts ?? 0,
  // The other entry of a duplo_no_site; a cloud conflict's answer stays as it was before the site.
  ...(r.outro_evento_id === null
    ? {}
    : {
        caixa: r.caixa,
        outro_evento_id: r.outro_evento_id,
        outro_ocorrido_em: r.outro_ocorrido_em!,
        outro_caixa: r.outro_caixa,
        outro_terminal: r.outro_terminal,
        outro_operador: r.outro_operador,
      }),
});

export const CONFLICT_COLUMNS = [
  'evento_id',
  'ocorrido_em',
  'data_local',
  'acao',
  'modo',
  'codigo',
  'qr_code',
  'numero_pedido',
  'terminal',
  'operador',
  'chave_api',
  'tipo',
  'codigo_nuvem',
  'mensagem_nuvem',
  'em_nuvem',
  'enviado_em',
  'resolvido_em',
  'tentativas',
  // Added with the site (docs/site.md): empty on a cloud conflict.
  'caixa',
  'outro_evento_id',
  'outro_ocorrido_em',
  'outro_caixa',
  'outro_terminal',
  'outro_operador',
] as const satisfies readonly (keyof ReturnType<typeof conflictPayload>)[];
