/**
 * What a start opened, closed in reverse order: the box (createBox, src/box.ts), which the tests start too,
 * pushes a closer right after opening each thing, so a step that fails, or the stop, closes exactly
 * what is open, newest first, and never leaves the database (or a port, a lane) open behind it.
 */
export interface Closers {
  /** How to close what was just opened. Pushed after close() began, it runs at once (after the rest). */
  push(name: string, close: () => unknown): void;
  /**
   * Runs every closer newest first, each once, the next even when one throws; resolves when all
   * ran, or rejects with the failure (an AggregateError when several failed). Idempotent: a second
   * call answers the first one's promise.
   */
  close(): Promise<void>;
}

export interface ClosersOptions {
  /** Told after each closer that ran without error (the box logs it at debug). */
  onClosed?: (name: string) => void;
  /** Told of each closer that threw, as it happens (the box logs it). */
  onError?: (name: string, error: unknown) => void;
}

export function createClosers({ onClosed, onError }: ClosersOptions = {}): Closers {
  const stack: { name: string; close: () => unknown }[] = [];
  const errors: unknown[] = [];
  let done: Promise<void> | undefined;

  const run = async (name: string, close: () => unknown) => {
    try {
      await close();
      onClosed?.(name);
    } catch (error) {
      errors.push(error);
      onError?.(name, error);
    }
  };
  const outcome = () => {
    if (errors.length === 1) throw errors[0];
    if (errors.length > 1) throw new AggregateError(errors, `${errors.length} recursos falharam ao fechar`);
  };

  return {
    push(name, close) {
      if (!done) stack.push({ name, close });
      else done = done.then(() => run(name, close));
    },
    close() {
      done ??= (async () => {
        for (let entry = stack.pop(); entry; entry = stack.pop()) await run(entry.name, entry.close);
      })();
      return done.then(outcome);
    },
  };
}
