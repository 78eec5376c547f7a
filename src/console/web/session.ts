import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { Sessao } from '../console.answers';

export const SessionContext = createContext<Sessao | null>(null);

/** The signed-in operator's session (the app renders screens only inside one). */
export function useSession(): Sessao {
  const s = useContext(SessionContext);
  if (!s) throw new Error('useSession outside a session');
  return s;
}

export const isSupervisor = (s: Sessao) => s.operador.papel === 'supervisor';

const STATION_KEY = 'gate-console.estacao';

/** The station's name is the only thing kept in the browser: never a secret. */
export const rememberedStation = () => {
  try {
    return localStorage.getItem(STATION_KEY) ?? '';
  } catch {
    return '';
  }
};
export const rememberStation = (name: string) => {
  try {
    if (name) localStorage.setItem(STATION_KEY, name);
    else localStorage.removeItem(STATION_KEY);
  } catch {
    // Private mode: the field is simply not prefilled next time.
  }
};
