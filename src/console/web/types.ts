// Shapes of the console's API answers (docs/console.md).

export type Papel = 'atendente' | 'supervisor';

export interface Sessao {
  operador: { id: number; nome: string; papel: Papel };
  tenant: { slug: string; nome: string };
  estacao: string;
  csrf: string;
  expira_apos_min: number;
}

export interface ApiErrorBody {
  code: string;
  message: string;
  details?: unknown;
}

export interface Leitura {
  resultado: 'liberado' | 'recusado';
  codigo: string;
  em: string;
  porta: string;
  terminal: string | null;
  titulo: string;
  mensagem: string;
  pessoas: { nome: string; qr_code: string }[];
  numero_pedido: string | null;
  lote: { nome_ingresso: string; nome_lote: string; data_uso: string | null } | null;
  erro: ApiErrorBody | null;
}

export type StatusPedido = 'pago' | 'cancelado' | 'reembolsado' | string;

export interface ResultadoBusca {
  numero_pedido: string;
  status: StatusPedido;
  cliente_nome: string;
  cliente_email: string | null;
  total_pessoas: number;
  checkins: number;
  data_uso: string | null;
  encontrado: string | null;
}

export interface Valores {
  total_bruto: number;
  total_desconto: number;
  total_pago: number;
  desconto_promocao: { valor: number; [k: string]: unknown } | null;
  subtotal: number;
  desconto_pagamento: { valor: number; [k: string]: unknown } | null;
  acrescimo_pagamento: { valor: number; [k: string]: unknown } | null;
  valor_estornado: number;
}

export interface LotePedido {
  nome_ingresso: string;
  nome_lote: string;
  categoria: string | null;
  tipo_ingresso: string;
  data_uso: string | null;
  valor_unitario: number;
  checkin_realizado: boolean;
  dados: ({ qr_code: string } & Record<string, string>)[];
}

export interface Adicional {
  adicional_id: string;
  nome: string;
  quantidade: number;
  subtotal: number;
  is_brinde: boolean;
  adicional_qr_code: string | null;
}

export interface Pedido {
  numero_pedido: string;
  status: StatusPedido;
  pago_em: string | null;
  origem: string | null;
  pagamento: { valores: Valores };
  cupom: { codigo: string; nome: string } | null;
  cliente: Record<string, unknown> & {
    nome?: string;
    sobrenome?: string;
    email?: string;
    cpf?: string;
    telefone?: string;
  };
  lotes: LotePedido[];
  total_pessoas: number;
  adicionais?: Adicional[];
}

export interface PessoaConsole {
  qr_code: string;
  nome: string | null;
  lote: unknown;
  data_uso: string | null;
  checkin_em: string | null;
  checkin_terminal: string | null;
  checkin_operador: string | null;
  estornado_em: string | null;
  estorno_terminal: string | null;
  estorno_operador: string | null;
}

export interface PedidoConsole {
  pedido: Pedido;
  pessoas: PessoaConsole[];
  combo_qr_code: string | null;
}

export interface Pista {
  nome: string;
  direcao: string;
  area?: string | null;
  operador?: string | null;
  rele: {
    driver: string;
    online: boolean;
    passagem_livre?: boolean;
    problema?: string | null;
    visto_em?: string | null;
  };
  leitores: { porta: string; conectado: boolean; desde?: string | null; ultimo_erro?: string | null }[];
  ultima_leitura: { codigo: string; em: string } | null;
  ultimo_resultado: { tipo: string; em: string; codigo: string | null } | null;
  contadores?: Record<string, number>;
}

export interface AlarmeIncendio {
  ativo: boolean;
  desde: string | null;
  origens: string[];
}

export type TipoAlarme = 'carona' | 'incendio_inicio' | 'dispositivo_offline';

export interface Alarme {
  id: number;
  tipo: TipoAlarme | string;
  pista: string;
  em: string;
  detalhes: Record<string, unknown> | null;
  reconhecido_por: string | null;
  reconhecido_em: string | null;
}

export interface PainelPistas {
  configurado: boolean;
  alarme_incendio: AlarmeIncendio | null;
  pistas: Pista[];
  entradas_hoje: number | Record<string, number> | { pista: string; entradas: number }[];
  ultimas_leituras: Leitura[];
  alarmes: Alarme[];
}

export interface SyncEstado {
  configurado: boolean;
  online: boolean | null;
  ultimo_pull_em: string | null;
  ultimo_push_em: string | null;
  eventos_pendentes: number;
  conflitos_total: number;
}

export interface Conflito {
  evento_id: number;
  ocorrido_em: string;
  acao: string;
  codigo: string | null;
  numero_pedido: string | null;
  terminal: string | null;
  operador: string | null;
  tipo: string;
  mensagem_nuvem: string | null;
}

export interface Operador {
  id: number;
  nome: string;
  papel: Papel;
  ativo: boolean;
  bloqueado_ate: string | null;
  criado_em: string;
}

export interface Relatorio {
  data: string;
  total_entradas: number;
  total_recusas: number;
  por_hora: { hora: number; terminal: string; entradas: number }[];
  recusas: { code: string; titulo: string; total: number }[];
}
