import type { ApiErrorBody } from '../console.answers';

/** A refusal or failure answered by the box (or the lack of an answer: code SEM_CONEXAO). */
export class ApiError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly status: number,
    readonly details?: unknown,
  ) {
    super(message);
  }
}

// The CSRF token lives in memory only: the session itself is the server's httpOnly cookie.
let csrf = '';
export const setCsrf = (token: string) => {
  csrf = token;
};

interface Hooks {
  /** The box did not answer at all. */
  unreachable(): void;
  /** The box answered: it is reachable. */
  reachable(): void;
  /** The session cookie is no longer valid (expired, signed out elsewhere). */
  sessionLost(): void;
}
let hooks: Hooks = { unreachable: () => undefined, reachable: () => undefined, sessionLost: () => undefined };
export const setApiHooks = (h: Hooks) => {
  hooks = h;
};

export const NO_CONNECTION = 'SEM_CONEXAO';

export async function api<T>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (method !== 'GET') {
    headers['x-csrf-token'] = csrf;
    headers['content-type'] = 'application/json';
  }
  let res: Response;
  try {
    res = await fetch(path, {
      method,
      headers,
      credentials: 'same-origin',
      ...(method !== 'GET' ? { body: JSON.stringify(body ?? {}) } : {}),
    });
  } catch {
    hooks.unreachable();
    throw new ApiError(NO_CONNECTION, 'Sem conexão com a caixa. Tente de novo em instantes.', 0);
  }
  hooks.reachable();
  type Envelope = { success?: boolean; data?: T; error?: ApiErrorBody };
  const json = (await res.json().catch(() => null)) as Envelope | null;
  if (json && json.success === true) return json.data as T;
  const err = json?.error;
  if (!err)
    throw new ApiError('RESPOSTA_INVALIDA', `A caixa respondeu de forma inesperada (HTTP ${res.status}).`, res.status);
  if (res.status === 401 && err.code === 'SESSAO_INVALIDA') hooks.sessionLost();
  throw new ApiError(err.code, err.message, res.status, err.details);
}

export const errorMessage = (err: unknown) => (err instanceof ApiError ? err.message : 'Erro inesperado no console.');
