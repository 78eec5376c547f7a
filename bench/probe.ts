import { fork } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

// A turnstile in its own process (probe-child.ts): `during(work)` times its check-ins while `work` runs.

export interface Probe {
  /** `starts`: when each check-in was sent, ms since the epoch (performance.timeOrigin + now()). */
  during<T>(work: () => Promise<T>): Promise<{ value: T; times: number[]; starts: number[] }>;
  close(): Promise<void>;
}

export async function startProbe(
  url: string,
  key: string,
  qrPattern: string,
  first: number,
  everyMs = 20,
): Promise<Probe> {
  const here = path.dirname(fileURLToPath(import.meta.url));
  const child = fork(path.join(here, 'probe-child.js'), [url, key, qrPattern, String(first), String(everyMs)], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  // A probe that dies (a refused check-in throws there) ends the run instead of leaving it waiting.
  const message = <T>(type: string) =>
    new Promise<T>((resolve, reject) => {
      const onExit = (code: number | null) =>
        reject(new Error(`the probe exited with ${code} while waiting for '${type}'`));
      child.once('exit', onExit);
      child.on('message', function on(m: { type: string }) {
        if (m.type !== type) return;
        child.off('message', on);
        child.off('exit', onExit);
        resolve(m as T);
      });
    });
  await message('ready');
  return {
    async during(work) {
      child.send({ type: 'start' });
      const value = await work();
      child.send({ type: 'stop' });
      const { times, starts } = await message<{ times: number[]; starts: number[] }>('times');
      return { value, times, starts };
    },
    close: () => {
      child.send({ type: 'exit' });
      return new Promise((r) => child.once('exit', () => r()));
    },
  };
}
