import { describe, expect, it } from 'vitest';
import { fromCents, paymentTotals, toCents } from '../../src/orders/money.js';
import { describeIssues } from '../../src/lib/zod-issues.js';
import { pedidoSchema } from '../../src/orders/order.schemas.js';
import { makeOrder } from '../support/fixtures.js';

describe('money', () => {
  it('keeps centavos exact where floats would drift', () => {
    expect(toCents(0.1 + 0.2)).toBe(30);
    expect(toCents(19.99) * 3).toBe(5997);
    expect(fromCents(5997)).toBe(59.97);
  });

  it('computes the five steps of pagamento.valores (rule 3)', () => {
    // 200 gross, 20 promotion, 5% pix discount on 180 = 9, nothing refunded.
    expect(
      paymentTotals({
        totalBruto: 20000,
        descontoPromocao: 2000,
        descontoPagamento: 900,
        acrescimoPagamento: 0,
        valorEstornado: 0,
      }),
    ).toEqual({
      subtotal: 18000,
      totalDesconto: 2900,
      totalPago: 17100,
    });
    // A card surcharge adds; total_desconto goes down by it.
    expect(
      paymentTotals({
        totalBruto: 10000,
        descontoPromocao: 0,
        descontoPagamento: 0,
        acrescimoPagamento: 499,
        valorEstornado: 0,
      }),
    ).toEqual({
      subtotal: 10000,
      totalDesconto: -499,
      totalPago: 10499,
    });
    // A partial refund: total_pago + valor_estornado is the original total.
    const refunded = paymentTotals({
      totalBruto: 10000,
      descontoPromocao: 0,
      descontoPagamento: 0,
      acrescimoPagamento: 0,
      valorEstornado: 2500,
    });
    expect(refunded.totalPago + 2500).toBe(10000);
  });
});

describe('order schema', () => {
  const withValores = (valores: Record<string, unknown>) => {
    const o = makeOrder();
    (o.pagamento as { valores: unknown }).valores = valores;
    return o;
  };

  it('rejects a discount and a surcharge together (rule 1), naming the path', () => {
    const adj = { nome: null, forma: 'pix', percentual: 5, valor: 5 };
    const res = pedidoSchema.safeParse(
      withValores({
        total_bruto: 100,
        desconto_pagamento: adj,
        acrescimo_pagamento: { ...adj, forma: 'cartao_credito_3x' },
      }),
    );
    expect(res.success).toBe(false);
    expect(describeIssues(res.error!, ['pedidos', 4])).toEqual([
      'pedidos[4].pagamento.valores.acrescimo_pagamento: desconto_pagamento e acrescimo_pagamento são mutuamente exclusivos',
    ]);
  });

  it('rejects derived totals that do not follow the rules', () => {
    const res = pedidoSchema.safeParse(withValores({ total_bruto: 100, total_pago: 90 }));
    expect(res.success).toBe(false);
    expect(describeIssues(res.error!)[0]).toMatch(/^pagamento\.valores\.total_pago: .*100\.00/);
  });

  it('accepts both nulls (no adjustment) and normalises CPF and phones to digits', () => {
    const o = makeOrder();
    o.cliente.cpf = '123.456.789-09';
    const parsed = pedidoSchema.parse(o);
    expect(parsed.cliente.cpf).toBe('12345678909');
    expect(parsed.pagamento.valores.desconto_pagamento).toBeNull();
  });
});
