import { useState } from 'preact/hooks';
import type { Engine } from './engine';
import { tokenFrom } from './token';

export function Pair({
  engine,
  initialToken,
  revoked,
  onDone,
  onCancel,
}: {
  engine: Engine;
  initialToken: string | null;
  revoked: boolean;
  onDone: () => void;
  /** A device already paired opened a pairing link: it may keep its pairing. */
  onCancel: (() => void) | null;
}) {
  const [token, setToken] = useState(initialToken ?? '');
  const [nome, setNome] = useState('');
  const [erro, setErro] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (e: Event) => {
    e.preventDefault();
    const t = tokenFrom(token);
    if (!t) return setErro('Código de pareamento inválido: leia o QR do console de novo.');
    setBusy(true);
    setErro(null);
    try {
      await engine.pair(t, nome.trim());
      onDone();
    } catch (err) {
      setErro(err instanceof Error ? err.message : String(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <main class="screen">
      <h1>Parear aparelho</h1>
      {revoked && <p class="alert">Aparelho revogado: pareie de novo. A fila deste aparelho foi mantida.</p>}
      <form onSubmit={submit} class="form">
        {!initialToken && (
          <label>
            Código de pareamento
            <input value={token} onInput={(e) => setToken(e.currentTarget.value)} autocomplete="off" required />
          </label>
        )}
        <label>
          Nome do aparelho
          <input
            value={nome}
            onInput={(e) => setNome(e.currentTarget.value)}
            maxLength={40}
            placeholder="ex.: coletor-07"
            required
          />
        </label>
        <button class="primary" disabled={busy}>
          {busy ? 'Pareando…' : 'Parear'}
        </button>
        {onCancel && (
          <button type="button" class="secondary" onClick={onCancel}>
            Manter o pareamento atual
          </button>
        )}
        {erro && (
          <p class="alert" role="alert">
            {erro}
          </p>
        )}
      </form>
    </main>
  );
}
