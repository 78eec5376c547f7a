import { useState } from 'preact/hooks';
import { api, errorMessage } from '../api';
import type { Operador, Papel } from '../../console.answers';

export function NewOperatorForm({ onCreated }: { onCreated: () => void }) {
  const [nome, setNome] = useState('');
  const [papel, setPapel] = useState<Papel>('atendente');
  const [error, setError] = useState<string | null>(null);
  const [created, setCreated] = useState<{ nome: string; pin: string } | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    setCreated(null);
    try {
      const r = await api<{ operador: Operador; pin: string }>('POST', '/api/console/operadores', {
        nome: nome.trim(),
        papel,
      });
      setCreated({ nome: r.operador.nome, pin: r.pin });
      setNome('');
      onCreated();
    } catch (err) {
      setError(errorMessage(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <section class="card" aria-labelledby="new-operator-title">
      <h2 id="new-operator-title">Novo operador</h2>
      <form class="row wrap" onSubmit={submit}>
        <div class="field">
          <label for="op-nome">Nome</label>
          <input id="op-nome" required maxLength={60} value={nome} onInput={(e) => setNome(e.currentTarget.value)} />
        </div>
        <div class="field">
          <label for="op-papel">Papel</label>
          <select id="op-papel" value={papel} onChange={(e) => setPapel(e.currentTarget.value as Papel)}>
            <option value="atendente">Atendente</option>
            <option value="supervisor">Supervisor</option>
          </select>
        </div>
        <button type="submit" class="btn btn-primary" disabled={busy}>
          Criar operador
        </button>
      </form>
      {error && (
        <p class="form-error" role="alert">
          {error}
        </p>
      )}
      {created && (
        <div class="pin-box" role="status">
          <p>
            PIN de <strong>{created.nome}</strong>: <span class="pin">{created.pin}</span>
          </p>
          <p>Anote e entregue agora: este PIN não será mostrado de novo.</p>
        </div>
      )}
    </section>
  );
}
