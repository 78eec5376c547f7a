import { useEffect, useState } from 'preact/hooks';
import { api, ApiError, NO_CONNECTION, setApiHooks, setCsrf } from './api';
import { LiveContext, startLive, type Live, type LiveStatus } from './live';
import { Login } from './Login';
import { SessionContext } from './session';
import { Shell } from './Shell';
import type { Sessao } from '../console.answers';

type Boot =
  | { state: 'checking' }
  | { state: 'signed-out'; notice?: string }
  | { state: 'unreachable' }
  | { state: 'signed-in'; sessao: Sessao };

export function App() {
  const [boot, setBoot] = useState<Boot>({ state: 'checking' });
  const [live, setLive] = useState<Live | null>(null);
  const [status, setStatus] = useState<LiveStatus>({ online: null, generation: 0 });

  const signedIn = (sessao: Sessao) => {
    setCsrf(sessao.csrf);
    setBoot({ state: 'signed-in', sessao });
  };

  const checkSession = () => {
    setBoot({ state: 'checking' });
    api<Sessao>('GET', '/api/console/sessao').then(signedIn, (err: unknown) =>
      setBoot(
        err instanceof ApiError && err.code === NO_CONNECTION ? { state: 'unreachable' } : { state: 'signed-out' },
      ),
    );
  };
  useEffect(checkSession, []);
  // A box that was not there when the page loaded is asked again until it answers.
  useEffect(() => {
    if (boot.state !== 'unreachable') return;
    const t = setTimeout(checkSession, 3000);
    return () => clearTimeout(t);
  }, [boot.state]);

  const sessionKey = boot.state === 'signed-in' ? boot.sessao.csrf : null;
  useEffect(() => {
    if (!sessionKey) return;
    const sessionLost = () => {
      setCsrf('');
      setBoot({ state: 'signed-out', notice: 'Sua sessão terminou. Entre novamente.' });
    };
    const l = startLive({ sessionLost });
    setApiHooks({ unreachable: () => l.unreachable(), reachable: () => undefined, sessionLost });
    setLive(l);
    setStatus(l.status());
    const off = l.onStatus(setStatus);
    return () => {
      off();
      l.stop();
      setLive(null);
    };
  }, [sessionKey]);

  if (boot.state === 'checking')
    return (
      <p class="boot" role="status">
        Carregando o console…
      </p>
    );
  if (boot.state === 'unreachable')
    return (
      <main class="boot">
        <p role="alert" class="banner banner-offline">
          Sem conexão com a caixa.
        </p>
        <button type="button" class="btn" onClick={checkSession}>
          Tentar de novo
        </button>
      </main>
    );
  if (boot.state === 'signed-out') return <Login notice={boot.notice} onSignedIn={signedIn} />;

  const signOut = () => {
    api('POST', '/api/console/sair').catch(() => undefined);
    setCsrf('');
    setBoot({ state: 'signed-out' });
  };
  return (
    <SessionContext.Provider value={boot.sessao}>
      <LiveContext.Provider value={{ live, status }}>
        <Shell onSignOut={signOut} />
      </LiveContext.Provider>
    </SessionContext.Provider>
  );
}
