import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { ApiError } from './api';
import { useLiveStatus } from './live';

export interface Loaded<T> {
  data: T | null;
  error: ApiError | null;
  loading: boolean;
  reload(): void;
  setData(update: (prev: T | null) => T | null): void;
}

/** Fetches on mount, when `deps` change and after each reconnection to the box. */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[]): Loaded<T> {
  const { generation } = useLiveStatus();
  const [data, setDataState] = useState<T | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  const [loading, setLoading] = useState(true);
  const [tick, setTick] = useState(0);
  const seq = useRef(0);

  useEffect(() => {
    const mine = ++seq.current;
    setLoading(true);
    load().then(
      (d) => {
        if (mine !== seq.current) return;
        setDataState(d);
        setError(null);
        setLoading(false);
      },
      (err: unknown) => {
        if (mine !== seq.current) return;
        setError(err instanceof ApiError ? err : new ApiError('ERRO', 'Erro inesperado no console.', 0));
        setLoading(false);
      },
    );
  }, [...deps, generation, tick]);

  const reload = useCallback(() => setTick((t) => t + 1), []);
  const setData = useCallback((update: (prev: T | null) => T | null) => setDataState(update), []);
  return { data, error, loading, reload, setData };
}
