import { useState } from 'preact/hooks';
import { api, errorMessage } from '../api';
import { formatDateTime } from '../format';
import { useSession } from '../session';
import { ErrorNote } from '../ui/ErrorNote';
import type { Operador } from '../../console.answers';
import { useLoad } from '../use-load';
import { NewOperatorForm } from './NewOperatorForm';

export function OperatorsView() {
  const me = useSession().operador;
  const list = useLoad(() => api<{ operadores: Operador[] }>('GET', '/api/console/operadores'), []);
  const [confirming, setConfirming] = useState<number | null>(null);
  const [rowError, setRowError] = useState<{ id: number; text: string } | null>(null);
  const [rowOk, setRowOk] = useState<{ id: number; text: string } | null>(null);

  const disable = async (o: Operador) => {
    setRowError(null);
    try {
      await api('POST', `/api/console/operadores/${o.id}/desativar`, {});
      setConfirming(null);
      setRowOk({ id: o.id, text: `${o.nome} foi desativado.` });
      list.reload();
    } catch (err) {
      setRowError({ id: o.id, text: errorMessage(err) });
    }
  };

  const operadores = list.data?.operadores ?? [];
  return (
    <section class="page" aria-labelledby="operators-title">
      <h1 id="operators-title">Operadores</h1>
      <NewOperatorForm onCreated={list.reload} />
      <section class="card" aria-labelledby="operators-list-title">
        <h2 id="operators-list-title">Contas</h2>
        <ErrorNote error={list.error} />
        <ul class="operator-list">
          {operadores.map((o) => (
            <li key={o.id} class={`operator ${o.ativo ? '' : 'operator-off'}`} data-operador={o.nome}>
              <div>
                <strong>{o.nome}</strong> · {o.papel === 'supervisor' ? 'Supervisor' : 'Atendente'} ·{' '}
                {o.ativo ? 'ativo' : 'desativado'}
                {o.bloqueado_ate && <span class="pill pill-bad">bloqueado até {formatDateTime(o.bloqueado_ate)}</span>}
                <span class="hint"> · criado em {formatDateTime(o.criado_em)}</span>
              </div>
              {o.ativo && o.id !== me.id && confirming !== o.id && (
                <button
                  type="button"
                  class="btn"
                  onClick={() => setConfirming(o.id)}
                  aria-label={`Desativar ${o.nome}`}
                >
                  Desativar
                </button>
              )}
              {confirming === o.id && (
                <div class="row" role="group" aria-label={`Confirmar desativação de ${o.nome}`}>
                  <span>Desativar {o.nome}? Ele não poderá mais entrar.</span>
                  <button type="button" class="btn btn-danger" onClick={() => void disable(o)}>
                    Confirmar
                  </button>
                  <button type="button" class="btn" onClick={() => setConfirming(null)}>
                    Cancelar
                  </button>
                </div>
              )}
              {rowError?.id === o.id && (
                <p class="form-error" role="alert">
                  {rowError.text}
                </p>
              )}
              {rowOk?.id === o.id && (
                <p class="form-ok" role="status">
                  {rowOk.text}
                </p>
              )}
            </li>
          ))}
        </ul>
      </section>
    </section>
  );
}
