import type { Conflict } from './sync.answers.js';
import type { EventRow } from './sync.repo.js';

// A conflict with the cloud as GET /api/local/conflicts and the console's supervisor screen show it
// (docs/sync.md, "Conflicts"), and its columns in the CSV.

export const conflictPayload = (r: EventRow, localDate: (iso: string) => string): Conflict => ({
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
  tipo: r.resultado,
  codigo_nuvem: r.cloud_code,
  mensagem_nuvem: r.cloud_message,
  em_nuvem: r.cloud_em,
  enviado_em: r.first_sent_at,
  resolvido_em: r.settled_at,
  tentativas: r.attempts ?? 0,
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
] as const satisfies readonly (keyof ReturnType<typeof conflictPayload>)[];
