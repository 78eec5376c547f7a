import { Worker } from 'node:worker_threads';
import fs from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';

/**
 * The nice value of worker threads that do bulk work beside the event loop (sync pages, listing
 * pages). Linux gives each thread its own nice value, so os.setPriority() inside a worker lowers
 * that thread only: when the two cores are contended, the event loop that answers the turnstiles
 * runs first and the bulk work takes longer.
 */
export const BULK_NICE = 19;

/**
 * Request and answer with one worker thread: each call posts `{ id, ...message }` and resolves with
 * the worker's `{ id, ...answer }`. The thread starts on first use, starts again on the next call
 * should it die (failing only the calls it had), and never keeps the process alive.
 */
export interface WorkerClient<Q, A> {
  call(message: Q): Promise<A>;
  close(): Promise<void>;
}

export function createWorkerClient<Q extends object, A extends object>(
  start: () => Worker,
  name: string,
): WorkerClient<Q, A> {
  let worker: Worker | null = null;
  let nextId = 0;
  const pending = new Map<number, { resolve: (a: A) => void; reject: (e: unknown) => void }>();

  const begin = () => {
    const w = start();
    w.on('message', (m: A & { id: number }) => {
      const { id, ...answer } = m;
      pending.get(id)?.resolve(answer as unknown as A);
      pending.delete(id);
    });
    const fail = (error: unknown) => {
      if (worker === w) worker = null;
      for (const p of pending.values()) p.reject(error);
      pending.clear();
    };
    w.on('error', fail);
    w.on('exit', (code) => fail(new Error(`${name} encerrou (código ${code})`)));
    w.unref();
    return w;
  };

  return {
    call(message) {
      worker ??= begin();
      const id = nextId++;
      const w = worker;
      return new Promise<A>((resolve, reject) => {
        pending.set(id, { resolve, reject });
        w.postMessage({ ...message, id });
      });
    },
    async close() {
      const w = worker;
      worker = null;
      if (w) await w.terminate();
    },
  };
}

/**
 * The JavaScript file of a worker thread beside the module `from` (its import.meta.url). Worker
 * threads load compiled JavaScript: a module run from its TypeScript source (the tests) gets the
 * build in dist/, which `npm test` makes before the tests run.
 */
export function compiledWorker(from: string, file: string): URL {
  const url = new URL(file, from);
  if (!from.endsWith('.ts')) return url;
  const source = fileURLToPath(url);
  const at = source.lastIndexOf('/src/');
  const built = `${source.slice(0, at)}/dist${source.slice(at)}`;
  if (!fs.existsSync(built)) throw new Error(`${built} não existe: compile o projeto antes (npm run build)`);
  return pathToFileURL(built);
}
