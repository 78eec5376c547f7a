/** Money is integer centavos inside the box and a number with 2 decimals on the wire. */
export const toCents = (reais: number): number => Math.round(reais * 100);
export const fromCents = (cents: number): number => cents / 100;

export interface PaymentAdjustment {
  nome: string | null;
  forma: string;
  percentual: number;
  valor: number;
}

export interface PromotionDiscount {
  nome: string;
  tipo: 'BUY_N_GET_M' | 'TIERED_QUANTITY' | 'PERCENTAGE' | 'FIXED';
  detalhes: string;
  valor: number;
}

/** The inputs of pagamento.valores, valores in centavos. */
export interface PaymentComponents {
  totalBruto: number;
  descontoPromocao: number;
  descontoPagamento: number;
  acrescimoPagamento: number;
  valorEstornado: number;
}

/**
 * The five steps of 2.2, rule 3: total_bruto − desconto_promocao = subtotal; subtotal − desconto_pagamento
 * (or + acrescimo_pagamento) is the original total; total_pago is that less what was refunded, so
 * total_pago + valor_estornado is the original total.
 */
export function paymentTotals(c: PaymentComponents) {
  const subtotal = c.totalBruto - c.descontoPromocao;
  const totalDesconto = c.descontoPromocao + c.descontoPagamento - c.acrescimoPagamento;
  const totalPago = c.totalBruto - totalDesconto - c.valorEstornado;
  return { subtotal, totalDesconto, totalPago };
}
