import { useEffect, useRef, useState } from 'preact/hooks';
import { api, ApiError, errorMessage } from './api';
import { formatTime } from './format';
import { rememberedStation, rememberStation } from './session';
import type { Sessao } from '../console.answers';

// The server says when the tenant is needed (a box with several parks): the field appears then.
const isAboutTenant = (err: ApiError) =>
  err.code === 'VALIDATION_ERROR' && /tenant|parque/i.test(`${err.message} ${JSON.stringify(err.details ?? '')}`);

function loginError(err: unknown): string {
  if (!(err instanceof ApiError)) return errorMessage(err);
  if (err.code === 'CONTA_BLOQUEADA') {
    const until = (err.details as { bloqueada_ate?: string } | undefined)?.bloqueada_ate;
    return until ? `${err.message} Tente de novo às ${formatTime(until)}.` : err.message;
  }
  const left = (err.details as { tentativas_restantes?: number } | undefined)?.tentativas_restantes;
  if (err.code === 'CREDENCIAIS_INVALIDAS' && typeof left === 'number' && left > 0 && left <= 2)
    return `${err.message} ${left === 1 ? 'Resta 1 tentativa' : `Restam ${left} tentativas`} antes do bloqueio.`;
  return err.message;
}

export function Login(props: { notice?: string | undefined; onSignedIn: (s: Sessao) => void }) {
  const [nome, setNome] = useState('');
  const [segredo, setSegredo] = useState('');
  const [estacao, setEstacao] = useState(rememberedStation);
  const [tenant, setTenant] = useState('');
  const [needsTenant, setNeedsTenant] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const tenantInput = useRef<HTMLInputElement>(null);
  const secretInput = useRef<HTMLInputElement>(null);
  const nameInput = useRef<HTMLInputElement>(null);
  useEffect(() => nameInput.current?.focus(), []);

  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    const station = estacao.trim();
    try {
      const sessao = await api<Sessao>('POST', '/api/console/entrar', {
        nome: nome.trim(),
        segredo,
        ...(station ? { estacao: station } : {}),
        ...(needsTenant && tenant.trim() ? { tenant: tenant.trim() } : {}),
      });
      rememberStation(station);
      props.onSignedIn(sessao);
    } catch (err) {
      setBusy(false);
      if (err instanceof ApiError && isAboutTenant(err) && !needsTenant) {
        setNeedsTenant(true);
        setError(`Informe o parque desta caixa. (${err.message})`);
        setTimeout(() => tenantInput.current?.focus(), 0);
        return;
      }
      setError(loginError(err));
      setSegredo('');
      setTimeout(() => secretInput.current?.focus(), 0);
    }
  };

  return (
    <main class="login">
      <form
        class="card login-form"
        onSubmit={submit}
        aria-labelledby="login-title"
        aria-describedby={error ? 'login-error' : undefined}
      >
        <h1 id="login-title">Console da portaria</h1>
        {props.notice && !error && (
          <p class="notice" role="status">
            {props.notice}
          </p>
        )}
        <label for="login-nome">Operador</label>
        <input
          id="login-nome"
          name="nome"
          autocomplete="username"
          required
          ref={nameInput}
          value={nome}
          onInput={(e) => setNome(e.currentTarget.value)}
        />
        <label for="login-segredo">PIN ou senha</label>
        <input
          id="login-segredo"
          name="segredo"
          type="password"
          autocomplete="current-password"
          required
          ref={secretInput}
          value={segredo}
          onInput={(e) => setSegredo(e.currentTarget.value)}
        />
        <label for="login-estacao">Estação</label>
        <input
          id="login-estacao"
          name="estacao"
          aria-describedby="login-estacao-hint"
          value={estacao}
          onInput={(e) => setEstacao(e.currentTarget.value)}
        />
        <p id="login-estacao-hint" class="hint">
          Nome deste posto (ex.: bilheteria-1). Fica guardado neste aparelho.
        </p>
        {needsTenant && (
          <>
            <label for="login-tenant">Parque</label>
            <input
              id="login-tenant"
              name="tenant"
              required
              ref={tenantInput}
              value={tenant}
              onInput={(e) => setTenant(e.currentTarget.value)}
            />
          </>
        )}
        {error && (
          <p id="login-error" class="form-error" role="alert">
            {error}
          </p>
        )}
        <button type="submit" class="btn btn-primary" disabled={busy}>
          {busy ? 'Entrando…' : 'Entrar'}
        </button>
      </form>
    </main>
  );
}
