// The result screen's words, in Portuguese, for the rules' refusal codes (a box's answer brings its own message).
const WORDS: Record<string, string> = {
  ok: 'Liberado',
  TICKET_NOT_FOUND: 'Ingresso não encontrado',
  TICKET_ALREADY_USED: 'Ingresso já utilizado',
  TICKET_EXPIRED: 'Ingresso vencido',
  TICKET_NOT_VALID_YET: 'Ingresso ainda não válido',
  TICKET_CANCELLED: 'Ingresso cancelado',
  ORDER_NOT_FOUND: 'Pedido não encontrado',
  ORDER_NOT_PAID: 'Pedido não pago',
  NO_PEOPLE: 'Pedido sem pessoas',
  SEM_DADOS: 'Sem dados de hoje: conecte ao box',
  CODIGO_LONGO: 'Código longo demais: não é um ingresso',
  REVOGADO: 'Aparelho revogado: pareie de novo',
};

export const wordFor = (resultado: string): string => WORDS[resultado] ?? `Recusado (${resultado})`;
