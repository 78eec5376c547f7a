import { formatCpf, formatDateTime, formatMoney } from '../format';
import { StatusBadge } from '../ui/StatusBadge';
import type { Pedido } from '../../console.answers';

const STATUS_HINT: Record<string, string> = {
  cancelado: 'Pedido cancelado: ninguém deste pedido pode entrar.',
  reembolsado: 'Pedido reembolsado: ninguém deste pedido pode entrar.',
};

export function OrderSummary({ pedido }: { pedido: Pedido }) {
  const c = pedido.cliente;
  const v = pedido.pagamento.valores;
  const fullName = [c.nome, c.sobrenome].filter(Boolean).join(' ');
  return (
    <div class="order-summary">
      <div class={`order-status order-status-${pedido.status}`}>
        <StatusBadge status={pedido.status} large />
        {STATUS_HINT[pedido.status] && <p>{STATUS_HINT[pedido.status]}</p>}
      </div>
      <div class="grid-2">
        <section class="card" aria-labelledby="cliente-title">
          <h2 id="cliente-title">Cliente</h2>
          <dl class="fields">
            <div>
              <dt>Nome</dt>
              <dd>{fullName || '—'}</dd>
            </div>
            {c.email && (
              <div>
                <dt>E-mail</dt>
                <dd>{c.email}</dd>
              </div>
            )}
            {c.cpf && (
              <div>
                <dt>CPF</dt>
                <dd>{formatCpf(c.cpf)}</dd>
              </div>
            )}
            {c.telefone && (
              <div>
                <dt>Telefone</dt>
                <dd>{c.telefone}</dd>
              </div>
            )}
            <div>
              <dt>Pago em</dt>
              <dd>{formatDateTime(pedido.pago_em)}</dd>
            </div>
            {pedido.origem && (
              <div>
                <dt>Origem</dt>
                <dd>{pedido.origem}</dd>
              </div>
            )}
            {pedido.cupom && (
              <div>
                <dt>Cupom</dt>
                <dd>
                  {pedido.cupom.codigo} ({pedido.cupom.nome})
                </dd>
              </div>
            )}
          </dl>
        </section>
        <section class="card" aria-labelledby="pagamento-title">
          <h2 id="pagamento-title">Pagamento</h2>
          <dl class="fields money">
            <div>
              <dt>Total bruto</dt>
              <dd>{formatMoney(v.total_bruto)}</dd>
            </div>
            <div>
              <dt>Descontos</dt>
              <dd>{formatMoney(v.total_desconto)}</dd>
            </div>
            {v.acrescimo_pagamento && (
              <div>
                <dt>Acréscimo</dt>
                <dd>{formatMoney(v.acrescimo_pagamento.valor)}</dd>
              </div>
            )}
            <div class="total">
              <dt>Total pago</dt>
              <dd>{formatMoney(v.total_pago)}</dd>
            </div>
            {v.valor_estornado > 0 && (
              <div class="refund">
                <dt>Valor estornado</dt>
                <dd>{formatMoney(v.valor_estornado)}</dd>
              </div>
            )}
          </dl>
        </section>
      </div>
    </div>
  );
}
