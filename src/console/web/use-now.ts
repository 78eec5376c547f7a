import { useEffect, useState } from 'preact/hooks';

/** The time, refreshed every `everyMs`: for "há 3 min" that stays true while a screen is open. */
export function useNow(everyMs: number): number {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    const t = setInterval(() => setNow(Date.now()), everyMs);
    return () => clearInterval(t);
  }, [everyMs]);
  return now;
}
