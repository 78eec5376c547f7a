import { useState } from 'preact/hooks';
import { api } from '../api';
import { formatDate, formatMoney } from '../format';
import { useLiveEvent } from '../live';
import { lastSearchHref } from '../search/SearchView';
import { isSupervisor, useSession } from '../session';
import { ErrorNote } from '../ui/ErrorNote';
import type { Leitura, PedidoConsole } from '../../console.answers';
import { useLoad } from '../use-load';
import { useOrderActions } from './actions';
import { FeedbackNote } from './FeedbackNote';
import { OrderSummary } from './OrderSummary';
import { PersonCard } from './PersonCard';
import { ReversalForm } from './ReversalForm';

export function OrderView({ numero }: { numero: string }) {
  const supervisor = isSupervisor(useSession());
  const order = useLoad(
    () => api<PedidoConsole>('GET', `/api/console/pedidos/${encodeURIComponent(numero)}`),
    [numero],
  );
  const actions = useOrderActions((p) => (p ? order.setData(() => p) : order.reload()));
  const [reversingOrder, setReversingOrder] = useState(false);

  // A check-in of this order elsewhere (a lane, another desk) shows here without reloading.
  useLiveEvent<Leitura>('leitura', (l) => {
    if (l?.numero_pedido === numero && actions.busy === null) order.reload();
  });
  // In a rush the box sends the newest scans and only the order numbers of the others.
  useLiveEvent<string[]>('pedidos_lidos', (pedidos) => {
    if (pedidos?.includes(numero) && actions.busy === null) order.reload();
  });

  const data = order.data;
  if (!data)
    return (
      <section class="page" aria-labelledby="order-title">
        <p>
          <a class="back" href={lastSearchHref()}>
            ← Voltar à busca
          </a>
        </p>
        <h1 id="order-title">Pedido {numero}</h1>
        {order.loading ? <p role="status">Carregando…</p> : <ErrorNote error={order.error} />}
      </section>
    );

  const { pedido, pessoas } = data;
  const byQr = new Map(pessoas.map((p) => [p.qr_code, p]));
  const busy = actions.busy !== null;

  return (
    <section class="page order" aria-labelledby="order-title">
      <p>
        <a class="back" href={lastSearchHref()}>
          ← Voltar à busca
        </a>
      </p>
      <h1 id="order-title">Pedido {pedido.numero_pedido}</h1>
      <ErrorNote error={order.error} />
      <OrderSummary pedido={pedido} />

      <OrderActionsCard
        data={data}
        supervisor={supervisor}
        actions={actions}
        reversingOrder={reversingOrder}
        setReversingOrder={setReversingOrder}
      />

      {pedido.lotes.map((lote, i) => (
        <section class="card lot" key={i} aria-labelledby={`lote-${i}`}>
          <h2 id={`lote-${i}`}>
            {lote.nome_ingresso} · {lote.nome_lote}
          </h2>
          <p class="hint">
            Uso {formatDate(lote.data_uso)} · {lote.tipo_ingresso}
            {lote.categoria ? ` · ${lote.categoria}` : ''} · {formatMoney(lote.valor_unitario)} cada ·{' '}
            {lote.dados.length} pessoa{lote.dados.length === 1 ? '' : 's'}
          </p>
          <ul class="people">
            {lote.dados.map((d) => (
              <PersonCard
                key={d.qr_code}
                qr={d.qr_code}
                dados={d}
                pessoa={byQr.get(d.qr_code)}
                canReverse={supervisor}
                busy={actions.busy}
                feedback={actions.feedback[`pessoa:${d.qr_code}`]}
                onCheckin={actions.checkin}
                onReverse={actions.reverse}
              />
            ))}
          </ul>
        </section>
      ))}

      {pedido.adicionais && pedido.adicionais.length > 0 && (
        <AdditionalsCard adicionais={pedido.adicionais} busy={busy} actions={actions} />
      )}
    </section>
  );
}

type OrderActions = ReturnType<typeof useOrderActions>;

/** The order's entries and what can be done to all of it: check in the whole order or its group, reverse it. */
function OrderActionsCard({
  data,
  supervisor,
  actions,
  reversingOrder,
  setReversingOrder,
}: {
  data: PedidoConsole;
  supervisor: boolean;
  actions: OrderActions;
  reversingOrder: boolean;
  setReversingOrder: (open: boolean) => void;
}) {
  const { pedido, pessoas, combo_qr_code } = data;
  const anyIn = pessoas.some((p) => p.checkin_em);
  const anyOut = pessoas.some((p) => !p.checkin_em);
  const inCount = pessoas.filter((p) => p.checkin_em).length;
  const busy = actions.busy !== null;
  return (
    <section class="card order-actions" aria-labelledby="order-actions-title">
      <h2 id="order-actions-title">
        Entradas: {inCount} de {pessoas.length}
      </h2>
      <div class="row actions">
        {anyOut && (
          <button
            type="button"
            class="btn btn-primary"
            disabled={busy}
            onClick={() => void actions.checkin('pedido', { numero_pedido: pedido.numero_pedido })}
          >
            Check-in do pedido inteiro
          </button>
        )}
        {combo_qr_code && (
          <button
            type="button"
            class="btn"
            disabled={busy}
            onClick={() => void actions.checkin('combo', { qr_code: combo_qr_code })}
          >
            Check-in do grupo (QR {combo_qr_code})
          </button>
        )}
        {supervisor && anyIn && !reversingOrder && (
          <button type="button" class="btn btn-danger" onClick={() => setReversingOrder(true)}>
            Estornar o pedido inteiro
          </button>
        )}
      </div>
      {reversingOrder && (
        <ReversalForm
          id="pedido"
          what={`todo o pedido ${pedido.numero_pedido}`}
          busy={busy}
          onConfirm={(m) => actions.reverse('pedido', { numero_pedido: pedido.numero_pedido }, m)}
          onCancel={() => setReversingOrder(false)}
        />
      )}
      <FeedbackNote feedback={actions.feedback.pedido} />
      <FeedbackNote feedback={actions.feedback.combo} />
    </section>
  );
}

/** The order's additionals, each with its own check-in when it has a QR. */
function AdditionalsCard({
  adicionais,
  busy,
  actions,
}: {
  adicionais: NonNullable<PedidoConsole['pedido']['adicionais']>;
  busy: boolean;
  actions: OrderActions;
}) {
  return (
    <section class="card" aria-labelledby="adicionais-title">
      <h2 id="adicionais-title">Adicionais</h2>
      <ul class="people">
        {adicionais.map((a) => {
          const key = `adicional:${a.adicional_qr_code ?? a.adicional_id}`;
          return (
            <li class="person" key={a.adicional_id}>
              <h3>
                {a.quantidade} × {a.nome}
                {a.is_brinde ? ' (brinde)' : ''}
              </h3>
              <p class="hint">
                {formatMoney(a.subtotal)}
                {a.adicional_qr_code ? ` · QR ${a.adicional_qr_code}` : ''}
              </p>
              {a.adicional_qr_code && (
                <button
                  type="button"
                  class="btn"
                  disabled={busy}
                  onClick={() => void actions.checkin(key, { qr_code: a.adicional_qr_code! })}
                  aria-label={`Fazer check-in do adicional ${a.nome}`}
                >
                  Check-in do adicional
                </button>
              )}
              <FeedbackNote feedback={actions.feedback[key]} />
            </li>
          );
        })}
      </ul>
    </section>
  );
}
