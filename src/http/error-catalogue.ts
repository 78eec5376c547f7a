// The catalogue alone, with nothing of Node: the handheld app bundles it to word its offline refusals as the box does.

/** Every error code the box answers with: HTTP status and the default Portuguese message. */
export const errorCatalogue = {
  // 7.1 check-in
  TICKET_NOT_FOUND: { status: 404, message: 'Ingresso não encontrado.' },
  TICKET_ALREADY_USED: { status: 409, message: 'Ingresso já utilizado.' },
  TICKET_EXPIRED: { status: 410, message: 'Ingresso expirado: válido para uma data passada.' },
  TICKET_NOT_VALID_YET: { status: 422, message: 'Ingresso ainda não é válido: válido para uma data futura.' },
  TICKET_CANCELLED: { status: 403, message: 'Ingresso cancelado ou reembolsado.' },
  ORDER_NOT_FOUND: { status: 404, message: 'Pedido não encontrado.' },
  ORDER_NOT_PAID: { status: 422, message: 'Pedido não está pago.' },
  NO_PEOPLE: { status: 422, message: 'Pedido não possui pessoas para check-in.' },
  AMBIGUOUS_INPUT: { status: 400, message: 'Envie qr_code ou numero_pedido, não ambos.' },
  MISSING_FIELD: { status: 400, message: 'Informe qr_code ou numero_pedido.' },
  PERMISSION_DENIED: { status: 403, message: 'Chave de API sem permissão para esta operação.' },
  MISSING_API_KEY: { status: 401, message: 'Cabeçalho X-API-Key ausente.' },
  INVALID_API_KEY: { status: 401, message: 'Chave de API inválida ou expirada.' },
  INTERNAL_ERROR: { status: 500, message: 'Erro interno do servidor.' },
  // 7.2 reversal
  ESTORNO_NAO_PERMITIDO: { status: 422, message: 'Estorno permitido apenas no mesmo dia do check-in.' },
  SEM_CHECKIN: { status: 422, message: 'Não há check-in para estornar.' },
  JA_ESTORNADO: { status: 423, message: 'Check-in já estornado.' },
  TENANT_MISMATCH: { status: 403, message: 'Ingresso não pertence a este cliente.' },
  // 7.3 combos
  COMBO_NOT_FOUND: { status: 404, message: 'Combo não encontrado.' },
  QUERY_ERROR: { status: 500, message: 'Erro ao consultar os dados.' },
  AUTH_ERROR: { status: 401, message: 'Chave de integração inválida ou sem a permissão integration:combos:read.' },
  RATE_LIMITED: { status: 429, message: 'Limite de requisições excedido. Tente novamente em instantes.' },
  // The box's own, for what the spec leaves open (docs/api.md)
  VALIDATION_ERROR: { status: 400, message: 'Parâmetros inválidos.' },
  INVALID_JSON: { status: 400, message: 'Corpo da requisição não é um JSON válido.' },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, message: 'Envie o corpo como application/json.' },
  PAYLOAD_TOO_LARGE: { status: 413, message: 'Corpo da requisição grande demais.' },
  URI_TOO_LONG: { status: 414, message: 'Endereço da requisição longo demais.' },
  NOT_FOUND: { status: 404, message: 'Rota não encontrada.' },
  METHOD_NOT_ALLOWED: { status: 405, message: 'Método não permitido para esta rota.' },
  SERVICE_UNAVAILABLE: { status: 503, message: 'Serviço temporariamente indisponível.' },
  // Refused by the HTTP parser itself (src/http/connections.ts)
  BAD_REQUEST: { status: 400, message: 'Requisição HTTP malformada.' },
  HEADERS_TOO_LARGE: { status: 431, message: 'Cabeçalhos da requisição grandes demais.' },
  REQUEST_TIMEOUT: { status: 408, message: 'A requisição não chegou completa a tempo.' },
  // Movements at the box's own doors (lanes, POST /api/local/saida): docs/lanes.md
  CAPACITY_REACHED: { status: 409, message: 'Capacidade da área atingida: aguarde a saída de alguém.' },
  SEM_ENTRADA: { status: 422, message: 'Saída sem entrada registrada hoje.' },
  // The staff console (docs/console.md)
  CREDENCIAIS_INVALIDAS: { status: 401, message: 'Operador ou senha inválidos.' },
  CONTA_BLOQUEADA: {
    status: 429,
    message: 'Conta bloqueada por tentativas erradas. Tente novamente em alguns minutos.',
  },
  SESSAO_INVALIDA: { status: 401, message: 'Sessão encerrada ou expirada: entre novamente.' },
  CSRF_INVALIDO: { status: 403, message: 'Requisição sem o token da sessão (X-CSRF-Token).' },
  PAPEL_INSUFICIENTE: { status: 403, message: 'Operação permitida apenas a supervisores.' },
  // Handhelds (docs/handheld.md)
  CHAVE_HANDHELD_AUSENTE: { status: 401, message: 'Cabeçalho X-Handheld-Key ausente: pareie o aparelho no console.' },
  CHAVE_HANDHELD_INVALIDA: { status: 401, message: 'Chave do aparelho inválida: pareie o aparelho de novo.' },
  DISPOSITIVO_REVOGADO: {
    status: 401,
    message: 'Aparelho revogado pelo supervisor: pareie de novo; os movimentos na fila do aparelho são mantidos.',
  },
  PAREAMENTO_INVALIDO: {
    status: 401,
    message: 'Código de pareamento inválido, vencido ou já usado: gere outro em "Parear handheld" no console.',
  },
  NOME_EM_USO: { status: 409, message: 'Já existe um aparelho ativo com este nome: escolha outro.' },
  MOVIMENTOS_DEMAIS: { status: 413, message: 'Envie no máximo 500 movimentos por requisição.' },
  ITEM_INVALIDO: { status: 400, message: 'Movimento inválido: nada foi registrado para ele.' },
} as const satisfies Record<string, { status: number; message: string }>;
